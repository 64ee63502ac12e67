package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
)

func checkRow(t *testing.T, name string, got SparseVector, idx []int32, val []float64) {
	t.Helper()
	if !reflect.DeepEqual(got.Index, idx) || !reflect.DeepEqual(got.Value, val) {
		t.Errorf("%s: got %v %v, want %v %v", name, got.Index, got.Value, idx, val)
	}
}

// TestWLKnownAnswer works the relabelling out by hand. Labels a=0, b=1.
//
//	G1: path a-b-a. Iteration 0: {a:2, b:1} → ids a=0, b=1.
//	    Iteration 1: ends (a,{b}) → 0, middle (b,{a,a}) → 1: {0:2, 1:1}.
//	G2: edge a-a.   Iteration 0: {a:2}.
//	    Iteration 1: (a,{a}) → 2 (new): {2:2}.
//
// Offsets [0, 2, 5]: iteration-1 id k is feature 2+k.
// Iteration 2 repeats the pattern: G1 (0,{1}) → 0, (1,{0,0}) → 1; G2 (2,{2}) → 2.
func TestWLKnownAnswer(t *testing.T) {
	graphs := []datasets.Graph{
		mkGraph(3, path(3), []int32{0, 1, 0}),
		mkGraph(2, path(2), []int32{0, 0}),
	}
	fm, err := WLFeatures(graphs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !fm.NodeLabels || fm.Dim != 5 || !reflect.DeepEqual(fm.Offsets, []int{0, 2, 5}) {
		t.Fatalf("NodeLabels=%v Dim=%d Offsets=%v, want true 5 [0 2 5]", fm.NodeLabels, fm.Dim, fm.Offsets)
	}
	checkRow(t, "G1", fm.Rows[0], []int32{0, 1, 2, 3}, []float64{2, 1, 2, 1})
	checkRow(t, "G2", fm.Rows[1], []int32{0, 4}, []float64{2, 2})

	fm2, err := WLFeatures(graphs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fm2.Offsets, []int{0, 2, 5, 8}) {
		t.Fatalf("h=2 offsets %v, want [0 2 5 8]", fm2.Offsets)
	}
	checkRow(t, "G1 h=2", fm2.Rows[0], []int32{0, 1, 2, 3, 5, 6}, []float64{2, 1, 2, 1, 2, 1})
	checkRow(t, "G2 h=2", fm2.Rows[1], []int32{0, 4, 7}, []float64{2, 2, 2})

	fm0, err := WLFeatures(graphs, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkRow(t, "G1 h=0", fm0.Rows[0], []int32{0, 1}, []float64{2, 1})
}

// TestWLDegreeFallback: without node labels the initial label is the degree.
//
//	path 0-1-2: degrees 1,2,1 → ids deg1=0, deg2=1: {0:2, 1:1}.
//	    Iteration 1: (0,{1}) → 0, (1,{0,0}) → 1: features 2:2, 3:1.
//	triangle: degrees 2,2,2: {1:3}; (1,{1,1}) → 2: feature 4:3.
func TestWLDegreeFallback(t *testing.T) {
	graphs := []datasets.Graph{mkGraph(3, path(3), nil), mkGraph(3, cycle(3), nil)}
	fm, err := WLFeatures(graphs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fm.NodeLabels {
		t.Error("NodeLabels = true for unlabelled graphs")
	}
	if fm.Dim != 5 {
		t.Errorf("Dim = %d, want 5", fm.Dim)
	}
	checkRow(t, "path", fm.Rows[0], []int32{0, 1, 2, 3}, []float64{2, 1, 2, 1})
	checkRow(t, "triangle", fm.Rows[1], []int32{1, 4}, []float64{3, 3})
}

// TestWLSameStructureSameIDs: isomorphic graphs with different node orders
// get identical rows (the dictionary is shared), a different graph does not.
func TestWLSameStructureSameIDs(t *testing.T) {
	// Labelled path 0-1-2-3-4 with a pendant 5 on node 2.
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {2, 5}}
	labels := []int32{0, 1, 2, 1, 0, 3}
	perm := []int{4, 2, 5, 0, 1, 3} // old node i becomes perm[i]
	var pEdges [][2]int
	for _, e := range edges {
		pEdges = append(pEdges, [2]int{perm[e[0]], perm[e[1]]})
	}
	pLabels := make([]int32, 6)
	for i, l := range labels {
		pLabels[perm[i]] = l
	}
	other := mkGraph(6, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}, labels)
	graphs := []datasets.Graph{mkGraph(6, edges, labels), other, mkGraph(6, pEdges, pLabels)}
	for _, h := range []int{0, 1, 3, 5} {
		fm, err := WLFeatures(graphs, h)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fm.Rows[0], fm.Rows[2]) {
			t.Errorf("h=%d: isomorphic graphs differ: %v vs %v", h, fm.Rows[0], fm.Rows[2])
		}
		if h > 0 && reflect.DeepEqual(fm.Rows[0], fm.Rows[1]) {
			t.Errorf("h=%d: different graphs have equal rows", h)
		}
		// Every iteration contributes exactly NumNodes counts.
		for g, r := range fm.Rows {
			per := make([]float64, h+1)
			for k, j := range r.Index {
				for it := 0; it <= h; it++ {
					if int(j) >= fm.Offsets[it] && int(j) < fm.Offsets[it+1] {
						per[it] += r.Value[k]
					}
				}
			}
			for it, c := range per {
				if c != 6 {
					t.Errorf("h=%d graph %d iteration %d: %v counts, want 6", h, g, it, c)
				}
			}
		}
	}
}

