package kernels

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
)

// histogram returns row g of fm as a map from feature name to value.
func histogram(fm *FeatureMap, g int) map[string]float64 {
	h := map[string]float64{}
	for k, j := range fm.Rows[g].Index {
		h[fm.Names[j]] = fm.Rows[g].Value[k]
	}
	return h
}

// TestSPKnownAnswer counts by hand, with degree labels.
//
//	P4 0-1-2-3, degrees 1,2,2,1: {0,1} (1,2,1); {0,2} (1,2,2); {0,3} (1,1,3);
//	  {1,2} (2,2,1); {1,3} (2,1)→(1,2,2); {2,3} (2,1)→(1,2,1).
//	C4 0-1-2-3-0, degrees 2: 4 adjacent pairs (2,2,1), 2 opposite (2,2,2).
//	Two disjoint edges plus an isolated node, degrees 1,1,1,1,0: the two
//	  edges (1,1,1); the 8 other pairs are unreachable and not counted.
//	A single node, an empty graph: nothing.
func TestSPKnownAnswer(t *testing.T) {
	graphs := []datasets.Graph{
		mkGraph(4, path(4), nil),
		mkGraph(4, cycle(4), nil),
		mkGraph(5, [][2]int{{0, 1}, {2, 3}}, nil),
		mkGraph(1, nil, nil),
		{},
	}
	fm, err := SPFeatures(graphs)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]float64{
		{"(1,2,1)": 2, "(1,2,2)": 2, "(1,1,3)": 1, "(2,2,1)": 1},
		{"(2,2,1)": 4, "(2,2,2)": 2},
		{"(1,1,1)": 2},
		{},
		{},
	}
	for g := range graphs {
		if got := histogram(fm, g); !reflect.DeepEqual(got, want[g]) {
			t.Errorf("graph %d: got %v, want %v", g, got, want[g])
		}
	}
	// Features are sorted by (a, b, d): (1,1,1) (1,1,3) (1,2,1) (1,2,2) (2,2,1) (2,2,2).
	wantNames := []string{"(1,1,1)", "(1,1,3)", "(1,2,1)", "(1,2,2)", "(2,2,1)", "(2,2,2)"}
	if fm.Kernel != "sp" || fm.Dim != 6 || fm.NodeLabels || !reflect.DeepEqual(fm.Names, wantNames) {
		t.Errorf("Kernel %q Dim %d NodeLabels %v Names %v, want sp 6 false %v", fm.Kernel, fm.Dim, fm.NodeLabels, fm.Names, wantNames)
	}
	checkRow(t, "P4", fm.Rows[0], []int32{1, 2, 3, 4}, []float64{1, 2, 2, 1})
	checkRow(t, "C4", fm.Rows[1], []int32{4, 5}, []float64{4, 2})
}

