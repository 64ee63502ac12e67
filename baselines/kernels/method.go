package kernels

import (
	"context"
	"fmt"
	"math"

	"github.com/ugbench/ugbench/suite"
)

func init() { suite.Register(WL{}) }

// maxIterations bounds the "iterations" hyper-parameter: past a few dozen
// iterations WL labels are unique per node and further ones only cost time.
const maxIterations = 50

// WL is the paper's "WL Kernel" baseline: Weisfeiler-Lehman subtree features
// (Shervashidze et al., JMLR 2011; see WLFeatures) normalised per graph,
// then a one-vs-rest linear SVM (see TrainOneVsRest) trained on the
// labelled graphs. A linear SVM on explicit WL features is the kernel SVM on
// the WL subtree kernel, the sum over iterations of the label histogram dot
// products (GraKeL's WeisfeilerLehman with VertexHistogram base kernel).
// A graph's predicted class is the argmax decision value and its unknown
// score minus the max decision value (PROTOCOL §3).
//
// Hyper-parameters: "iterations" (h, default 5 as in GraKeL), "norm" ("l2",
// "l1" or "none"; default "l2", GraKeL's normalize=True) and "C" (SVM cost,
// default 1). Continuous node attributes are not used: the initial labels
// are the discrete node labels, or node degrees where a dataset has none.
// The feature map depends only on the dataset and h, so it is computed once
// per process (see FeatureCache) and shared by all ratios and seeds.
type WL struct{}

// Name returns "wl".
func (WL) Name() string { return "wl" }

// Doc describes the method and cites its source.
func (WL) Doc() string {
	return "WL subtree features (Shervashidze et al., JMLR 2011) + one-vs-rest linear SVM on the labelled graphs"
}

// Defaults returns iterations=5, norm=l2, C=1.0.
func (WL) Defaults() suite.Params {
	return suite.Params{"iterations": 5, "norm": "l2", "C": 1.0}
}

// Fit computes (or reuses) the WL feature map of all task graphs, trains
// the one-vs-rest SVM on task.Labelled and predicts task.Eval.
func (WL) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return fitWL(ctx, task, defaultCache)
}

// fitWL is Fit with an explicit feature cache, for tests.
func fitWL(ctx context.Context, task *suite.Task, cache *FeatureCache) (*suite.Predictions, error) {
	h := task.Params.Int("iterations")
	norm := task.Params.Str("norm")
	cost := task.Params.Float("C")
	if h < 0 || h > maxIterations {
		return nil, fmt.Errorf("wl: iterations must be in [0, %d], got %d", maxIterations, h)
	}
	if !(cost > 0) || math.IsInf(cost, 0) {
		return nil, fmt.Errorf("wl: C must be positive and finite, got %v", cost)
	}
	if _, err := Normalize(nil, norm); err != nil {
		return nil, fmt.Errorf("wl: %w", err)
	}
	if task.NumKnown < 1 {
		return nil, fmt.Errorf("wl: need at least one known class, got %d", task.NumKnown)
	}
	if len(task.Labelled) != len(task.Labels) {
		return nil, fmt.Errorf("wl: %d labelled graphs but %d labels", len(task.Labelled), len(task.Labels))
	}
	if len(task.Labelled) == 0 {
		return nil, fmt.Errorf("wl: no labelled graphs")
	}
	for _, idx := range [][]int{task.Labelled, task.Eval} {
		for _, g := range idx {
			if g < 0 || g >= len(task.Graphs) {
				return nil, fmt.Errorf("wl: graph index %d out of range [0, %d)", g, len(task.Graphs))
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	fm, err := cache.Get(task.Dataset, task.Graphs, h)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pick := func(idx []int) []SparseVector {
		rows := make([]SparseVector, len(idx))
		for k, g := range idx {
			rows[k] = fm.Rows[g]
		}
		return rows
	}
	train, err := Normalize(pick(task.Labelled), norm)
	if err != nil {
		return nil, err
	}
	eval, err := Normalize(pick(task.Eval), norm)
	if err != nil {
		return nil, err
	}

	train, eval, dim := restrictToTrainFeatures(train, eval, fm.Dim)

	cfg := DefaultSVMConfig()
	cfg.C = cost
	model, err := TrainOneVsRest(ctx, train, task.Labels, task.NumKnown, dim, cfg, task.Seed)
	if err != nil {
		return nil, fmt.Errorf("wl: %w", err)
	}
	pred := &suite.Predictions{
		Class:        make([]int, len(eval)),
		UnknownScore: make([]float64, len(eval)),
	}
	for k, x := range eval {
		c, d := model.Predict(x)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("wl: non-finite decision value for graph %d", task.Eval[k])
		}
		pred.Class[k] = c
		pred.UnknownScore[k] = -d
	}
	return pred, nil
}

// restrictToTrainFeatures renumbers the features that occur in some
// training row densely (keeping their order) and drops the others from the
// evaluation rows. An SVM's weights w = Σ α_i y_i x_i are zero outside the
// training features, so decision values are unchanged, while the weight
// vectors shrink from the full WL dimension (millions on COLORS-3) to the
// training features, which keeps them in cache.
func restrictToTrainFeatures(train, eval []SparseVector, dim int) (trainOut, evalOut []SparseVector, newDim int) {
	remap := make([]int32, dim)
	for _, r := range train {
		for _, j := range r.Index {
			remap[j] = 1
		}
	}
	for j, used := range remap {
		if used != 0 {
			remap[j] = int32(newDim)
			newDim++
		} else {
			remap[j] = -1
		}
	}
	apply := func(rows []SparseVector) []SparseVector {
		out := make([]SparseVector, len(rows))
		for i, r := range rows {
			var v SparseVector
			for k, j := range r.Index {
				if m := remap[j]; m >= 0 {
					v.Index = append(v.Index, m)
					v.Value = append(v.Value, r.Value[k])
				}
			}
			out[i] = v
		}
		return out
	}
	return apply(train), apply(eval), newDim
}
