package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

// exactAll counts every graph exactly.
const exactAll = math.MaxInt

// graphletCounts returns row g of an exact graphlet map as counts by type
// name: frequency times C(n,3) or C(n,4), rounded.
func graphletCounts(fm *FeatureMap, g, n int) map[string]float64 {
	h := map[string]float64{}
	for k, j := range fm.Rows[g].Index {
		total := choose(n, 3)
		if int(j) >= numGraphlets3 {
			total = choose(n, 4)
		}
		h[fm.Names[j]] = math.Round(fm.Rows[g].Value[k] * total)
	}
	return h
}

// TestGraphletKnownAnswer counts by hand.
//
//	K4: 4 triangles; 1 K4.
//	C4 0-1-2-3-0: every 3-subset misses one node and is a path: 4 P3; 1 C4.
//	Star K1,3 (centre 0): {0,a,b} are paths (3), {1,2,3} is empty; 1 K1,3.
//	P4 0-1-2-3: {0,1,2}, {1,2,3} paths; {0,1,3}, {0,2,3} one edge; 1 P4.
//	Triangle 0-1-2 plus isolated 3, 4: 3-subsets: the triangle; 2 triangle
//	  nodes + 1 isolated: 3·2 = 6 with one edge; 1 + 2 isolated: 3 empty.
//	  4-subsets: triangle + an isolated node (2 K3+K1); 2 triangle nodes +
//	  both isolated (3 K2+2K1).
//	Two disjoint edges 0-1, 2-3: 4 3-subsets with one edge; 1 2K2.
//	Paw (triangle 0-1-2, pendant 2-3): {0,1,2} K3; {0,2,3}, {1,2,3} P3;
//	  {0,1,3} one edge; 1 paw. Diamond (K4 minus 0-3): {0,1,2}, {1,2,3} K3,
//	  {0,1,3}, {0,2,3} P3; 1 diamond. Path 0-1-2 plus isolated 3: {0,1,2}
//	  P3, {0,1,3}, {1,2,3} one edge, {0,2,3} empty; 1 P3+K1.
//	4 isolated nodes: 4 empty 3-subsets; 1 4K1. A triangle alone: 1 K3, no
//	  4-subsets. An edge, a node, an empty graph: nothing.
func TestGraphletKnownAnswer(t *testing.T) {
	cases := []struct {
		name  string
		g     datasets.Graph
		want  map[string]float64
		empty bool
	}{
		{"K4", mkGraph(4, clique(4), nil), map[string]float64{"K3": 4, "K4": 1}, false},
		{"C4", mkGraph(4, cycle(4), nil), map[string]float64{"P3": 4, "C4": 1}, false},
		{"star", mkGraph(4, star(4), nil), map[string]float64{"P3": 3, "3K1": 1, "K1,3": 1}, false},
		{"P4", mkGraph(4, path(4), nil), map[string]float64{"P3": 2, "K2+K1": 2, "P4": 1}, false},
		{"triangle+2", mkGraph(5, cycle(3), nil), map[string]float64{"K3": 1, "K2+K1": 6, "3K1": 3, "K3+K1": 2, "K2+2K1": 3}, false},
		{"2K2", mkGraph(4, [][2]int{{0, 1}, {2, 3}}, nil), map[string]float64{"K2+K1": 4, "2K2": 1}, false},
		{"paw", mkGraph(4, [][2]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}}, nil), map[string]float64{"K3": 1, "P3": 2, "K2+K1": 1, "paw": 1}, false},
		{"diamond", mkGraph(4, [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}, nil), map[string]float64{"K3": 2, "P3": 2, "diamond": 1}, false},
		{"P3+K1", mkGraph(4, path(3), nil), map[string]float64{"P3": 1, "K2+K1": 2, "3K1": 1, "P3+K1": 1}, false},
		{"4K1", mkGraph(4, nil, nil), map[string]float64{"3K1": 4, "4K1": 1}, false},
		{"K3", mkGraph(3, cycle(3), nil), map[string]float64{"K3": 1}, false},
		{"K2", mkGraph(2, path(2), nil), map[string]float64{}, true},
		{"K1", mkGraph(1, nil, nil), map[string]float64{}, true},
		{"empty", datasets.Graph{}, map[string]float64{}, true},
	}
	var graphs []datasets.Graph
	for _, c := range cases {
		graphs = append(graphs, c.g)
	}
	for _, threshold := range []int{exactAll, 0} {
		fm, err := GraphletFeatures(graphs, threshold, 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fm.Kernel != "graphlet" || fm.Dim != 15 || !reflect.DeepEqual(fm.Offsets, []int{0, 4, 15}) || len(fm.Names) != 15 {
			t.Fatalf("Kernel %q Dim %d Offsets %v Names %v", fm.Kernel, fm.Dim, fm.Offsets, fm.Names)
		}
		for g, c := range cases {
			if threshold == exactAll {
				if got := graphletCounts(fm, g, c.g.NumNodes); !reflect.DeepEqual(got, c.want) {
					t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				}
			}
			// Each size's part is a distribution (or empty), exact or sampled.
			var s3, s4 float64
			for k, j := range fm.Rows[g].Index {
				if j < numGraphlets3 {
					s3 += fm.Rows[g].Value[k]
				} else {
					s4 += fm.Rows[g].Value[k]
				}
			}
			n := c.g.NumNodes
			if w3, w4 := b2f(n >= 3), b2f(n >= 4); math.Abs(s3-w3) > 1e-12 || math.Abs(s4-w4) > 1e-12 {
				t.Errorf("threshold %d %s: sums %v %v, want %v %v", threshold, c.name, s3, s4, w3, w4)
			}
			if c.empty != (len(fm.Rows[g].Index) == 0) {
				t.Errorf("%s: row %v", c.name, fm.Rows[g])
			}
		}
		// Threshold 0 samples every graph with ≥ 4 nodes.
		want := 0
		if threshold == 0 {
			want = 10
		}
		if fm.Sampled != want {
			t.Errorf("threshold %d: Sampled = %d, want %d", threshold, fm.Sampled, want)
		}
	}
	// On a graph with a single isomorphism type per size, sampling is exact.
	fm, err := GraphletFeatures([]datasets.Graph{mkGraph(6, clique(6), nil)}, 0, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkRow(t, "K6 sampled", fm.Rows[0], []int32{3, 14}, []float64{1, 1})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// referenceGraphlets enumerates every 3- and 4-subset and classifies it by
// its number of edges and degree sequence, independently of the bit masks.
func referenceGraphlets(gr datasets.Graph) (c3 [4]int, c4 map[string]int) {
	n := gr.NumNodes
	adj := make([][]bool, n)
	for u := range adj {
		adj[u] = make([]bool, n)
	}
	for e, s := range gr.Src {
		adj[s][gr.Dst[e]] = true
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				c3[b2i(adj[i][j])+b2i(adj[i][k])+b2i(adj[j][k])]++
			}
		}
	}
	byDegrees := map[[4]int]string{
		{0, 0, 0, 0}: "4K1", {0, 0, 1, 1}: "K2+2K1", {1, 1, 1, 1}: "2K2",
		{0, 1, 1, 2}: "P3+K1", {0, 2, 2, 2}: "K3+K1", {1, 1, 1, 3}: "K1,3",
		{1, 1, 2, 2}: "P4", {2, 2, 2, 2}: "C4", {1, 2, 2, 3}: "paw",
		{2, 2, 3, 3}: "diamond", {3, 3, 3, 3}: "K4",
	}
	c4 = map[string]int{}
	for i := range n {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				for l := k + 1; l < n; l++ {
					vs := []int{i, j, k, l}
					deg := make([]int, 4)
					edges := 0
					for a := range 4 {
						for b := a + 1; b < 4; b++ {
							if adj[vs[a]][vs[b]] {
								deg[a]++
								deg[b]++
								edges++
							}
						}
					}
					slices.Sort(deg)
					c4[byDegrees[[4]int(deg)]]++
				}
			}
		}
	}
	return c3, c4
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGraphletExactMatchesReference checks exact counting against brute
// force on random graphs of many densities, including graphs wider than a
// 64-bit word.
func TestGraphletExactMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0))
	var graphs []datasets.Graph
	for _, n := range []int{5, 7, 9, 12, 20, 33, 63, 64, 65, 90} {
		for _, p := range []float64{0.05, 0.3, 0.7} {
			var edges [][2]int
			for u := range n {
				for v := u + 1; v < n; v++ {
					if r.Float64() < p {
						edges = append(edges, [2]int{u, v})
					}
				}
			}
			graphs = append(graphs, mkGraph(n, edges, nil))
		}
	}
	fm, err := GraphletFeatures(graphs, exactAll, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for g, gr := range graphs {
		c3, c4 := referenceGraphlets(gr)
		want := map[string]float64{}
		for t, c := range c3 {
			if c > 0 {
				want[GraphletNames[t]] = float64(c)
			}
		}
		for name, c := range c4 {
			want[name] = float64(c)
		}
		if got := graphletCounts(fm, g, gr.NumNodes); !reflect.DeepEqual(got, want) {
			t.Errorf("graph %d (%d nodes, %d edges): got %v, want %v", g, gr.NumNodes, gr.NumEdges(), got, want)
		}
	}
}

