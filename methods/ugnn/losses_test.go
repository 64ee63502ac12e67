package ugnn

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
)

// runSinkhorn evaluates Sinkhorn on scores [B][E] with weight [B].
func runSinkhorn(t *testing.T, scores [][]float64, weight []float64, eps float64, iters int) [][]float64 {
	t.Helper()
	out := MustExecOnce(testBackend(t), func(s, w *Node) *Node {
		return Sinkhorn(s, w, eps, iters)
	}, tensor2D(scores), tensor1D(weight))
	return rows2D(out)
}

func randomScores(rng *rand.Rand, b, e int, scale float64) [][]float64 {
	s := make([][]float64, b)
	for i := range s {
		s[i] = make([]float64, e)
		for j := range s[i] {
			s[i][j] = (2*rng.Float64() - 1) * scale
		}
	}
	return s
}

func realWeights(b, real int) []float64 {
	w := make([]float64, b)
	for i := 0; i < real; i++ {
		w[i] = 1
	}
	return w
}

// columnDeviation is max_e |Σ_b q[b][e] − Breal/E| over prototypes.
func columnDeviation(q [][]float64, real int) float64 {
	e := len(q[0])
	target := float64(real) / float64(e)
	var worst float64
	for j := 0; j < e; j++ {
		var s float64
		for i := range q {
			s += q[i][j]
		}
		worst = max(worst, math.Abs(s-target))
	}
	return worst
}

// TestSinkhornRowsAndPadding: every real row of Q sums to 1, padding rows
// (weight 0) are exactly zero, entries are finite and non-negative, also
// when the padding rows hold the largest scores.
func TestSinkhornRowsAndPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name       string
		b, real, e int
		scale, eps float64
		iters      int
	}{
		{"8x4 eps0.05 3it", 8, 8, 4, 2, 0.05, 3},
		{"10x4 2pad eps0.05 3it", 10, 8, 4, 2, 0.05, 3},
		{"16x13 5pad eps0.5 1it", 16, 11, 13, 1, 0.5, 1},
		{"1 real of 8", 8, 1, 4, 2, 0.05, 3},
		{"64x13 eps0.05 10it", 64, 50, 13, 2, 0.05, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := randomScores(rng, c.b, c.e, c.scale)
			for i := c.real; i < c.b; i++ { // padding rows: the highest scores
				for j := range s[i] {
					s[i][j] = c.scale
				}
			}
			q := runSinkhorn(t, s, realWeights(c.b, c.real), c.eps, c.iters)
			for i, row := range q {
				var sum float64
				for _, v := range row {
					if !finite(v) || v < 0 {
						t.Fatalf("Q[%d] = %v: entry not finite or negative", i, row)
					}
					sum += v
				}
				if i < c.real && !near(sum, 1, 1e-5) {
					t.Errorf("real row %d sums to %.7f, want 1", i, sum)
				}
				if i >= c.real && sum != 0 {
					t.Errorf("padding row %d = %v, want all zero", i, row)
				}
			}
		})
	}
}

// TestSinkhornConverges: after 200 iterations every prototype column holds
// B_real/E of the mass; padding rows do not count in B.
func TestSinkhornConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := randomScores(rng, 10, 4, 1)
	q := runSinkhorn(t, s, realWeights(10, 8), 0.5, 200)
	if d := columnDeviation(q, 8); d > 1e-3 {
		t.Errorf("max |column mass − 8/4| = %.5f after 200 iterations, want ≤ 1e-3 (Q = %v)", d, q)
	}
}

