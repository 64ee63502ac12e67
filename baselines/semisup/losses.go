package semisup

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
)

// The contrastive estimators of the four official codes
// (docs/methods.md, "Contrastive estimators"), as GoMLX graph functions. Every
// loss is a mean over the real graph slots of a padded batch (weight [B]:
// 1 real, 0 padding), and every B×B (or B×N×B) score matrix masks padding
// on both axes, so a padding slot is never a negative.

// cosEps is the normalisation floor of every cosine (docs/methods.md; the
// official cosines have none, so a zero vector would give NaN there).
const cosEps = 1e-12

// CosineMatrix is cos(u_i, v_j): u, v [B, D] → [B, B], each row scaled to
// unit length with the norm floored at √cosEps.
func CosineMatrix(u, v *Node) *Node {
	return Einsum("id,jd->ij", unitRows(u), unitRows(v))
}

// CosinePairs is cos(u_i, v_i): u, v [B, D] → [B].
func CosinePairs(u, v *Node) *Node {
	return ReduceSum(Mul(unitRows(u), unitRows(v)), -1)
}

func unitRows(u *Node) *Node {
	n := Sqrt(Max(ReduceSum(Square(u), -1), Scalar(u.Graph(), u.DType(), cosEps)))
	return Div(u, InsertAxes(n, -1))
}

// pairMask is w_i·w_j·[i ≠ j] (offDiag) or w_i·[i = j] (diagonal): [B, B].
func pairMasks(weight *Node) (diag, offDiag *Node) {
	b := weight.Shape().Dim(0)
	eye := DiagonalWithValue(ScalarOne(weight.Graph(), weight.DType()), b)
	both := Mul(InsertAxes(weight, -1), InsertAxes(weight, 0))
	return Mul(eye, both), Mul(OneMinus(eye), both)
}

// weightedMean is Σ w·x / max(Σ w, 1) over a [B] vector.
func weightedMean(x, weight *Node) *Node {
	den := Max(ReduceAllSum(weight), ScalarOne(x.Graph(), x.DType()))
	return Div(ReduceAllSum(Mul(x, weight)), den)
}

// logMaskedSumExp is log Σ_j m_ij·exp(s_ij) per row: s, m [B, B] → [B],
// shifted by the row maximum over all j. A row with no masked-in entry
// (a padding slot's row) gives the row maximum instead of −∞, so that its
// zero weight masks it without 0·∞ = NaN in the value or the gradient.
func logMaskedSumExp(s, m *Node) *Node {
	shift := StopGradient(ReduceMax(s, -1))
	sum := ReduceSum(Mul(m, Exp(Sub(s, InsertAxes(shift, -1)))), -1)
	sum = Where(GreaterThan(sum, ZerosLike(sum)), sum, OnesLike(sum))
	return Add(Log(sum), shift)
}

// GraphCLOneWay is estimator E1, GraphCL's loss as its official code
// computes it (Shen-Lab/GraphCL semisupervised_TU/pre-training/res_gcn.py
// loss_cl): ℓ_i = −log( e_ii / Σ_{j≠i} e_ij ), e_ij = exp(cos(u_i, v_j)/τ),
// averaged over the real slots i. Only u anchors (not symmetrised), the
// negatives are v's other real slots, and the positive is not in the
// denominator, so the value can be negative (−2 at τ = 0.5 for two
// orthogonal aligned pairs). A batch with fewer than 2 real graphs has an
// empty denominator (the loss is +∞): callers skip it. u, v [B, D],
// weight [B] → scalar.
func GraphCLOneWay(u, v, weight *Node, tau float64) *Node {
	s := DivScalar(CosineMatrix(u, v), tau)
	diag, off := pairMasks(weight)
	pos := ReduceSum(Mul(s, diag), -1)
	return weightedMean(Sub(logMaskedSumExp(s, off), pos), weight)
}

// OneWayInfoNCE is estimator E2: ℓ_i = −log( e_ii / Σ_j e_ij ) with the
// positive in the denominator (per row, softplus of E1's ℓ_i); it is the
// first term of RGCL's TU loss. u, v [B, D], weight [B] → scalar.
func OneWayInfoNCE(u, v, weight *Node, tau float64) *Node {
	s := DivScalar(CosineMatrix(u, v), tau)
	diag, off := pairMasks(weight)
	pos := ReduceSum(Mul(s, diag), -1)
	return weightedMean(Sub(logMaskedSumExp(s, Add(diag, off)), pos), weight)
}