// l1 returns the L1 distances between the size-3 parts and between the
// size-4 parts of two graphlet rows.
func l1(a, b SparseVector) (d3, d4 float64) {
	var da, db [numGraphlets]float64
	for k, j := range a.Index {
		da[j] = a.Value[k]
	}
	for k, j := range b.Index {
		db[j] = b.Value[k]
	}
	for t := range numGraphlets {
		if t < numGraphlets3 {
			d3 += math.Abs(da[t] - db[t])
		} else {
			d4 += math.Abs(da[t] - db[t])
		}
	}
	return d3, d4
}

func TestGraphletSampleBound(t *testing.T) {
	if m := GraphletSampleBound(15, 0.05, 0.05); m != 10715 {
		t.Errorf("bound(15, 0.05, 0.05) = %d, want 10715", m)
	}
	if DefaultGraphletSamples != 10715 {
		t.Errorf("DefaultGraphletSamples = %d, want 10715", DefaultGraphletSamples)
	}
	if m := GraphletSampleBound(11, 0.05, 0.05); m != 8497 {
		t.Errorf("bound(11, 0.05, 0.05) = %d, want 8497", m)
	}
	// The default threshold is between C(100,4) and C(101,4): graphs of up
	// to 100 nodes are counted exactly.
	if c100, c101 := choose(100, 4), choose(101, 4); c100 != 3921225 || c101 != 4082925 ||
		c100 > DefaultGraphletExactThreshold || c101 <= DefaultGraphletExactThreshold {
		t.Errorf("C(100,4) = %v, C(101,4) = %v, threshold %d", c100, c101, DefaultGraphletExactThreshold)
	}
}