func TestWLErrors(t *testing.T) {
	if _, err := WLFeatures(nil, -1); err == nil {
		t.Error("negative iterations: no error")
	}
	mixed := []datasets.Graph{mkGraph(2, path(2), []int32{0, 1}), mkGraph(2, path(2), nil)}
	if _, err := WLFeatures(mixed, 1); err == nil {
		t.Error("mixed labelled/unlabelled graphs: no error")
	}
	short := []datasets.Graph{mkGraph(3, path(3), []int32{0, 1})}
	if _, err := WLFeatures(short, 1); err == nil {
		t.Error("too few node labels: no error")
	}
	bad := mkGraph(2, path(2), nil)
	bad.Dst[0] = 7
	if _, err := WLFeatures([]datasets.Graph{bad}, 1); err == nil {
		t.Error("edge out of range: no error")
	}
	// Empty graphs are fine and get empty rows.
	fm, err := WLFeatures([]datasets.Graph{{}, mkGraph(1, nil, []int32{3})}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.Rows[0].Index) != 0 || len(fm.Rows[1].Index) != 3 {
		t.Errorf("rows %v", fm.Rows)
	}
}

func TestNormalize(t *testing.T) {
	rows := []SparseVector{
		{Index: []int32{0, 1, 2, 3}, Value: []float64{2, 1, 2, 1}},
		{},
	}
	l2, err := Normalize(rows, "l2")
	if err != nil {
		t.Fatal(err)
	}
	s := math.Sqrt(10)
	want := []float64{2 / s, 1 / s, 2 / s, 1 / s}
	for k := range want {
		if math.Abs(l2[0].Value[k]-want[k]) > 1e-15 {
			t.Errorf("l2: %v, want %v", l2[0].Value, want)
		}
	}
	if math.Abs(l2[0].SquaredNorm()-1) > 1e-12 {
		t.Errorf("l2 norm² = %v", l2[0].SquaredNorm())
	}
	l1, _ := Normalize(rows, "l1")
	if !reflect.DeepEqual(l1[0].Value, []float64{2.0 / 6, 1.0 / 6, 2.0 / 6, 1.0 / 6}) {
		t.Errorf("l1: %v", l1[0].Value)
	}
	none, _ := Normalize(rows, "none")
	if !reflect.DeepEqual(none[0].Value, rows[0].Value) {
		t.Errorf("none: %v", none[0].Value)
	}
	if len(l2[1].Value) != 0 || len(l1[1].Value) != 0 {
		t.Error("zero row not kept zero")
	}
	if rows[0].Value[0] != 2 {
		t.Error("Normalize modified its input")
	}
	if _, err := Normalize(rows, "max"); err == nil {
		t.Error("unknown norm: no error")
	}
}

