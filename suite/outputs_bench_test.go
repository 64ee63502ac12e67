package suite

import (
	"math/rand/v2"
	"testing"

	"github.com/ugbench/ugbench/suite/scorers"
)

// BenchmarkScoreOutputs is the cost of the default post-hoc scorers on
// one run of COIL-DEL's size (3,900 evaluation graphs in D^u and the test
// set, 400 labelled graphs, 80 known classes, 256-wide readout), from
// random float16-rounded outputs: what every GNN run adds to its wall
// time, and what bench rescore spends per run.
func BenchmarkScoreOutputs(b *testing.B) {
	const n, m, c, d = 3900, 400, 80, 256
	rng := rand.New(rand.NewPCG(1, 2))
	rows := func(k, w int) [][]float32 {
		out := make([][]float32, k)
		for i := range out {
			out[i] = make([]float32, w)
			for j := range out[i] {
				out[i][j] = float32(rng.NormFloat64())
			}
		}
		return out
	}
	o := &Outputs{NumKnown: c, Eval: make([]int, n), Test: make([]bool, n), Truth: make([]int, n), Class: make([]int, n), Native: make([]float64, n),
		Logits: rows(n, c), Embeddings: rows(n, d), LabelledLabels: make([]int, m), LabelledLogits: rows(m, c), LabelledEmbeddings: rows(m, d)}
	for i := range n {
		o.Eval[i], o.Test[i], o.Native[i] = i, i%5 == 0, rng.Float64()
		o.Truth[i] = i % (c + 20)
		if o.Truth[i] >= c {
			o.Truth[i] = Unknown
		}
	}
	for i := range m {
		o.LabelledLabels[i] = i % c
	}
	o.RoundFloat16()
	list, err := scorers.ParseList(DefaultScorers())
	if err != nil {
		b.Fatal(err)
	}
	for _, sc := range list {
		b.Run(sc.Label(), func(b *testing.B) {
			for b.Loop() {
				if _, recs, err := ScoreOutputs(o, []scorers.Scorer{sc}, 1); err != nil || recs[0].Error != "" {
					b.Fatal(err, recs)
				}
			}
		})
	}
}
