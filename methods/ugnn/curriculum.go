package ugnn

import (
	"math"
	"sort"
)

// MeanStd returns the mean μ and the population standard deviation σ (1/I,
// as the paper defines σ̂²) of the confidences s_1..s_I of a graph's
// subgraphs; s~ = μ − σ (paper §4.2) is higher for graphs more likely
// in-distribution. s must not be empty.
func MeanStd(s []float64) (mu, sigma float64) {
	for _, v := range s {
		mu += v
	}
	mu /= float64(len(s))
	var v2 float64
	for _, v := range s {
		v2 += (v - mu) * (v - mu)
	}
	return mu, math.Sqrt(v2 / float64(len(s)))
}

// CurriculumThreshold returns δ_t = (t/T)·δ where δ is the ⌈α·K⌉-th
// smallest score (paper §4.2, "from easy to hard"): at the last cycle the
// OOD set is the ⌈α·K⌉ least confident graphs (more when scores tie at δ).
// The factor t/T scales the score, so with scores in (0, 1] an early δ_t
// can lie below every score and select nothing. K is the number of
// unknown-class graphs, assumed known as in the paper. scores are s~ of
// the unlabelled graphs; t is 1-based.
func CurriculumThreshold(scores []float64, numUnknown int, alpha float64, t, T int) float64 {
	if len(scores) == 0 {
		return math.Inf(-1)
	}
	sorted := append([]float64(nil), scores...)
	sort.Float64s(sorted)
	k := int(math.Ceil(alpha*float64(numUnknown) - 1e-9))
	k = min(max(k, 1), len(sorted))
	delta := sorted[k-1]
	return float64(t) / float64(T) * delta
}

// CountOODSet is the OOD set of cycle t of T under curriculum
// "count" (Levers.Curriculum): the positions of the n = ⌈(t/T)·α·K⌉ lowest
// scores (at least 1, at most all; ties broken by position), in ascending
// order. At the last cycle n = ⌈α·K⌉, the size CurriculumThreshold's set
// has then (without ties).
func CountOODSet(scores []float64, numUnknown int, alpha float64, t, T int) []int {
	if len(scores) == 0 {
		return nil
	}
	n := int(math.Ceil(float64(t)/float64(T)*alpha*float64(numUnknown) - 1e-9))
	n = min(max(n, 1), len(scores))
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	out := order[:n]
	sort.Ints(out)
	return out
}

// OODSet returns the positions i with scores[i] ≤ threshold (the graphs
// held to be of unknown classes at this cycle: the complement of D^{u,id},
// paper eq. 7), in ascending order.
func OODSet(scores []float64, threshold float64) []int {
	var out []int
	for i, s := range scores {
		if s <= threshold {
			out = append(out, i)
		}
	}
	return out
}