// sinkhornRef is SwAV's Sinkhorn-Knopp (Caron et al. 2020, Alg. 1) in
// float64, written independently of the graph code: Q = exp((s − max)/ε)
// over real rows, then iters × (prototype columns to sum 1, graph rows to
// sum 1) — the overall scales (1/E, 1/B and the final ×B) cancel. Padding
// rows are zero.
func sinkhornRef(s [][]float64, w []float64, eps float64, iters int) [][]float64 {
	m := math.Inf(-1)
	for i, r := range s {
		for _, v := range r {
			if w[i] > 0 {
				m = max(m, v)
			}
		}
	}
	e := len(s[0])
	q := make([][]float64, len(s))
	for i := range q {
		q[i] = make([]float64, e)
		for j := range q[i] {
			if w[i] > 0 {
				q[i][j] = math.Exp((s[i][j] - m) / eps)
			}
		}
	}
	for it := 0; it < iters; it++ {
		for j := 0; j < e; j++ {
			var c float64
			for i := range q {
				c += q[i][j]
			}
			for i := range q {
				q[i][j] /= c
			}
		}
		for i := range q {
			var r float64
			for _, v := range q[i] {
				r += v
			}
			for j := range q[i] {
				if r > 0 {
					q[i][j] /= r
				}
			}
		}
	}
	return q
}

