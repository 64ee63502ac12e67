package scorers

import (
	"fmt"
	"math"
	"slices"
)

func init() {
	Register(Def{
		Name: "knn",
		Doc:  "distance to the k-th nearest L2-normalised labelled embedding (Sun et al., ICML 2022)",
		Params: map[string]Param{"k": {
			Default: 1,
			Valid:   func(v float64) bool { return v >= 1 && v == math.Trunc(v) },
			Range:   "an integer ≥ 1",
		}},
		Embeddings: true,
		New:        func(p map[string]float64) Model { return &knn{k: int(p["k"])} },
	})
}

// knn keeps the normalised labelled embeddings ẑ = z/‖z‖ (a zero row stays
// zero) and scores a graph by the Euclidean distance from its ẑ to the
// k-th nearest of them; the labels are not used. Sun et al.'s code and
// OpenOOD's knn postprocessor report the squared distance (faiss
// IndexFlatL2), which ranks the graphs the same way.
type knn struct {
	k    int
	bank [][]float64
}

func (m *knn) Fit(labelled Outputs, _ []int, _ int) error {
	if m.k > len(labelled.Embeddings) {
		return fmt.Errorf("k=%d exceeds the %d labelled graphs", m.k, len(labelled.Embeddings))
	}
	m.bank = make([][]float64, len(labelled.Embeddings))
	for i, row := range labelled.Embeddings {
		m.bank[i] = normalised(row)
	}
	return nil
}

func (m *knn) Score(eval Outputs) []float64 {
	out := make([]float64, len(eval.Embeddings))
	dist := make([]float64, len(m.bank))
	for i, row := range eval.Embeddings {
		z := normalised(row)
		for j, b := range m.bank {
			var s float64
			for a := range z {
				d := z[a] - b[a]
				s += d * d
			}
			dist[j] = s
		}
		slices.Sort(dist)
		out[i] = math.Sqrt(dist[m.k-1])
	}
	return out
}

func normalised(row []float32) []float64 {
	z := float64s(row)
	var n float64
	for _, v := range z {
		n += v * v
	}
	if n = math.Sqrt(n); n > 0 {
		for a := range z {
			z[a] /= n
		}
	}
	return z
}
