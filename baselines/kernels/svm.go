package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// SVMConfig sets up a linear SVM trained by TrainLinearSVM.
type SVMConfig struct {
	// C is the cost of a margin violation; must be > 0.
	C float64
	// SquaredHinge selects the squared hinge (L2) loss; false is the hinge
	// (L1) loss of the standard C-SVM.
	SquaredHinge bool
	// Bias is the value of a constant feature appended to every vector
	// (LIBLINEAR's -B); its weight is the intercept, regularised like the
	// other weights. 0 trains without intercept.
	Bias float64
	// Tol stops training when the projected-gradient gap falls below it
	// (LIBLINEAR's -e, default 0.1 there).
	Tol float64
	// MaxIter bounds the number of passes over the data.
	MaxIter int
}

// DefaultSVMConfig is the configuration of the wl method: hinge loss with an
// intercept, C = 1, a tolerance ten times tighter than LIBLINEAR's default
// and at most 1000 passes (LIBLINEAR's bound).
func DefaultSVMConfig() SVMConfig {
	return SVMConfig{C: 1, Bias: 1, Tol: 0.01, MaxIter: 1000}
}

// LinearSVM is a trained binary linear classifier with decision value
// f(x) = W·x + B, positive for the positive class.
type LinearSVM struct {
	// W is the weight vector, one entry per feature.
	W []float64
	// B is the intercept (the bias feature's weight times SVMConfig.Bias).
	B float64
	// Iter is the number of passes over the data training took.
	Iter int
	// Converged is false if training stopped at SVMConfig.MaxIter.
	Converged bool
}

// Decision returns W·x + B.
func (m *LinearSVM) Decision(x SparseVector) float64 { return x.Dot(m.W) + m.B }

// TrainLinearSVM trains a binary L2-regularised linear SVM on the vectors x
// (feature ids below dim) with labels y in {-1, +1}, by the dual coordinate
// descent method with random permutation and shrinking of Hsieh, Chang, Lin,
// Keerthi and Sundararajan, "A Dual Coordinate Descent Method for
// Large-scale Linear SVM", ICML 2008 (LIBLINEAR's solvers -s 3 and -s 1):
//
//	min_α ½ αᵀQ̄α − eᵀα,  0 ≤ α_i ≤ U,  Q̄ = Q + D,  Q_ij = y_i y_j x_iᵀx_j,
//
// with U = C, D = 0 for the hinge loss and U = ∞, D_ii = 1/(2C) for the
// squared hinge loss, keeping w = Σ α_i y_i x_i up to date. rng orders the
// coordinates, so the result is deterministic given rng's seed. It stops
// early with ctx.Err() if ctx is cancelled (checked once per pass).
func TrainLinearSVM(ctx context.Context, x []SparseVector, y []int8, dim int, cfg SVMConfig, rng *rand.Rand) (*LinearSVM, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("svm: %d vectors but %d labels", len(x), len(y))
	}
	if !(cfg.C > 0) || math.IsInf(cfg.C, 0) {
		return nil, fmt.Errorf("svm: C must be positive and finite, got %v", cfg.C)
	}
	if !(cfg.Tol > 0) || cfg.MaxIter <= 0 || math.IsNaN(cfg.Bias) || math.IsInf(cfg.Bias, 0) {
		return nil, fmt.Errorf("svm: bad config %+v", cfg)
	}
	for i, v := range x {
		if y[i] != 1 && y[i] != -1 {
			return nil, fmt.Errorf("svm: label %d of vector %d is not ±1", y[i], i)
		}
		for _, j := range v.Index {
			if j < 0 || int(j) >= dim {
				return nil, fmt.Errorf("svm: vector %d has feature %d outside [0, %d)", i, j, dim)
			}
		}
	}

	l := len(x)
	w := make([]float64, dim)
	var wb float64 // weight of the bias feature
	bias := cfg.Bias
	diag, upper := 0.0, cfg.C
	if cfg.SquaredHinge {
		diag, upper = 0.5/cfg.C, math.Inf(1)
	}
	alpha := make([]float64, l)
	qd := make([]float64, l)
	index := make([]int, l)
	for i := range x {
		qd[i] = diag + x[i].SquaredNorm() + bias*bias
		index[i] = i
	}

	activeSize := l
	pgMaxOld, pgMinOld := math.Inf(1), math.Inf(-1)
	iter := 0
	converged := false
	for iter < cfg.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pgMaxNew, pgMinNew := math.Inf(-1), math.Inf(1)
		rng.Shuffle(activeSize, func(i, j int) { index[i], index[j] = index[j], index[i] })
		for s := 0; s < activeSize; s++ {
			i := index[s]
			yi := float64(y[i])
			g := yi*(x[i].Dot(w)+wb*bias) - 1 + alpha[i]*diag
			pg := 0.0
			switch {
			case alpha[i] == 0:
				if g > pgMaxOld {
					activeSize--
					index[s], index[activeSize] = index[activeSize], index[s]
					s--
					continue
				}
				if g < 0 {
					pg = g
				}
			case alpha[i] == upper:
				if g < pgMinOld {
					activeSize--
					index[s], index[activeSize] = index[activeSize], index[s]
					s--
					continue
				}
				if g > 0 {
					pg = g
				}
			default:
				pg = g
			}
			pgMaxNew = math.Max(pgMaxNew, pg)
			pgMinNew = math.Min(pgMinNew, pg)
			if math.Abs(pg) > 1e-12 && qd[i] > 0 {
				old := alpha[i]
				alpha[i] = math.Min(math.Max(old-g/qd[i], 0), upper)
				d := (alpha[i] - old) * yi
				for k, j := range x[i].Index {
					w[j] += d * x[i].Value[k]
				}
				wb += d * bias
			}
		}
		iter++
		if pgMaxNew-pgMinNew <= cfg.Tol {
			if activeSize == l {
				converged = true
				break
			}
			// Shrinking may have dropped variables wrongly: recheck all.
			activeSize = l
			pgMaxOld, pgMinOld = math.Inf(1), math.Inf(-1)
			continue
		}
		pgMaxOld, pgMinOld = pgMaxNew, pgMinNew
		if pgMaxOld <= 0 {
			pgMaxOld = math.Inf(1)
		}
		if pgMinOld >= 0 {
			pgMinOld = math.Inf(-1)
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("svm: non-finite weight after %d passes", iter)
		}
	}
	return &LinearSVM{W: w, B: wb * bias, Iter: iter, Converged: converged}, nil
}