// AlignmentOnly is estimator E4, GLA's loss (brandeis-machine-learning/GLA
// res_gcn.py:303-328, the denominator commented out at line 325):
// ℓ_i = −cos(u_i, v_i)/τ averaged over the slots with weight > 0 (GLA
// passes its filter I as the weight). u, v [B, D], weight [B] → scalar.
func AlignmentOnly(u, v, weight *Node, tau float64) *Node {
	return weightedMean(Neg(DivScalar(CosinePairs(u, v), tau)), weight)
}

// softplus is log(1+eˣ), computed as max(x, 0) + log1p(e^{−|x|}).
func softplus(x *Node) *Node {
	return Add(Max(x, ZerosLike(x)), Log1P(Exp(Neg(Abs(x)))))
}

// JSD is InfoGraph's Jensen–Shannon MI estimator (Deep InfoMax f-divergence
// mode; fanyun-sun/InfoGraph semi-supervised/infomax.py:115-165) as a loss
// to minimise: mean over negative pairs of En(s) − mean over positive pairs
// of Ep(s), with Ep(s) = log 2 − softplus(−s) and En(s) = softplus(s) −
// log 2. scores, pos and neg have one shape; pos and neg are 0/1 masks
// (padding already masked out). It is 0 when every score is 0 and ≥ −2·log 2.
func JSD(scores, pos, neg *Node) *Node {
	return jsdParts([]*Node{scores}, []*Node{pos}, []*Node{neg})
}

// jsdParts is JSD over the union of several score sets (each with its own
// shape and masks): the means run over all positive and all negative
// pairs of all parts.
func jsdParts(scores, pos, neg []*Node) *Node {
	g := scores[0].Graph()
	dt := scores[0].DType()
	log2 := Scalar(g, dt, 0.6931471805599453)
	var sumP, sumN, cntP, cntN *Node
	add := func(acc, x *Node) *Node {
		if acc == nil {
			return x
		}
		return Add(acc, x)
	}
	for i, s := range scores {
		ep := Sub(log2, softplus(Neg(s)))
		en := Sub(softplus(s), log2)
		sumP, cntP = add(sumP, ReduceAllSum(Mul(ep, pos[i]))), add(cntP, ReduceAllSum(pos[i]))
		sumN, cntN = add(sumN, ReduceAllSum(Mul(en, neg[i]))), add(cntN, ReduceAllSum(neg[i]))
	}
	one := ScalarOne(g, dt)
	return Sub(Div(sumN, Max(cntN, one)), Div(sumP, Max(cntP, one)))
}

// LocalGlobalJSD is InfoGraph's local–global term L_lg: scores
// S[b,n,c] = ⟨local[b,n], global[c]⟩ between every node (patch) n of graph
// b and every graph c of the batch; positives are (node, own graph),
// negatives (node, every other real graph). local [B, N, H], nodeMask
// [B, N], global [B, H], weight [B] → scalar.
func LocalGlobalJSD(local, nodeMask, global, weight *Node) *Node {
	return LocalGlobalJSDChunks([]*Node{local}, []*Node{nodeMask}, global, weight)
}

// LocalGlobalJSDChunks is LocalGlobalJSD over a batch padded as size
// chunks: chunk s holds the slots [o_s, o_s + B_s) of the batch, with its
// own node count N_s. local[s] [B_s, N_s, H], nodeMask[s] [B_s, N_s];
// global [ΣB_s, H] and weight [ΣB_s] over all slots → scalar, the value
// of the unsplit batch (every chunk's nodes score against every graph).
func LocalGlobalJSDChunks(local, nodeMask []*Node, global, weight *Node) *Node {
	parts := make([]LocalPatches, len(local))
	for s := range local {
		parts[s] = LocalPatches{Local: local[s], Mask: nodeMask[s], NumGraphs: local[s].Shape().Dim(0)}
	}
	return LocalGlobalJSDParts(parts, global, weight)
}

// LocalPatches are the patches (node vectors) of one chunk of a batch for
// LocalGlobalJSDParts, the chunk's NumGraphs = B_s slots in either
// layout: dense (Graph nil) Local [B_s, N_s, H] and Mask [B_s, N_s]; or
// edge list Local [Nodes_s, H], Mask [Nodes_s] and Graph [Nodes_s, 1]
// int32, every node's slot in the chunk (B_s for padding nodes, which
// Mask must zero).
type LocalPatches struct {
	Local, Mask, Graph *Node
	NumGraphs          int
}

// LocalGlobalJSDParts is LocalGlobalJSDChunks over chunks in either layout
// (LocalPatches): the value of the unsplit batch. global [ΣB_s, H] and
// weight [ΣB_s] over all slots, in chunk order → scalar.
func LocalGlobalJSDParts(parts []LocalPatches, global, weight *Node) *Node {
	diag, off := pairMasks(weight) // [B(b), B(c)]
	var scores, pos, neg []*Node
	row := 0
	for _, p := range parts {
		s, ps, ns := p.pairs(global, diag, off, row)
		scores, pos, neg = append(scores, s), append(pos, ps), append(neg, ns)
		row += p.NumGraphs
	}
	return jsdParts(scores, pos, neg)
}

