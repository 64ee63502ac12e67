package semisup

import (
	"math"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := gnn.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tensorOf(rows [][]float64) *tensors.Tensor {
	flat := make([]float32, 0, len(rows)*len(rows[0]))
	for _, r := range rows {
		for _, v := range r {
			flat = append(flat, float32(v))
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), len(rows[0]))
}

func vecOf(v []float64) *tensors.Tensor {
	flat := make([]float32, len(v))
	for i, x := range v {
		flat[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(v))
}

func scalar(t *tensors.Tensor) float64 { return float64(tensors.MustCopyFlatData[float32](t)[0]) }

// padded appends padding rows (weight 0) that would change every loss if
// they were counted: large, aligned with the real rows.
func padded(rows [][]float64, pad ...[]float64) [][]float64 {
	return append(append([][]float64(nil), rows...), pad...)
}

// Two hand-made embedding batches, whose losses were computed by hand.
var (
	batchU = [][]float64{{1, 0}, {0, 1}, {1, 1}}
	batchV = [][]float64{{1, 0}, {1, 1}, {0, 1}}
	batchC = [][]float64{{-1, 0}, {0, -1}, {1, -1}}
	padRow = [][]float64{{3, 1}}
)

// pairLoss evaluates a two-batch loss on (u, v) with weight 1 per row, and
// again with one padding slot (weight 0) appended to both.
func pairLoss(t *testing.T, f func(u, v, w *Node) *Node, u, v [][]float64) (plain, withPad float64) {
	t.Helper()
	run := func(u, v [][]float64, w []float64) float64 {
		return scalar(MustExecOnce(testBackend(t), f, tensorOf(u), tensorOf(v), vecOf(w)))
	}
	ones := make([]float64, len(u))
	for i := range ones {
		ones[i] = 1
	}
	return run(u, v, ones), run(padded(u, padRow...), padded(v, padRow...), append(ones, 0))
}

// TestEstimatorsKnownAnswers: each estimator on the hand-made
// batches, with and without a padding slot (which must not change the
// value: padding is masked on both axes of the similarity matrix).
func TestEstimatorsKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(u, v, w *Node) *Node
		u, v [][]float64
		want float64
	}{
		{"E1 GraphCLOneWay aligned τ=0.5", func(u, v, w *Node) *Node { return GraphCLOneWay(u, v, w, 0.5) },
			[][]float64{{1, 0}, {0, 1}}, [][]float64{{1, 0}, {0, 1}}, -2},
		{"E1 GraphCLOneWay τ=0.5", func(u, v, w *Node) *Node { return GraphCLOneWay(u, v, w, 0.5) }, batchU, batchV, 0.45762791626338056},
		{"E1 GraphCLOneWay τ=0.2", func(u, v, w *Node) *Node { return GraphCLOneWay(u, v, w, 0.2) }, batchU, batchV, 0.5692994955186047},
		{"E2 OneWayInfoNCE τ=0.2", func(u, v, w *Node) *Node { return OneWayInfoNCE(u, v, w, 0.2) }, batchU, batchV, 1.2453031267294292},
		{"E4 AlignmentOnly τ=0.5", func(u, v, w *Node) *Node { return AlignmentOnly(u, v, w, 0.5) }, batchU, batchV, -1.6094757082487299},
		{"JSD GlobalGlobalJSD", GlobalGlobalJSD, [][]float64{{1, 0}, {0, 2}}, [][]float64{{1, 1}, {0, 1}}, 0.243838083962166},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, withPad := pairLoss(t, tc.f, tc.u, tc.v)
			if math.Abs(plain-tc.want) > 1e-5 {
				t.Errorf("got %.7f, want %.7f", plain, tc.want)
			}
			if math.Abs(withPad-tc.want) > 1e-5 {
				t.Errorf("with a padding slot: got %.7f, want %.7f", withPad, tc.want)
			}
		})
	}
}

// TestGraphCLOneWayIsNotSimCLR: E1 is asymmetric and differs from the
// 2B-anchor NT-Xent (1.360196290296816 at τ = 0.5) the UGNN paper names.
func TestGraphCLOneWayIsNotSimCLR(t *testing.T) {
	f := func(u, v, w *Node) *Node { return GraphCLOneWay(u, v, w, 0.5) }
	uv, _ := pairLoss(t, f, batchU, batchV)
	if math.Abs(uv-1.360196290296816) < 1e-3 {
		t.Errorf("E1 = %v equals SimCLR's NT-Xent", uv)
	}
	u := [][]float64{{1, 0}, {0, 1}, {1, 1}}
	v := [][]float64{{1, 0.5}, {-1, 1}, {0, 1}}
	uv, _ = pairLoss(t, f, u, v)
	vu, _ := pairLoss(t, f, v, u)
	if math.Abs(uv-vu) < 1e-4 {
		t.Errorf("E1(u,v) = E1(v,u) = %v: not one-way", uv)
	}
}

// TestE2IsSoftplusOfE1: per row, E2_i = softplus(E1_i); on a one-row-
// distinct batch the means follow. Checked on a 2-graph batch where both
// rows have the same E1 by symmetry.
func TestE2IsSoftplusOfE1(t *testing.T) {
	u := [][]float64{{1, 0}, {0, 1}}
	v := [][]float64{{1, 0.2}, {0.2, 1}}
	e1, _ := pairLoss(t, func(u, v, w *Node) *Node { return GraphCLOneWay(u, v, w, 0.3) }, u, v)
	e2, _ := pairLoss(t, func(u, v, w *Node) *Node { return OneWayInfoNCE(u, v, w, 0.3) }, u, v)
	if want := math.Log1p(math.Exp(e1)); math.Abs(e2-want) > 1e-5 {
		t.Errorf("E2 = %v, softplus(E1) = %v", e2, want)
	}
}

