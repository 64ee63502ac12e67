package scorers

import "math"

func init() {
	Register(Def{
		Name:   "msp",
		Doc:    "1 − max softmax probability of the logits (Hendrycks & Gimpel, ICLR 2017)",
		Logits: true,
		New:    func(map[string]float64) Model { return logitModel(msp) },
	})
	Register(Def{
		Name:   "maxlogit",
		Doc:    "−max logit (Hendrycks et al., ICML 2022; Vaze et al., ICLR 2022)",
		Logits: true,
		New:    func(map[string]float64) Model { return logitModel(maxLogit) },
	})
	Register(Def{
		Name:   "energy",
		Doc:    "energy −t·logsumexp(logits/t) (Liu et al., NeurIPS 2020)",
		Params: map[string]Param{"t": {Default: 1, Valid: func(v float64) bool { return v > 0 }, Range: "> 0"}},
		Logits: true,
		New: func(p map[string]float64) Model {
			t := p["t"]
			return logitModel(func(l []float64) float64 { return energy(l, t) })
		},
	})
}

// logitModel scores each row of logits on its own; it fits nothing.
type logitModel func(logits []float64) float64

func (logitModel) Fit(Outputs, []int, int) error { return nil }

func (f logitModel) Score(eval Outputs) []float64 {
	out := make([]float64, len(eval.Logits))
	for i, row := range eval.Logits {
		out[i] = f(float64s(row))
	}
	return out
}

// msp is 1 − max_c softmax(l)_c, computed as S/(1+S) with
// S = Σ_{j≠c} exp(l_j − l_c), c the argmax: exact where 1 − p would round
// to 0 (p within float precision of 1).
func msp(l []float64) float64 {
	c := argmax(l)
	var s float64
	for j, v := range l {
		if j != c {
			s += math.Exp(v - l[c])
		}
	}
	return s / (1 + s)
}

func maxLogit(l []float64) float64 { return -l[argmax(l)] }

// energy is −t·logsumexp(l/t) = −(m + t·log Σ_j exp((l_j − m)/t)), m the
// largest logit.
func energy(l []float64, t float64) float64 {
	m := l[argmax(l)]
	var s float64
	for _, v := range l {
		s += math.Exp((v - m) / t)
	}
	return -(m + t*math.Log(s))
}

func argmax(l []float64) int {
	best := 0
	for j, v := range l {
		if v > l[best] {
			best = j
		}
	}
	return best
}