// TestGraphletSamplingWithinBound: on real graphs of ≥ 30 nodes, the
// default number of samples estimates each size's distribution within
// ε = 0.05 in L1 of the exact one (the bound holds with probability 0.95
// per graph; the streams are fixed, so this test is deterministic). The
// sampled map does not depend on the number of goroutines, and
// sampling_seed changes it.
func TestGraphletSamplingWithinBound(t *testing.T) {
	var graphs []datasets.Graph
	for _, name := range []string{"COLORS-3", "COIL-DEL"} {
		ds := datasetstest.Load(t, name)
		picked := 0
		for _, g := range ds.Graphs {
			if g.NumNodes >= 30 && picked < 10 {
				graphs = append(graphs, g)
				picked++
			}
		}
	}
	exact, err := GraphletFeatures(graphs, exactAll, DefaultGraphletSamples, 0)
	if err != nil {
		t.Fatal(err)
	}
	var maps []*FeatureMap
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		fm, err := GraphletFeatures(graphs, 0, DefaultGraphletSamples, 0)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, fm)
	}
	if !reflect.DeepEqual(maps[0], maps[1]) {
		t.Error("1 and 3 goroutines give different sampled maps")
	}
	sampled := maps[0]
	if exact.Sampled != 0 || sampled.Sampled != len(graphs) {
		t.Fatalf("Sampled = %d and %d, want 0 and %d", exact.Sampled, sampled.Sampled, len(graphs))
	}
	var worst float64
	for g := range graphs {
		d3, d4 := l1(exact.Rows[g], sampled.Rows[g])
		worst = max(worst, d3, d4)
		if d3 >= 0.05 || d4 >= 0.05 {
			t.Errorf("graph %d (%d nodes): L1 error size 3 %.4f, size 4 %.4f, want < 0.05", g, graphs[g].NumNodes, d3, d4)
		}
	}
	t.Logf("%d graphs of ≥ 30 nodes: largest L1 error %.4f (ε = 0.05)", len(graphs), worst)

	other, err := GraphletFeatures(graphs, 0, DefaultGraphletSamples, 1)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(other.Rows, sampled.Rows) {
		t.Error("sampling_seed 1 gives the same map as 0")
	}
}

// TestGraphletAdjacencyLists: the adjacency lists used to sample graphs too
// large for a bit matrix agree with the bit matrix.
func TestGraphletAdjacencyLists(t *testing.T) {
	for _, gr := range randomGraphs(21, 30, false) {
		var w graphletWorker
		w.buildMatrix(&gr)
		w.buildLists(&gr)
		for u := range int32(gr.NumNodes) {
			for v := range int32(gr.NumNodes) {
				if w.has(u, v) != w.hasList(u, v) {
					t.Fatalf("%d~%d: matrix %d, lists %d", u, v, w.has(u, v), w.hasList(u, v))
				}
			}
		}
	}
}

