package scorers

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

func init() {
	Register(Def{
		Name: "mahalanobis",
		Doc:  "min over classes of the Mahalanobis distance to the class mean, shared shrunk covariance (Lee et al., NeurIPS 2018)",
		Params: map[string]Param{"shrink": {
			Default: 0.1,
			Valid:   func(v float64) bool { return v >= 0 && v <= 1 },
			Range:   "in [0, 1]",
		}},
		Embeddings: true,
		New:        func(p map[string]float64) Model { return &mahalanobis{shrink: p["shrink"]} },
	})
}

// mahalanobis fits the class means μ_c of the labelled embeddings (classes
// without a labelled graph are skipped) and their tied covariance
// Σ = (1/N) Σ_i (z_i − μ_{y_i})(z_i − μ_{y_i})ᵀ, as Lee et al. do, shrunk
// towards a multiple of the identity with the same trace:
//
//	Σ' = (1 − shrink)·Σ + shrink·(tr Σ / d)·I.
//
// A graph scores min_c (z − μ_c)ᵀ Σ'⁻¹ (z − μ_c), computed as
// min_c ‖L⁻¹z − L⁻¹μ_c‖² with Σ' = LLᵀ (Cholesky). Lee et al.'s code and
// OpenOOD's mds postprocessor fit Σ with scikit-learn's
// EmpiricalCovariance on the class-centred features and invert it with a
// pseudo-inverse; shrink=0 is that Σ, and Fit fails (asking for a larger
// shrink) where it is not numerically positive definite, as happens when
// the labelled graphs outnumber their classes by less than the embedding
// width (the residuals then span fewer dimensions). It fails whatever
// shrink when tr Σ = 0: every labelled embedding equals its class mean
// (one labelled graph per class).
type mahalanobis struct {
	shrink float64
	l      [][]float64 // lower Cholesky factor L of Σ', row by row
	means  [][]float64 // L⁻¹μ_c of the classes with a labelled graph
}

func (m *mahalanobis) Fit(labelled Outputs, labels []int, numKnown int) error {
	n := len(labels)
	if n == 0 {
		return errors.New("no labelled graph")
	}
	d := len(labelled.Embeddings[0])
	sums := make([][]float64, numKnown)
	counts := make([]int, numKnown)
	for i, y := range labels {
		if sums[y] == nil {
			sums[y] = make([]float64, d)
		}
		for a, v := range labelled.Embeddings[i] {
			sums[y][a] += float64(v)
		}
		counts[y]++
	}
	for c, s := range sums {
		for a := range s {
			s[a] /= float64(counts[c])
		}
	}
	cov := make([]float64, d*d)
	r := make([]float64, d)
	for i, y := range labels {
		for a, v := range labelled.Embeddings[i] {
			r[a] = float64(v) - sums[y][a]
		}
		for a := range d {
			for b := range d {
				cov[a*d+b] += r[a] * r[b]
			}
		}
	}
	var trace float64
	for a := range d {
		trace += cov[a*d+a] / float64(n)
	}
	if !(trace > 0) { // no shrinkage can help: every D^l embedding equals its class mean
		return fmt.Errorf("the %d labelled embeddings of width %d have no within-class variance (one graph per class, or embeddings collapsed within each class): the shared covariance is 0 whatever shrink", n, d)
	}
	for a := range d {
		for b := range d {
			cov[a*d+b] *= (1 - m.shrink) / float64(n)
		}
		cov[a*d+a] += m.shrink * trace / float64(d)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(d, cov)) || ch.Cond() > mat.ConditionTolerance {
		return fmt.Errorf("shrunk covariance of %d labelled embeddings of width %d is not positive definite (shrink=%g): raise shrink", n, d, m.shrink)
	}
	var l mat.TriDense
	ch.LTo(&l)
	m.l = make([][]float64, d)
	for a := range d {
		m.l[a] = make([]float64, a+1)
		for b := range a + 1 {
			m.l[a][b] = l.At(a, b)
		}
	}
	m.means = m.means[:0]
	for _, mu := range sums {
		if mu != nil {
			m.means = append(m.means, m.whiten(mu))
		}
	}
	return nil
}

// whiten solves L·u = z by forward substitution.
func (m *mahalanobis) whiten(z []float64) []float64 {
	u := make([]float64, len(z))
	for a := range z {
		s := z[a]
		for b, v := range m.l[a][:a] {
			s -= v * u[b]
		}
		u[a] = s / m.l[a][a]
	}
	return u
}

func (m *mahalanobis) Score(eval Outputs) []float64 {
	out := make([]float64, len(eval.Embeddings))
	for i, row := range eval.Embeddings {
		u := m.whiten(float64s(row))
		best := math.Inf(1)
		for _, w := range m.means {
			var s float64
			for a := range u {
				s += (u[a] - w[a]) * (u[a] - w[a])
			}
			best = min(best, s)
		}
		out[i] = best
	}
	return out
}
