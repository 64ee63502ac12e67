package ugnn

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
)

// logSumExp over the last axis of x [B, K] → [B], stabilised by the row max.
func logSumExp(x *Node) *Node {
	m := StopGradient(ReduceMax(x, -1))
	return Add(m, Log(ReduceSum(Exp(Sub(x, InsertAxes(m, -1))), -1)))
}

func shapeOf(like *Node, dims ...int) shapes.Shape { return shapes.Make(like.DType(), dims...) }

// Sinkhorn computes the soft prototype assignments Q of paper eqs. (9)–(11)
// as SwAV does (Caron et al. 2020, Alg. 1): Q ∝ exp(scores/ε), then iters
// rounds of normalising the prototype rows to 1/E and the graph columns to
// 1/B; finally columns are rescaled to sum to 1. The paper's exp(2HᵀZ/ε)
// is obtained by passing scores = 2·HᵀZ.
//
// scores [B, E] (graphs × prototypes), weight [B] (1 real graph, 0 padding:
// padding columns get zero mass and do not count in B) → Q [B, E], no
// gradient (targets). Each real row of Q sums to 1; after enough
// iterations each prototype receives B/E of the mass.
func Sinkhorn(scores, weight *Node, eps float64, iters int) *Node {
	return SinkhornMarginal(scores, weight, nil, eps, iters)
}

// SinkhornMarginal is Sinkhorn with the prototype marginal m [E] (summing
// to 1): each round normalises prototype e's row to m_e instead of 1/E, so
// that after enough iterations prototype e receives m_e·B of the mass
// (Sinkhorn-Knopp for optimal transport with marginals (m, 1/B), Cuturi
// 2013). A nil m is the uniform 1/E, computed exactly as Sinkhorn always
// has been.
func SinkhornMarginal(scores, weight *Node, m []float64, eps float64, iters int) *Node {
	scores = StopGradient(scores)
	w := InsertAxes(weight, -1) // [B, 1]
	numE := float64(scores.Shape().Dim(1))
	// Stabilise: subtract the max over real entries before exp.
	masked := Where(GreaterThan(BroadcastToShape(w, scores.Shape()), ZerosLike(scores)), scores, MulScalar(OnesLike(scores), -1e30))
	// Exponentiate the masked scores: a padding row scoring far above the
	// real maximum would overflow to +Inf, and Inf·0 = NaN.
	q := Exp(DivScalar(Sub(masked, ReduceAllMax(masked)), eps))
	q = Mul(q, w)
	numB := ReduceAllSum(weight)
	q = Div(q, ReduceAllSum(q))
	for it := 0; it < iters; it++ {
		// Rows of Qᵀ (prototypes): each sums to 1/E, or to m_e.
		rows := ReduceSum(q, 0) // [E]
		if m == nil {
			q = Div(q, InsertAxes(MulScalar(Max(rows, MulScalar(OnesLike(rows), 1e-30)), numE), 0))
		} else {
			marg := ConvertDType(Const(scores.Graph(), m), scores.DType())
			q = Mul(q, InsertAxes(Div(marg, Max(rows, MulScalar(OnesLike(rows), 1e-30))), 0))
		}
		// Columns of Qᵀ (graphs): each real one sums to 1/B.
		cols := ReduceSum(q, 1)            // [B]
		cols = Add(cols, OneMinus(weight)) // padding: divide by 1 (its q is 0)
		q = Div(q, InsertAxes(Mul(cols, numB), -1))
	}
	return StopGradient(Mul(q, numB))
}

// PseudoLabelLoss is the pseudo_label lever's term (Levers.PseudoLabel;
// FixMatch, Sohn et al. 2020): q [B, E] are Sinkhorn codes whose first
// known columns are the known prototypes, class by class; logits [B,
// known] are ψ's on the other view; weight [B] marks real graphs. A row
// is pseudo-labelled when its largest entry is a known prototype c
// (ties with an unknown one count as known) and q_c ≥ threshold; loss is
// Σ over those rows of the cross-entropy of logits with target c, divided
// by the number of real rows; frac is the pseudo-labelled share of the
// real rows. No gradient flows into q.
func PseudoLabelLoss(q, logits, weight *Node, known int, threshold float64) (loss, frac *Node) {
	q = StopGradient(q)
	qk := Slice(q, AxisRange(), AxisRange(0, known))
	best := ReduceMax(qk, -1)
	keep := And(GreaterOrEqual(best, ReduceMax(q, -1)), GreaterOrEqual(best, Scalar(q.Graph(), q.DType(), threshold)))
	mask := Mul(ConvertDType(keep, q.DType()), weight)
	target := OneHot(ArgMax(qk, -1), known, logits.DType())
	ce := Neg(ReduceSum(Mul(target, LogSoftmax(logits, -1)), -1))
	n := Max(ReduceAllSum(weight), OnesLike(ReduceAllSum(weight)))
	return Div(ReduceAllSum(Mul(ce, mask)), n), Div(ReduceAllSum(mask), n)
}