// pairs are the scores of p's nodes against every graph of the batch
// (global [ΣB, H]) and their positive and negative masks, from the
// batch's pair masks diag, off [ΣB, ΣB], whose rows row… are p's slots:
// [B_s, N_s, ΣB] dense, [Nodes_s, ΣB] edge list.
func (p LocalPatches) pairs(global, diag, off *Node, row int) (scores, pos, neg *Node) {
	m := InsertAxes(p.Mask, -1)
	if p.Graph == nil {
		d := InsertAxes(Slice(diag, AxisRange(row, row+p.NumGraphs)), 1)
		o := InsertAxes(Slice(off, AxisRange(row, row+p.NumGraphs)), 1)
		return Einsum("bnd,cd->bnc", p.Local, global), Mul(m, d), Mul(m, o)
	}
	perNode := func(x *Node) *Node { // the slot rows of x, one per node; zero for slot B_s
		r := Slice(x, AxisRange(row, row+p.NumGraphs))
		return Gather(Concatenate([]*Node{r, ZerosLike(Slice(x, AxisRange(0, 1)))}, 0), p.Graph)
	}
	return Einsum("nd,cd->nc", p.Local, global), Mul(m, perNode(diag)), Mul(m, perNode(off))
}

// GlobalGlobalJSD is InfoGraph*'s term L_gg between the supervised and the
// unsupervised encoder's graph vectors: S = a·bᵀ [B, B], the diagonal
// positive and the other real pairs negative. a, b [B, H], weight [B] →
// scalar.
func GlobalGlobalJSD(a, b, weight *Node) *Node {
	diag, off := pairMasks(weight)
	return JSD(Einsum("id,jd->ij", a, b), diag, off)
}

// RGCLTULoss is RGCL's unsupervised TU loss (lsh0520/RGCL
// unsupervised_TU/rgcl.py:72-94) with anchor x, rationale view a and
// complement view c:
// ℓ_i = −log( e(x_i,a_i)/Σ_j e(x_i,a_j) + w·e(x_i,a_i)/(Σ_j e(x_i,c_j) + e(x_i,a_i)) ),
// e = exp(cos/τ), sums over real slots, the complement ratio weighted by
// w (cpWeight, 0.1) inside the log. x, a, c [B, D], weight [B] → scalar.
func RGCLTULoss(x, a, c, weight *Node, tau, cpWeight float64) *Node {
	sa := DivScalar(CosineMatrix(x, a), tau)
	sc := DivScalar(CosineMatrix(x, c), tau)
	diag, off := pairMasks(weight)
	all := Add(diag, off)
	pos := ReduceSum(Mul(sa, diag), -1)
	// Both ratios relative to e_pos, in log space: r1 = e_pos/Σ_j e(x,a_j),
	// r2 = e_pos/(Σ_j e(x,c_j) + e_pos).
	logR1 := Sub(pos, logMaskedSumExp(sa, all))
	logDen2 := logAddExp(logMaskedSumExp(sc, all), pos)
	logR2 := Sub(pos, logDen2)
	r := Add(Exp(logR1), MulScalar(Exp(logR2), cpWeight))
	return weightedMean(Neg(Log(r)), weight)
}

// RGCLChemLoss is RGCL's chem pretraining loss
// (transferLearning/chem/pretrain_rgcl.py:68-150): E1(r1, r2) + λ·mean_i
// −log( e(r1_i,r2_i) / (Σ_j e(r1_i,c_j) + e(r1_i,r2_i)) ). r1, r2, c
// [B, D], weight [B] → scalar.
func RGCLChemLoss(r1, r2, c, weight *Node, tau, lambda float64) *Node {
	sc := DivScalar(CosineMatrix(r1, c), tau)
	diag, off := pairMasks(weight)
	pos := DivScalar(CosinePairs(r1, r2), tau)
	comp := Sub(logAddExp(logMaskedSumExp(sc, Add(diag, off)), pos), pos)
	return Add(GraphCLOneWay(r1, r2, weight, tau), MulScalar(weightedMean(comp, weight), lambda))
}

// logAddExp is log(eᵃ + eᵇ), elementwise.
func logAddExp(a, b *Node) *Node {
	m := StopGradient(Max(a, b))
	return Add(m, Log(Add(Exp(Sub(a, m)), Exp(Sub(b, m)))))
}