// referenceWL is a direct, slow transcription of the WL relabelling: one
// string-keyed dictionary per iteration, no shortcuts. It returns per-graph
// histograms keyed by global feature id.
func referenceWL(graphs []datasets.Graph, h int, useLabels bool) []map[int32]float64 {
	labels := make([][]int, len(graphs))
	dict0 := map[int]int{}
	for g, gr := range graphs {
		deg := gr.Degrees()
		for v := range gr.NumNodes {
			raw := deg[v]
			if useLabels {
				raw = int(gr.NodeLabels[v])
			}
			if _, ok := dict0[raw]; !ok {
				dict0[raw] = len(dict0)
			}
			labels[g] = append(labels[g], dict0[raw])
		}
	}
	hist := make([]map[int32]float64, len(graphs))
	for g := range hist {
		hist[g] = map[int32]float64{}
		for _, l := range labels[g] {
			hist[g][int32(l)]++
		}
	}
	offset := len(dict0)
	for range h {
		dict := map[string]int{}
		next := make([][]int, len(graphs))
		for g, gr := range graphs {
			for v := range gr.NumNodes {
				var nb []int
				for e, s := range gr.Src {
					if int(s) == v {
						nb = append(nb, labels[g][gr.Dst[e]])
					}
				}
				slices.Sort(nb)
				key := fmt.Sprint(labels[g][v], nb)
				if _, ok := dict[key]; !ok {
					dict[key] = len(dict)
				}
				next[g] = append(next[g], dict[key])
			}
		}
		for g := range graphs {
			for _, l := range next[g] {
				hist[g][int32(offset+l)]++
			}
		}
		labels = next
		offset += len(dict)
	}
	return hist
}

func randomGraphs(seed uint64, count int, labelled bool) []datasets.Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	var graphs []datasets.Graph
	for range count {
		n := 1 + r.IntN(12)
		var edges [][2]int
		for u := range n {
			for v := u + 1; v < n; v++ {
				if r.Float64() < 0.3 {
					edges = append(edges, [2]int{u, v})
				}
			}
		}
		var labels []int32
		if labelled {
			for range n {
				labels = append(labels, int32(r.IntN(3)))
			}
		}
		graphs = append(graphs, mkGraph(n, edges, labels))
	}
	return graphs
}

// TestWLMatchesReference checks WLFeatures (hashed dictionary, unique-label
// shortcut) against the slow reference, also when every hash collides.
func TestWLMatchesReference(t *testing.T) {
	hashes := map[string]func([]int32) uint64{
		"default":   hashSignature,
		"constant":  func([]int32) uint64 { return 7 },
		"by-length": func(s []int32) uint64 { return uint64(len(s)) },
	}
	for _, labelled := range []bool{false, true} {
		graphs := randomGraphs(5, 80, labelled)
		const h = 4
		want := referenceWL(graphs, h, labelled)
		for name, hash := range hashes {
			fm, err := wlFeatures(graphs, h, hash)
			if err != nil {
				t.Fatal(err)
			}
			for g, row := range fm.Rows {
				got := map[int32]float64{}
				for k, j := range row.Index {
					got[j] = row.Value[k]
					if k > 0 && row.Index[k-1] >= j {
						t.Fatalf("%s: row %d indices not increasing: %v", name, g, row.Index)
					}
				}
				if !reflect.DeepEqual(got, want[g]) {
					t.Fatalf("labelled=%v hash=%s graph %d: got %v, want %v", labelled, name, g, got, want[g])
				}
			}
		}
	}
}