// TestLocalGlobalJSD: L_lg by hand: nodes [1,0],[0,1] of
// graph 0 and [1,1] of graph 1, graph vectors [1,0],[0,1] → 0.16015267594;
// a padding slot (weight 0) with non-zero node and graph vectors leaves it
// unchanged, and all-zero scores give 0.
func TestLocalGlobalJSD(t *testing.T) {
	run := func(local [][][]float64, mask, global [][]float64, w []float64) float64 {
		b, n, d := len(local), len(local[0]), len(local[0][0])
		flat := make([]float32, 0, b*n*d)
		for _, g := range local {
			for _, r := range g {
				for _, v := range r {
					flat = append(flat, float32(v))
				}
			}
		}
		return scalar(MustExecOnce(testBackend(t), LocalGlobalJSD,
			tensors.FromFlatDataAndDimensions(flat, b, n, d), tensorOf(mask), tensorOf(global), vecOf(w)))
	}
	local := [][][]float64{{{1, 0}, {0, 1}}, {{1, 1}, {7, 7}}} // graph 1's second node is padding
	mask := [][]float64{{1, 1}, {1, 0}}
	global := [][]float64{{1, 0}, {0, 1}}
	const want = 0.1601526759443701
	if got := run(local, mask, global, []float64{1, 1}); math.Abs(got-want) > 1e-6 {
		t.Errorf("L_lg = %.9f, want %.9f", got, want)
	}
	got := run(append(local, [][]float64{{2, 3}, {0, 0}}), append(mask, []float64{1, 0}), append(global, []float64{5, -4}), []float64{1, 1, 0})
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("with a padding slot L_lg = %.9f, want %.9f", got, want)
	}
	zero := [][][]float64{{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}}
	if got := run(zero, mask, global, []float64{1, 1}); math.Abs(got) > 1e-7 {
		t.Errorf("all-zero scores: L_lg = %v, want 0", got)
	}
}

// TestLocalGlobalJSDChunks: the same batch as TestLocalGlobalJSD split
// into two chunks of different node counts — graph 0 (2 nodes) and graph 1
// (1 node) plus a padding slot — gives the same 0.16015267594.
func TestLocalGlobalJSDChunks(t *testing.T) {
	out := MustExecOnce(testBackend(t), func(l0, m0, l1, m1, global, w *Node) *Node {
		return LocalGlobalJSDChunks([]*Node{l0, l1}, []*Node{m0, m1}, global, w)
	},
		tensors.FromFlatDataAndDimensions([]float32{1, 0, 0, 1}, 1, 2, 2), tensorOf([][]float64{{1, 1}}),
		tensors.FromFlatDataAndDimensions([]float32{1, 1, 9, 9}, 2, 1, 2), tensorOf([][]float64{{1}, {1}}),
		tensorOf([][]float64{{1, 0}, {0, 1}, {5, -4}}), vecOf([]float64{1, 1, 0}))
	if got, want := scalar(out), 0.1601526759443701; math.Abs(got-want) > 1e-6 {
		t.Errorf("chunked L_lg = %.9f, want %.9f", got, want)
	}
}

// TestJSDSeparation: perfectly separated scores approach −2·log 2.
func TestJSDSeparation(t *testing.T) {
	got := scalar(MustExecOnce(testBackend(t), GlobalGlobalJSD,
		tensorOf([][]float64{{30, 0}, {0, 30}}), tensorOf([][]float64{{1, -1}, {-1, 1}}), vecOf([]float64{1, 1})))
	if want := -2 * math.Ln2; math.Abs(got-want) > 1e-5 {
		t.Errorf("separated JSD = %v, want %v", got, want)
	}
}

// TestRGCLLosses: the TU and chem loss values, by hand, on (x, a, c) =
// the hand-made batches, with and without a padding slot.
func TestRGCLLosses(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(x, a, c, w *Node) *Node
		want float64
	}{
		{"tu τ=0.2 w=0.1", func(x, a, c, w *Node) *Node { return RGCLTULoss(x, a, c, w, 0.2, 0.1) }, 0.9145305466419469},
		{"chem τ=0.1 λ=0.1", func(x, a, c, w *Node) *Node { return RGCLChemLoss(x, a, c, w, 0.1, 0.1) }, 0.9957608945984691},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scalar(MustExecOnce(testBackend(t), tc.f, tensorOf(batchU), tensorOf(batchV), tensorOf(batchC), vecOf([]float64{1, 1, 1})))
			if math.Abs(got-tc.want) > 1e-5 {
				t.Errorf("got %.8f, want %.8f", got, tc.want)
			}
			got = scalar(MustExecOnce(testBackend(t), tc.f, tensorOf(padded(batchU, padRow...)), tensorOf(padded(batchV, padRow...)),
				tensorOf(padded(batchC, padRow...)), vecOf([]float64{1, 1, 1, 0})))
			if math.Abs(got-tc.want) > 1e-5 {
				t.Errorf("with a padding slot: got %.8f, want %.8f", got, tc.want)
			}
		})
	}
}