// unknownMassClamp bounds PrototypeMarginal's unknown mass away from 0
// and 1, so that no kind of prototype is left without mass.
const unknownMassClamp = 1e-3

// PrototypeMarginal is the prototype marginal of the unknown_mass lever
// (Levers.UnknownMass) for known known prototypes followed by unknown
// unknown ones: the unknown prototypes share u = α·K/|D^u| (numUnknown K,
// numUnlabelled |D^u|; clamped to [0.001, 0.999]) evenly, the known ones
// 1 − u evenly. It is nil (uniform, the paper's) when one kind is
// missing or |D^u| is 0.
func PrototypeMarginal(known, unknown int, alpha float64, numUnknown, numUnlabelled int) []float64 {
	if known < 1 || unknown < 1 || numUnlabelled < 1 {
		return nil
	}
	u := alpha * float64(numUnknown) / float64(numUnlabelled)
	u = min(max(u, unknownMassClamp), 1-unknownMassClamp)
	m := make([]float64, known+unknown)
	for e := range m {
		if e < known {
			m[e] = (1 - u) / float64(known)
		} else {
			m[e] = u / float64(unknown)
		}
	}
	return m
}

// SoftCrossEntropy is L^u of paper eq. (12): −mean over real graphs of
// Σ_c q_c log p_c, with p = softmax(logits) (eq. 13 when logits = z~~ᵀH/τ).
// q, logits [B, E], weight [B].
func SoftCrossEntropy(q, logits, weight *Node) *Node {
	logp := LogSoftmax(logits, -1)
	per := Neg(ReduceSum(Mul(q, logp), -1))
	return Div(ReduceAllSum(Mul(per, weight)), Max(ReduceAllSum(weight), OnesLike(ReduceAllSum(weight))))
}

// SupConLoss is the supervised contrastive loss of Khosla et al. (2020),
// eq. (2) (L^sup_out) with one view per graph: for each anchor i with at
// least one positive p (same label, p ≠ i), −1/|P(i)| Σ_p log(exp(z_i·z_p/τ) /
// Σ_{a≠i} exp(z_i·z_a/τ)), averaged over such anchors. z [B, D] must be
// L2-normalised; labels [B] int32; weight [B] masks padding slots.
func SupConLoss(z, labels, weight *Node, tau float64) *Node {
	g := z.Graph()
	b := z.Shape().Dim(0)
	sim := DivScalar(Einsum("id,jd->ij", z, z), tau) // [B, B]
	eye := ConvertDType(Equal(Iota(g, shapeOf(z, b, b), 0), Iota(g, shapeOf(z, b, b), 1)), z.DType())
	valid := Mul(Mul(InsertAxes(weight, -1), InsertAxes(weight, 0)), OneMinus(eye)) // a ≠ i, both real
	neg := MulScalar(OnesLike(sim), -1e9)
	logits := Where(GreaterThan(valid, ZerosLike(valid)), sim, neg)
	logZ := logSumExp(logits) // [B]
	logProb := Sub(sim, InsertAxes(logZ, -1))
	same := ConvertDType(Equal(InsertAxes(labels, -1), InsertAxes(labels, 0)), z.DType())
	pos := Mul(same, valid)
	npos := ReduceSum(pos, -1)                                         // [B]
	has := ConvertDType(GreaterThan(npos, ZerosLike(npos)), z.DType()) // anchors with a positive
	perAnchor := Div(Neg(ReduceSum(Mul(pos, logProb), -1)), Max(npos, OnesLike(npos)))
	return Div(ReduceAllSum(Mul(perAnchor, has)), Max(ReduceAllSum(has), OnesLike(ReduceAllSum(has))))
}