// TestSinkhornMatchesReference: 1, 3 and 10 iterations on random scores
// with padding rows agree with the float64 reference.
func TestSinkhornMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		b, real, e int
		eps        float64
		iters      int
	}{{8, 8, 4, 0.05, 3}, {10, 7, 4, 0.05, 1}, {16, 12, 13, 0.1, 3}, {8, 5, 3, 0.5, 10}} {
		s := randomScores(rng, c.b, c.e, 1)
		w := realWeights(c.b, c.real)
		got, want := runSinkhorn(t, s, w, c.eps, c.iters), sinkhornRef(s, w, c.eps, c.iters)
		for i := range got {
			for j := range got[i] {
				if !near(got[i][j], want[i][j], 2e-5) {
					t.Fatalf("%+v: Q[%d][%d] = %.6f, reference %.6f", c, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
}

// TestSinkhornBalancesMoreThanSoftmax: scores where every graph leans to
// prototype 0 (the collapse Sinkhorn guards against): with the paper's
// ε = 0.05 and 3 iterations the column masses are closer to B/E than those
// of the plain row softmax(scores/ε). (On unbiased random 8×4 scores this
// does not hold for every draw, in the reference algorithm too: the last
// step is a row normalisation.) Q is also invariant to adding a constant to
// a prototype's column (the first step normalises columns).
func TestSinkhornBalancesMoreThanSoftmax(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		s := randomScores(rng, 8, 4, 1)
		biased := make([][]float64, len(s))
		for i, row := range s {
			biased[i] = append([]float64(nil), row...)
			biased[i][0] += 0.5
		}
		soft := make([][]float64, len(biased))
		for i, row := range biased {
			m := math.Inf(-1)
			for _, v := range row {
				m = max(m, v)
			}
			var z float64
			soft[i] = make([]float64, len(row))
			for j, v := range row {
				soft[i][j] = math.Exp((v - m) / 0.05)
				z += soft[i][j]
			}
			for j := range row {
				soft[i][j] /= z
			}
		}
		q := runSinkhorn(t, biased, realWeights(8, 8), 0.05, 3)
		before, after := columnDeviation(soft, 8), columnDeviation(q, 8)
		if !(after < before) {
			t.Errorf("seed %d: column deviation %.4f after 3 Sinkhorn iterations, %.4f for softmax: not more balanced", seed, after, before)
		}
		q0 := runSinkhorn(t, s, realWeights(8, 8), 0.05, 3)
		for i := range q {
			for j := range q[i] {
				if !near(q[i][j], q0[i][j], 1e-4) {
					t.Fatalf("seed %d: a column offset changed Q[%d][%d]: %.6f vs %.6f", seed, i, j, q[i][j], q0[i][j])
				}
			}
		}
	}
}

// TestSinkhornHand2x2 checks one iteration by hand. Scores [[1, 0], [0, 0]],
// ε = 1: Q0 ∝ [[e, 1], [1, 1]]. Prototype columns normalised to 1/E = 1/2:
// [[e/(2(e+1)), 1/4], [1/(2(e+1)), 1/4]]. Rows normalised to sum 1:
// row 0 = [a, 1/4]/(a + 1/4) with a = e/(2(e+1)) ≈ [0.593845, 0.406155],
// row 1 = [b, 1/4]/(b + 1/4) with b = 1/(2(e+1)) ≈ [0.349755, 0.650245].
// A third, padding row must not change any of this.
func TestSinkhornHand2x2(t *testing.T) {
	e := math.E
	a, b := e/(2*(e+1)), 1/(2*(e+1))
	want := [][]float64{{a / (a + 0.25), 0.25 / (a + 0.25)}, {b / (b + 0.25), 0.25 / (b + 0.25)}, {0, 0}}
	lit := [][]float64{{0.593845, 0.406155}, {0.349755, 0.650245}}
	for i := range lit {
		for j := range lit[i] {
			if !near(want[i][j], lit[i][j], 1e-6) {
				t.Fatalf("test arithmetic: %v vs %v", want, lit)
			}
		}
	}
	for _, c := range []struct {
		name   string
		scores [][]float64
		weight []float64
	}{
		{"2x2", [][]float64{{1, 0}, {0, 0}}, []float64{1, 1}},
		{"2x2 + padding row", [][]float64{{1, 0}, {0, 0}, {7, -3}}, []float64{1, 1, 0}},
		{"shifted by 5", [][]float64{{6, 5}, {5, 5}}, []float64{1, 1}},
	} {
		q := runSinkhorn(t, c.scores, c.weight, 1, 1)
		for i := range q {
			for j := range q[i] {
				if !near(q[i][j], want[i][j], 1e-5) {
					t.Errorf("%s: Q = %v, want %v", c.name, q, want[:len(q)])
				}
			}
		}
	}
}

// TestSinkhornNoNaNAtSmallEps: scores 2·cos ∈ [−2, 2] with ε = 0.05 reach
// exp(±80); the max subtraction must keep Q finite, also for a batch holding
// a row saturated at +2 and one at −2 everywhere.
func TestSinkhornNoNaNAtSmallEps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := randomScores(rng, 64, 13, 2)
	for j := range s[0] {
		s[0][j], s[1][j] = 2, -2
	}
	q := runSinkhorn(t, s, realWeights(64, 60), 0.05, 3)
	for i, row := range q {
		var sum float64
		for _, v := range row {
			if !finite(v) {
				t.Fatalf("row %d = %v: not finite", i, row)
			}
			sum += v
		}
		if i < 60 && !near(sum, 1, 1e-4) {
			t.Errorf("row %d sums to %v", i, sum)
		}
	}
}

// TestSinkhornPaddingOverflow: padding rows must get zero mass whatever
// their scores. Scores are 2·cos ∈ [−2, 2]; with sinkhorn_eps = 0.02 (a
// value a sweep may pick) and a batch whose best real score is 0 while the
// padding graph's embedding scores +2, exp((2 − 0)/0.02) = exp(100)
// overflows float32 to +Inf before the multiplication by weight 0, and
// Inf·0 = NaN spreads through ReduceAllSum into every entry of Q.
func TestSinkhornPaddingOverflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	s := randomScores(rng, 8, 4, 1)
	for i := range s {
		for j := range s[i] {
			s[i][j] = -math.Abs(s[i][j]) // real scores in [−1, 0]
		}
	}
	for j := range s[6] {
		s[6][j], s[7][j] = 2, 2
	}
	q := runSinkhorn(t, s, realWeights(8, 6), 0.02, 3)
	for i, row := range q {
		for _, v := range row {
			if !finite(v) {
				t.Fatalf("row %d = %v: not finite", i, row)
			}
		}
	}
}

// TestSinkhornNoGradient: Q is a target; no gradient flows into scores.
func TestSinkhornNoGradient(t *testing.T) {
	s := randomScores(rand.New(rand.NewPCG(9, 9)), 4, 3, 1)
	out := MustExecOnce(testBackend(t), func(s, w *Node) *Node {
		q := Sinkhorn(s, w, 0.5, 3)
		return Gradient(ReduceAllSum(Mul(q, q)), s)[0]
	}, tensor2D(s), tensor1D([]float64{1, 1, 1, 0}))
	for _, v := range tensors.MustCopyFlatData[float32](out) {
		if v != 0 {
			t.Fatalf("gradient through Sinkhorn = %v, want zeros", tensors.MustCopyFlatData[float32](out))
		}
	}
}

// TestSoftCrossEntropyHand: L = −(1/2) Σ_{real b} Σ_c q_bc log softmax(l_b)_c
// on two real rows; the padding row (weight 0) is ignored whatever its values.
func TestSoftCrossEntropyHand(t *testing.T) {
	q := [][]float64{{0.7, 0.3}, {0.2, 0.8}, {0.5, 0.5}}
	logits := [][]float64{{1, 2}, {0, -1}, {50, -50}}
	// log softmax([1, 2]) = [1 − log(e + e²), 2 − log(e + e²)];
	// log softmax([0, −1]) = [−log(1 + e⁻¹), −1 − log(1 + e⁻¹)].
	l0 := math.Log(math.E + math.E*math.E)
	l1 := math.Log(1 + 1/math.E)
	want := -(0.7*(1-l0) + 0.3*(2-l0) + 0.2*(-l1) + 0.8*(-1-l1)) / 2
	if !near(want, 1.063262, 1e-5) { // (1.013262 + 1.113262)/2
		t.Fatalf("test arithmetic: want = %v", want)
	}
	run := func(q, logits [][]float64, w []float64) float64 {
		return scalarOf(MustExecOnce(testBackend(t), func(q, l, w *Node) *Node {
			return SoftCrossEntropy(q, l, w)
		}, tensor2D(q), tensor2D(logits), tensor1D(w)))
	}
	if got := run(q, logits, []float64{1, 1, 0}); !near(got, want, 1e-5) {
		t.Errorf("SoftCrossEntropy = %.6f, want %.6f", got, want)
	}
	logits[2] = []float64{-1e3, 1e3}
	if got := run(q, logits, []float64{1, 1, 0}); !near(got, want, 1e-5) {
		t.Errorf("with other padding logits: %.6f, want %.6f", got, want)
	}
	if got := run(q, logits, []float64{0, 0, 0}); got != 0 {
		t.Errorf("all padding: %v, want 0", got)
	}
}

// supConRef is Khosla et al. (2020) eq. (2), one view per sample, in
// float64: for every real anchor i with positives P(i) = {p ≠ i real, same
// label}: −1/|P(i)| Σ_p log(exp(z_i·z_p/τ) / Σ_{a ≠ i real} exp(z_i·z_a/τ)),
// averaged over those anchors.
func supConRef(z [][]float64, labels []int, w []float64, tau float64) float64 {
	dot := func(a, b []float64) float64 {
		var s float64
		for k := range a {
			s += a[k] * b[k]
		}
		return s
	}
	var total float64
	anchors := 0
	for i := range z {
		if w[i] == 0 {
			continue
		}
		var denom float64
		var pos []int
		for a := range z {
			if a == i || w[a] == 0 {
				continue
			}
			denom += math.Exp(dot(z[i], z[a]) / tau)
			if labels[a] == labels[i] {
				pos = append(pos, a)
			}
		}
		if len(pos) == 0 {
			continue
		}
		var l float64
		for _, p := range pos {
			l -= math.Log(math.Exp(dot(z[i], z[p])/tau) / denom)
		}
		total += l / float64(len(pos))
		anchors++
	}
	if anchors == 0 {
		return 0
	}
	return total / float64(anchors)
}

func runSupCon(t *testing.T, z [][]float64, labels []int, w []float64, tau float64) float64 {
	t.Helper()
	lab := make([]int32, len(labels))
	for i, l := range labels {
		lab[i] = int32(l)
	}
	return scalarOf(MustExecOnce(testBackend(t), func(z, l, w *Node) *Node {
		return SupConLoss(z, l, w, tau)
	}, tensor2D(z), tensors.FromFlatDataAndDimensions(lab, len(lab)), tensor1D(w)))
}

// TestSupConLossHand: z = (1, 0), (0.6, 0.8), (0, 1), labels [0, 0, 1],
// τ = 1. Anchors 0 and 1 have one positive each; anchor 2 has none and is
// left out of the average:
// L0 = −log(e^0.6 / (e^0.6 + e^0)), L1 = −log(e^0.6 / (e^0.6 + e^0.8)),
// L = (L0 + L1)/2 ≈ (0.437488 + 0.798139)/2 = 0.617813.
func TestSupConLossHand(t *testing.T) {
	z := [][]float64{{1, 0}, {0.6, 0.8}, {0, 1}}
	l0 := -math.Log(math.Exp(0.6) / (math.Exp(0.6) + 1))
	l1 := -math.Log(math.Exp(0.6) / (math.Exp(0.6) + math.Exp(0.8)))
	want := (l0 + l1) / 2
	if !near(want, 0.617813, 1e-5) || !near(supConRef(z, []int{0, 0, 1}, []float64{1, 1, 1}, 1), want, 1e-12) {
		t.Fatalf("test arithmetic: want %v, reference %v", want, supConRef(z, []int{0, 0, 1}, []float64{1, 1, 1}, 1))
	}
	cases := []struct {
		name   string
		z      [][]float64
		labels []int
		w      []float64
		tau    float64
		want   float64
	}{
		{"hand 3 vectors", z, []int{0, 0, 1}, []float64{1, 1, 1}, 1, want},
		// Padding slots (weight 0) carry a positive-looking copy of z1 with
		// label 0 and a vector equal to z0: neither may count.
		{"with padding", append(append([][]float64{}, z...), []float64{0.6, 0.8}, []float64{1, 0}), []int{0, 0, 1, 0, 1}, []float64{1, 1, 1, 0, 0}, 1, want},
		// Relabelling the positive-less anchor to another lonely class changes nothing.
		{"lonely anchor relabelled", z, []int{0, 0, 7}, []float64{1, 1, 1}, 1, want},
		{"no anchor has a positive", z, []int{0, 1, 2}, []float64{1, 1, 1}, 1, 0},
		{"τ = 0.1", z, []int{0, 0, 1}, []float64{1, 1, 1}, 0.1, supConRef(z, []int{0, 0, 1}, []float64{1, 1, 1}, 0.1)},
	}
	// Several positives per anchor: 6 random unit vectors in 3-d, labels
	// [0, 0, 0, 1, 1, 2], one padding slot.
	rng := rand.New(rand.NewPCG(11, 12))
	var zr [][]float64
	for i := 0; i < 7; i++ {
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		zr = append(zr, []float64{v[0] / n, v[1] / n, v[2] / n})
	}
	lr, wr := []int{0, 0, 0, 1, 1, 2, 0}, []float64{1, 1, 1, 1, 1, 1, 0}
	cases = append(cases, struct {
		name   string
		z      [][]float64
		labels []int
		w      []float64
		tau    float64
		want   float64
	}{"several positives, τ = 0.5", zr, lr, wr, 0.5, supConRef(zr, lr, wr, 0.5)})
	for _, c := range cases {
		if got := runSupCon(t, c.z, c.labels, c.w, c.tau); !near(got, c.want, 1e-5*max(1, math.Abs(c.want))) {
			t.Errorf("%s: SupConLoss = %.6f, want %.6f", c.name, got, c.want)
		}
	}
}
