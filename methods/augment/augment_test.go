package augment

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/gnn"
)

// TestFloorCounts: the official codes' counts on small graphs (GraphCL's
// and RGCL's aug.py):
// dropN(0.2) drops 0 nodes for n = 4, 1 for 5 and 9, 2 for 10, 3 for 15;
// RGCL keeps 9→9, 10→10, 11→10, 20→19, 21→19, 30→28, 31→28 at ρ = 0.9,
// and its chem/MNIST drop ratio 0.2 keeps 5→4, 10→8 — whereas ρ = 0.8 as a
// keep ratio, 1 − 0.8 = 0.19999999999999996 in float64, keeps 5→5, 10→9.
func TestFloorCounts(t *testing.T) {
	for _, tc := range []struct{ n, drop int }{{4, 0}, {5, 1}, {9, 1}, {10, 2}, {15, 3}} {
		if got := FloorCount(tc.n, 0.2); got != tc.drop {
			t.Errorf("FloorCount(%d, 0.2) = %d, want %d", tc.n, got, tc.drop)
		}
		g, f := randomGraph(rand.New(rand.NewPCG(1, uint64(tc.n))), tc.n, 2*tc.n)
		if v, _ := DropN(&g, f, 3, 0.2, Stream(0, "t", tc.n, 0, 0)); v.NumNodes != tc.n-tc.drop {
			t.Errorf("DropN on n = %d kept %d nodes, want %d", tc.n, v.NumNodes, tc.n-tc.drop)
		}
	}
	for _, tc := range []struct {
		n    int
		rho  float64
		keep int
	}{{9, 0.9, 9}, {10, 0.9, 10}, {11, 0.9, 10}, {20, 0.9, 19}, {21, 0.9, 19}, {30, 0.9, 28}, {31, 0.9, 28}, {5, 0.8, 5}, {10, 0.8, 9}} {
		if got := KeepRatioCount(tc.n, tc.rho, 0); got != tc.keep {
			t.Errorf("KeepRatioCount(%d, %g) = %d, want %d", tc.n, tc.rho, got, tc.keep)
		}
	}
	for _, tc := range []struct{ n, minDrop, keep int }{{4, 0, 4}, {5, 0, 4}, {10, 0, 8}, {11, 0, 9}, {20, 0, 16}, {4, 1, 3}, {1, 1, 1}} {
		if got := DropRatioCount(tc.n, 0.2, tc.minDrop); got != tc.keep {
			t.Errorf("DropRatioCount(%d, 0.2, min_drop %d) = %d, want %d", tc.n, tc.minDrop, got, tc.keep)
		}
	}
	if got := KeepRatioCount(9, 0.9, 1); got != 8 {
		t.Errorf("KeepRatioCount(9, 0.9, min_drop 1) = %d, want 8", got)
	}
	if got := KeepRatioCount(1, 0.9, 1); got != 1 {
		t.Errorf("KeepRatioCount(1, 0.9, min_drop 1) = %d, want 1 (never empty)", got)
	}
}

// TestDropNKeepsUGNNCount: GraphCL's n − ⌊0.2n⌋ equals UGNN's ⌈0.8n⌉ keep
// count (with its tolerance) on 1..1000 and on every node count of
// Letter-high (embedded) and COIL-DEL (skipped where absent).
func TestDropNKeepsUGNNCount(t *testing.T) {
	check := func(t *testing.T, counts map[int]bool) {
		for n := range counts {
			if a, b := n-FloorCount(n, 0.2), max(1, gnn.KeepCount(0.8, n)); a != b {
				t.Errorf("n = %d: dropN keeps %d, UGNN keeps %d", n, a, b)
			}
		}
	}
	counts := map[int]bool{}
	for n := 1; n <= 1000; n++ {
		counts[n] = true
	}
	check(t, counts)
	for _, name := range []string{"Letter-high", "COIL-DEL"} {
		t.Run(name, func(t *testing.T) {
			counts := map[int]bool{}
			for _, g := range datasetstest.Load(t, name).Graphs {
				counts[g.NumNodes] = true
			}
			check(t, counts)
		})
	}
}