// TestSPNodeLabels: discrete labels replace degrees, and the label pair is
// ordered canonically. Path 0-1-2 labelled 5,3,5: {0,1} (5,3)→(3,5,1),
// {1,2} (3,5,1), {0,2} (5,5,2).
func TestSPNodeLabels(t *testing.T) {
	fm, err := SPFeatures([]datasets.Graph{mkGraph(3, path(3), []int32{5, 3, 5})})
	if err != nil {
		t.Fatal(err)
	}
	if !fm.NodeLabels {
		t.Error("NodeLabels = false for labelled graphs")
	}
	if got, want := histogram(fm, 0), map[string]float64{"(3,5,1)": 2, "(5,5,2)": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	mixed := []datasets.Graph{mkGraph(2, path(2), []int32{0, 1}), mkGraph(2, path(2), nil)}
	if _, err := SPFeatures(mixed); err == nil {
		t.Error("mixed labelled/unlabelled graphs: no error")
	}
	bad := mkGraph(2, path(2), nil)
	bad.Src[0] = -1
	if _, err := SPFeatures([]datasets.Graph{bad}); err == nil {
		t.Error("edge out of range: no error")
	}
}

// referenceSP is a direct transcription: Floyd-Warshall distances, then
// every pair u < v at finite distance counted under its sorted labels.
func referenceSP(graphs []datasets.Graph, useLabels bool) []map[string]float64 {
	out := make([]map[string]float64, len(graphs))
	for g, gr := range graphs {
		n := gr.NumNodes
		const inf = 1 << 30
		d := make([][]int, n)
		for u := range d {
			d[u] = make([]int, n)
			for v := range d[u] {
				if u != v {
					d[u][v] = inf
				}
			}
		}
		for e, s := range gr.Src {
			d[s][gr.Dst[e]] = 1
		}
		for k := range n {
			for u := range n {
				for v := range n {
					d[u][v] = min(d[u][v], d[u][k]+d[k][v])
				}
			}
		}
		label := gr.Degrees()
		if useLabels {
			for v, l := range gr.NodeLabels {
				label[v] = int(l)
			}
		}
		out[g] = map[string]float64{}
		for u := range n {
			for v := u + 1; v < n; v++ {
				if d[u][v] < inf {
					a, b := min(label[u], label[v]), max(label[u], label[v])
					out[g][fmt.Sprintf("(%d,%d,%d)", a, b, d[u][v])]++
				}
			}
		}
	}
	return out
}

// TestSPMatchesReference compares SPFeatures with the reference on random
// graphs: unlabelled, with few labels (dense counts) and with a label per
// node (the map fallback), on 1 and 4 goroutines, with bitBFS and queueBFS.
func TestSPMatchesReference(t *testing.T) {
	unique := randomGraphs(9, 40, false)
	for g := range unique {
		r := rand.New(rand.NewPCG(uint64(g), 3))
		for range unique[g].NumNodes {
			unique[g].NodeLabels = append(unique[g].NodeLabels, int32(r.IntN(1000)))
		}
	}
	// A long path (distances up to 29) and a 30-node graph with a label per
	// node (30² label pairs: the map fallback).
	unique = append(unique, mkGraph(30, path(30), slices.Repeat([]int32{7}, 30)))
	r := rand.New(rand.NewPCG(4, 4))
	var edges [][2]int
	for range 45 {
		if u, v := r.IntN(30), r.IntN(30); u != v && !slices.Contains(edges, [2]int{u, v}) && !slices.Contains(edges, [2]int{v, u}) {
			edges = append(edges, [2]int{u, v})
		}
	}
	var labels []int32
	for _, l := range r.Perm(30) {
		labels = append(labels, int32(l))
	}
	unique = append(unique, mkGraph(30, edges, labels))
	for name, c := range map[string]struct {
		graphs    []datasets.Graph
		useLabels bool
	}{
		"degrees":       {randomGraphs(7, 120, false), false},
		"few labels":    {randomGraphs(8, 120, true), true},
		"unique labels": {unique, true},
	} {
		want := referenceSP(c.graphs, c.useLabels)
		var maps []*FeatureMap
		for _, run := range []struct{ procs, bitBFSMax int }{{1, 1024}, {4, 1024}, {2, 0}} {
			oldProcs, oldMax := runtime.GOMAXPROCS(run.procs), spBitBFSMaxNodes
			spBitBFSMaxNodes = run.bitBFSMax // 0: queueBFS only
			fm, err := SPFeatures(c.graphs)
			runtime.GOMAXPROCS(oldProcs)
			spBitBFSMaxNodes = oldMax
			if err != nil {
				t.Fatal(err)
			}
			for g := range c.graphs {
				if got := histogram(fm, g); !reflect.DeepEqual(got, want[g]) {
					t.Fatalf("%s graph %d: got %v, want %v", name, g, got, want[g])
				}
				if !slices.IsSorted(fm.Rows[g].Index) {
					t.Fatalf("%s graph %d: indices not sorted", name, g)
				}
			}
			maps = append(maps, fm)
		}
		if !reflect.DeepEqual(maps[0], maps[1]) || !reflect.DeepEqual(maps[0], maps[2]) {
			t.Errorf("%s: 1 and 4 goroutines, bitBFS and queueBFS give different maps", name)
		}
	}
}
