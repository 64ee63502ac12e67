package augment

import (
	"math"
	"math/rand/v2"

	"github.com/ugbench/ugbench/datasets"
)

// RationaleProbs are RGCL's sampling probabilities of the rationale view
// R(G) (RGCL unsupervised_TU/aug.py:261-298): (p_v + eps) / Σ_u (p_u + eps)
// for the explainer's node scores p [n] (eps = 0.001 officially).
func RationaleProbs(p []float64, eps float64) []float64 {
	w := make([]float64, len(p))
	for i, v := range p {
		w[i] = v + eps
	}
	return normalise(w)
}

// ComplementProbs are RGCL's sampling probabilities of the complement view
// C(G) (aug.py:301-338): (max_u p_u − p_v + eps) / Σ over the nodes.
func ComplementProbs(p []float64, eps float64) []float64 {
	m := p[0]
	for _, v := range p {
		m = max(m, v)
	}
	w := make([]float64, len(p))
	for i, v := range p {
		w[i] = m - v + eps
	}
	return normalise(w)
}

// SoftmaxRationaleProbs are the rationale view's sampling probabilities
// of RGCL's semi-supervised MNIST code (lsh0520/RGCL
// semisupervised_MNIST/pre-training/train/aug.py, aug_drop_node_ex):
// the softmax over the nodes of p_v / max_u p_u, without eps. p = [0.1,
// 0.6, 0.3] gives [0.2129205, 0.4899250, 0.2971545]. p [n], max p > 0.
func SoftmaxRationaleProbs(p []float64) []float64 {
	m := p[0]
	for _, v := range p {
		m = max(m, v)
	}
	w := make([]float64, len(p))
	for i, v := range p {
		w[i] = math.Exp(v/m - 1) // shifted by the maximum of v/m, which is 1
	}
	return normalise(w)
}

func normalise(w []float64) []float64 {
	var s float64
	for _, v := range w {
		s += v
	}
	for i := range w {
		w[i] /= s
	}
	return w
}

// KeepRatioCount is RGCL's keep count at keep ratio rho,
// n − FloorCount(n, 1−rho) in float64 as the official code computes it: at
// rho = 0.9 every n ≤ 10 keeps all its nodes (9→9, 10→10, 11→10, 20→19,
// 30→28); rho = 0.8 keeps 5→5 and 10→9 (1 − 0.8 < 0.2 in float64), unlike
// the chem/MNIST codes' drop ratio 0.2 (5→4, 10→8). minDrop ≥ 0 drops at least that
// many nodes (the official code has none: minDrop = 0), and at least one
// node is always kept.
func KeepRatioCount(n int, rho float64, minDrop int) int {
	keep := n - FloorCount(n, 1-rho)
	keep = min(keep, n-minDrop)
	return max(keep, 1)
}

// DropRatioCount is the keep count of RGCL's chem and MNIST codes,
// n − ⌊n·drop⌋ (`num - int(num * drop_percent)`, drop 0.2 officially):
// 4→4, 5→4, 10→8, 11→9, 20→16. minDrop ≥ 0 drops at least that many
// nodes, and at least one node is always kept.
func DropRatioCount(n int, drop float64, minDrop int) int {
	keep := n - FloorCount(n, drop)
	keep = min(keep, n-minDrop)
	return max(keep, 1)
}

// SampleWithoutReplacement draws k distinct indices of probs (which need
// not sum to 1; every entry > 0) by successive draws proportional to the
// remaining weights — numpy's choice(n, k, replace=False, p=probs) in
// distribution. k ≤ len(probs).
func SampleWithoutReplacement(probs []float64, k int, rng *rand.Rand) []int {
	w := append([]float64(nil), probs...)
	var total float64
	for _, v := range w {
		total += v
	}
	out := make([]int, 0, k)
	for len(out) < k {
		u := rng.Float64() * total
		pick := -1
		for i, v := range w {
			if v <= 0 {
				continue
			}
			pick = i
			if u < v {
				break
			}
			u -= v
		}
		out = append(out, pick)
		total -= w[pick]
		w[pick] = 0
	}
	return out
}

// SampleNodes is RGCL's view by node sampling: the subgraph of g induced
// by keep nodes drawn without replacement with probabilities probs [n]
// (RationaleProbs or ComplementProbs). The official code also removes
// nodes left without any kept edge; this version keeps them (a graph's
// isolated nodes still carry features through the GIN's self term).
func SampleNodes(g *datasets.Graph, feats []float32, dim int, probs []float64, keep int, rng *rand.Rand) (datasets.Graph, []float32) {
	if keep >= g.NumNodes {
		return *g, feats
	}
	return Induced(g, feats, dim, SampleWithoutReplacement(probs, keep, rng))
}