// TestSubgraph: at most ⌊0.2n⌋+1 nodes, all in {seed} ∪ N(seed), each with
// a self-loop; n = 4 gives the seed alone with its self-loop.
func TestSubgraph(t *testing.T) {
	for _, n := range []int{4, 10, 23} {
		g, f := randomGraph(rand.New(rand.NewPCG(3, uint64(n))), n, 3*n)
		for rep := range 50 {
			v, vf := Subgraph(&g, f, 3, 0.2, Stream(int64(rep), "sub", n, 0, 0))
			if v.NumNodes > FloorCount(n, 0.2)+1 || v.NumNodes < 1 {
				t.Fatalf("n = %d: kept %d nodes, want 1..%d", n, v.NumNodes, FloorCount(n, 0.2)+1)
			}
			if n == 4 && v.NumNodes != 1 {
				t.Fatalf("n = 4: kept %d nodes, want the seed alone", v.NumNodes)
			}
			ids := originalIDs(t, vf, v.NumNodes)
			// Some kept node is the seed, and every other is its neighbour.
			adj := map[[2]int]bool{}
			for e := range g.Src {
				adj[[2]int{int(g.Src[e]), int(g.Dst[e])}] = true
			}
			okSeed := false
			for _, s := range ids {
				all := true
				for _, u := range ids {
					all = all && (u == s || adj[[2]int{s, u}])
				}
				okSeed = okSeed || all
			}
			if !okSeed {
				t.Fatalf("n = %d: kept %v is not a seed with its neighbours", n, ids)
			}
			loops := 0
			for e := range v.Src {
				if v.Src[e] == v.Dst[e] {
					loops++
				}
			}
			if loops != v.NumNodes {
				t.Fatalf("n = %d: %d self-loops on %d nodes", n, loops, v.NumNodes)
			}
		}
	}
}

// TestPermE: the entry count stays E, ⌊0.2E⌋ entries are new draws, the
// nodes and features are unchanged.
func TestPermE(t *testing.T) {
	g, f := randomGraph(rand.New(rand.NewPCG(4, 4)), 12, 20) // E = 40 directed entries
	v, vf := PermE(&g, f, 0.2, Stream(1, "perm", 0, 0, 0))
	if len(v.Src) != len(g.Src) || v.NumNodes != g.NumNodes || &vf[0] != &f[0] {
		t.Fatalf("PermE: %d entries on %d nodes, want %d on %d with shared features", len(v.Src), v.NumNodes, len(g.Src), g.NumNodes)
	}
	orig := map[[2]int32]int{}
	for e := range g.Src {
		orig[[2]int32{g.Src[e], g.Dst[e]}]++
	}
	kept := 0
	for e := range v.Src[:len(v.Src)-8] {
		if orig[[2]int32{v.Src[e], v.Dst[e]}] > 0 {
			kept++
		}
	}
	if kept != 32 {
		t.Errorf("%d of the first 32 entries are original, want 32 (E − ⌊0.2E⌋)", kept)
	}
}

// TestMaskN: on features [[0,0],[2,4],[4,2],[2,2],[2,2]] (n = 5) exactly
// one row is masked and becomes the mean row [2,2]; n = 4 is unchanged.
func TestMaskN(t *testing.T) {
	f := []float32{0, 0, 2, 4, 4, 2, 2, 2, 2, 2}
	g := datasets.Graph{NumNodes: 5}
	for rep := range 20 {
		_, out := MaskN(&g, f, 2, 0.2, Stream(int64(rep), "mask", 0, 0, 0))
		changed := 0
		for v := range 5 {
			if out[2*v] != f[2*v] || out[2*v+1] != f[2*v+1] {
				changed++
				if out[2*v] != 2 || out[2*v+1] != 2 {
					t.Fatalf("masked row %d = %v, want [2 2]", v, out[2*v:2*v+2])
				}
			}
		}
		if changed > 1 {
			t.Fatalf("%d rows changed, want at most 1 (row 3 and 4 are already the mean)", changed)
		}
	}
	g4 := datasets.Graph{NumNodes: 4}
	if _, out := MaskN(&g4, f[:8], 2, 0.2, Stream(0, "mask", 0, 0, 0)); !slices.Equal(out, f[:8]) {
		t.Errorf("n = 4 masked %v", out)
	}
}