// OneVsRest is a multi-class linear SVM made of one binary LinearSVM per
// class, class c against all others.
type OneVsRest struct {
	// Classes holds the binary classifier of each class.
	Classes []*LinearSVM
}

// TrainOneVsRest trains one binary SVM per class 0..numClasses-1 on x with
// labels in that range. Class c's coordinate order is seeded from (seed, c),
// so the result is deterministic given seed. ctx is checked between and
// during the per-class trainings.
func TrainOneVsRest(ctx context.Context, x []SparseVector, labels []int, numClasses, dim int, cfg SVMConfig, seed int64) (*OneVsRest, error) {
	if len(x) != len(labels) {
		return nil, fmt.Errorf("svm: %d vectors but %d labels", len(x), len(labels))
	}
	if numClasses < 1 {
		return nil, fmt.Errorf("svm: need at least one class, got %d", numClasses)
	}
	for i, c := range labels {
		if c < 0 || c >= numClasses {
			return nil, fmt.Errorf("svm: label %d of vector %d outside [0, %d)", c, i, numClasses)
		}
	}
	y := make([]int8, len(labels))
	o := &OneVsRest{Classes: make([]*LinearSVM, numClasses)}
	for c := range numClasses {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, l := range labels {
			y[i] = -1
			if l == c {
				y[i] = 1
			}
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(c)))
		m, err := TrainLinearSVM(ctx, x, y, dim, cfg, rng)
		if err != nil {
			return nil, fmt.Errorf("class %d: %w", c, err)
		}
		o.Classes[c] = m
	}
	return o, nil
}

// Decisions returns the decision value of every class for x.
func (o *OneVsRest) Decisions(x SparseVector) []float64 {
	d := make([]float64, len(o.Classes))
	for c, m := range o.Classes {
		d[c] = m.Decision(x)
	}
	return d
}

// Predict returns the class with the largest decision value for x (the
// lowest such class on ties) and that value.
func (o *OneVsRest) Predict(x SparseVector) (class int, decision float64) {
	decision = math.Inf(-1)
	for c, m := range o.Classes {
		if d := m.Decision(x); d > decision || c == 0 {
			class, decision = c, d
		}
	}
	return class, decision
}