func TestGraphletErrors(t *testing.T) {
	graphs := []datasets.Graph{mkGraph(4, cycle(4), nil)}
	if _, err := GraphletFeatures(graphs, -1, 10, 0); err == nil {
		t.Error("negative threshold: no error")
	}
	if _, err := GraphletFeatures(graphs, 10, 0, 0); err == nil {
		t.Error("0 samples: no error")
	}
	bad := mkGraph(2, path(2), nil)
	bad.Dst[1] = 5
	if _, err := GraphletFeatures([]datasets.Graph{bad}, 10, 10, 0); err == nil {
		t.Error("edge out of range: no error")
	}
	// Node labels are ignored, also a mix of labelled and unlabelled graphs.
	mixed := []datasets.Graph{mkGraph(3, path(3), []int32{0, 1, 2}), mkGraph(3, path(3), nil)}
	fm, err := GraphletFeatures(mixed, 10, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fm.Rows[0], fm.Rows[1]) {
		t.Errorf("labels changed the graphlet rows: %v vs %v", fm.Rows[0], fm.Rows[1])
	}
	for _, p := range []suite.Params{
		{"exact_threshold": -5},
		{"samples": 0},
		{"norm": "max"},
		{"C": -1.0},
	} {
		task, _ := toyTask(Graphlet{}.Defaults())
		for k, v := range p {
			task.Params[k] = v
		}
		if _, err := (Graphlet{}).Fit(context.Background(), task); err == nil {
			t.Errorf("params %v: no error", p.Summary())
		}
	}
}

// TestFitToyKernels: sp and graphlet separate paths, stars and cycles.
func TestFitToyKernels(t *testing.T) {
	for _, m := range []suite.Method{SP{}, Graphlet{}} {
		task, truth := toyTask(m.Defaults())
		pred, err := m.Fit(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		correct, known := 0, 0
		for k, g := range task.Eval {
			if truth[g] < 3 {
				known++
				if pred.Class[k] == truth[g] {
					correct++
				}
			}
		}
		t.Logf("%s: toy accuracy %d/%d", m.Name(), correct, known)
		if correct < known*2/3 {
			t.Errorf("%s: toy accuracy %d/%d", m.Name(), correct, known)
		}
		again, err := m.Fit(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pred, again) {
			t.Errorf("%s: Fit is not deterministic given the seed", m.Name())
		}
	}
}

// TestGraphletSampleFastPath: sampling gives exactly the draws of the plain
// sequential drawer (drawFour from a fresh PCG output per sample for n ≤
// 2¹⁶), also where repeats (n = 5) or Lemire rejections (n = 40,000:
// 2¹⁶ mod n = 25,536, a 39% rejection rate) are frequent, and for n > 2¹⁶.
// Every drawn 4-tuple is distinct and in range.
func TestGraphletSampleFastPath(t *testing.T) {
	for _, n := range []int{5, 9, 40000, 70000} {
		r := rand.New(rand.NewPCG(uint64(n), 9))
		seen := map[[2]int]bool{}
		var edges [][2]int
		for len(edges) < min(2*n, n*(n-1)/4) {
			u, v := r.IntN(n), r.IntN(n)
			if u != v && !seen[[2]int{min(u, v), max(u, v)}] {
				seen[[2]int{min(u, v), max(u, v)}] = true
				edges = append(edges, [2]int{u, v})
			}
		}
		gr := mkGraph(n, edges, nil)
		const m = 4000
		w := &graphletWorker{pcg: rand.NewPCG(3, 4)}
		got := w.sample(&gr, m)

		ref := &graphletWorker{}
		ref.buildLists(&gr)
		d := uniformDrawer{pcg: rand.NewPCG(3, 4)}
		var count4 [64]int
		for range m {
			if n <= 1<<16 {
				d.left = 0
			}
			v := d.drawFour(uint32(n))
			for i, x := range v {
				if x < 0 || int(x) >= n || slices.Contains(v[:i], x) {
					t.Fatalf("n=%d: bad draw %v", n, v)
				}
			}
			count4[ref.hasList(v[0], v[1])|ref.hasList(v[0], v[2])<<1|ref.hasList(v[1], v[2])<<2|
				ref.hasList(v[0], v[3])<<3|ref.hasList(v[1], v[3])<<4|ref.hasList(v[2], v[3])<<5]++
		}
		if want := freqFromMasks(&count4, m); got != want {
			t.Errorf("n=%d: sample %v, sequential draws %v", n, got, want)
		}
	}
}