// TestRandom2: each view picks dropN about half the time, independently of
// the other view (on a 10-node graph dropN keeps 8 nodes, subgraph ≤ 3).
func TestRandom2(t *testing.T) {
	g, f := randomGraph(rand.New(rand.NewPCG(5, 5)), 10, 25)
	const draws = 4000
	var drop [2]int
	both := 0
	for d := range draws {
		var isDrop [2]bool
		for view := range 2 {
			v, _ := AugRandom2.Apply(&g, f, 3, 0.2, Stream(9, "graphcl", 1, d, view))
			isDrop[view] = v.NumNodes == 8
			if isDrop[view] {
				drop[view]++
			}
		}
		if isDrop[0] && isDrop[1] {
			both++
		}
	}
	se := math.Sqrt(0.25 / draws)
	for view, k := range drop {
		if p := float64(k) / draws; math.Abs(p-0.5) > 4*se {
			t.Errorf("view %d picked dropN in %.3f of draws, want 0.5 ± %.3f", view, p, 4*se)
		}
	}
	if p := float64(both) / draws; math.Abs(p-0.25) > 4*math.Sqrt(0.25*0.75/draws) {
		t.Errorf("both views dropN in %.3f of draws, want 0.25 (independent)", p)
	}
}

// TestRationaleProbs: the sampling probabilities, by hand, for
// p = [0.1, 0.6, 0.3], and 10⁵ draws of a 1-node rationale view reproduce
// them within ±0.005.
func TestRationaleProbs(t *testing.T) {
	p := []float64{0.1, 0.6, 0.3}
	r, c := RationaleProbs(p, 0.001), ComplementProbs(p, 0.001)
	for i, want := range []float64{0.10069790628, 0.59920239282, 0.30009970090} {
		if math.Abs(r[i]-want) > 1e-10 {
			t.Errorf("rationale[%d] = %.11f, want %.11f", i, r[i], want)
		}
	}
	for i, want := range []float64{0.62391033624, 0.00124533001, 0.37484433375} {
		if math.Abs(c[i]-want) > 1e-10 {
			t.Errorf("complement[%d] = %.11f, want %.11f", i, c[i], want)
		}
	}
	g := datasets.Graph{NumNodes: 3, Src: []int32{0, 1, 1, 2}, Dst: []int32{1, 0, 2, 1}}
	f := []float32{0, 0, 0, 1, -1, 1.5, 2, -2, 2.5}
	var hits [3]int
	const draws = 100000
	for d := range draws {
		v, vf := SampleNodes(&g, f, 3, r, 1, Stream(3, "rationale", 0, d, 0))
		if v.NumNodes != 1 {
			t.Fatalf("kept %d nodes, want 1", v.NumNodes)
		}
		hits[int(vf[0])]++
	}
	for i, want := range r {
		if got := float64(hits[i]) / draws; math.Abs(got-want) > 0.005 {
			t.Errorf("node %d kept in %.4f of draws, want %.4f ± 0.005", i, got, want)
		}
	}
}

// TestSoftmaxRationaleProbs: RGCL's MNIST probabilities softmax(p/max p)
// for p = [0.1, 0.6, 0.3] (computed independently in Python), and they do
// not change when p is scaled.
func TestSoftmaxRationaleProbs(t *testing.T) {
	want := []float64{0.21292051436523857, 0.4899249702309133, 0.2971545154038482}
	for _, p := range [][]float64{{0.1, 0.6, 0.3}, {0.2, 1.2, 0.6}} {
		got := SoftmaxRationaleProbs(p)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("SoftmaxRationaleProbs(%v)[%d] = %.15f, want %.15f", p, i, got[i], want[i])
			}
		}
	}
}

// TestSampleWithoutReplacement: k distinct indices; with one dominant
// weight its index is almost always drawn first.
func TestSampleWithoutReplacement(t *testing.T) {
	for rep := range 100 {
		got := SampleWithoutReplacement([]float64{1, 2, 3, 4, 5}, 3, Stream(int64(rep), "swr", 0, 0, 0))
		s := slices.Clone(got)
		slices.Sort(s)
		if len(got) != 3 || len(slices.Compact(s)) != 3 {
			t.Fatalf("draw %v: want 3 distinct indices", got)
		}
	}
	if got := SampleWithoutReplacement([]float64{1, 1, 1}, 3, Stream(0, "swr", 1, 0, 0)); len(got) != 3 {
		t.Fatalf("k = n: %v", got)
	}
}
