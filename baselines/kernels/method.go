package kernels

import (
	"context"
	"fmt"
	"math"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(WL{}, suite.Info{Row: "WL Kernel", Family: suite.FamilyKernel, Order: 1, Source: "Shervashidze et al. 2011"})
	suite.Register(SP{}, suite.Info{Row: "SP Kernel", Family: suite.FamilyKernel, Order: 2, Source: "Borgwardt & Kriegel 2005"})
	suite.Register(Graphlet{}, suite.Info{Row: "Graphlet Kernel", Family: suite.FamilyKernel, Order: 3, Source: "Shervashidze et al. 2009"})
}

// FeatureKernel is a graph kernel given by its explicit feature map: the
// part of a kernel + SVM method that differs between wl, sp and graphlet.
// The rest (normalisation, the one-vs-rest SVM, the unknown score and the
// feature cache) is shared; see FitKernel.
type FeatureKernel struct {
	// Name is the method's registry name: the prefix of its errors and
	// part of the feature cache key.
	Name string
	// Params declares the feature-map hyper-parameters: their defaults
	// and valid values, checked before anything is computed. All of them
	// are part of the feature cache key, and Compute receives exactly
	// these names.
	Params suite.ParamSet
	// Compute computes the feature map of graphs; p holds the names of
	// Params, with the task's values.
	Compute func(graphs []datasets.Graph, p suite.Params) (*FeatureMap, error)
}

// The classifier parameters that every kernel row shares.
var (
	paramNorm = suite.Enum("norm", "l2", "normalisation of the feature rows (l2 is GraKeL's normalize=True)", "l2", "l1", "none")
	paramC    = suite.Float("C", 1.0, suite.Positive, "cost C of the linear SVM")
)

// ParamSet declares the kernel's feature-map parameters plus the shared
// classifier parameters norm = "l2" and C = 1.
func (k *FeatureKernel) ParamSet() suite.ParamSet { return k.Params.With(paramNorm, paramC) }

// Defaults returns ParamSet's defaults.
func (k *FeatureKernel) Defaults() suite.Params { return k.ParamSet().Defaults() }

// featureParams picks the feature-map parameters out of params.
func (k *FeatureKernel) featureParams(params suite.Params) (suite.Params, error) {
	specs := k.Params.Specs()
	fp := make(suite.Params, len(specs))
	for _, sp := range specs {
		name := sp.Name
		v, ok := params[name]
		if !ok {
			return nil, fmt.Errorf("%s: parameter %q not set", k.Name, name)
		}
		fp[name] = v
	}
	return fp, nil
}

// FitKernel is the shared Fit of the kernel methods: it computes (or reuses
// from cache) kernel k's feature map of all task graphs, normalises the
// rows (parameter "norm": "l2", "l1" or "none"), trains a one-vs-rest
// linear SVM (TrainOneVsRest with DefaultSVMConfig and cost "C") on
// task.Labelled and predicts task.Eval: the class is the argmax decision
// value and the unknown score minus the max decision value (docs/protocol.md §3).
// It validates every parameter and the task before any work. The feature
// map is computed without ctx (it is shared by concurrent runs through the
// cache); ctx is checked before and after it and during SVM training.
func FitKernel(ctx context.Context, task *suite.Task, k *FeatureKernel, cache *FeatureCache) (*suite.Predictions, error) {
	fp, err := k.featureParams(task.Params)
	if err != nil {
		return nil, err
	}
	if err := k.ParamSet().Check(task.Params); err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	norm, cost := paramNorm.Get(task.Params), paramC.Get(task.Params)
	if task.NumKnown < 1 {
		return nil, fmt.Errorf("%s: need at least one known class, got %d", k.Name, task.NumKnown)
	}
	if len(task.Labelled) != len(task.Labels) {
		return nil, fmt.Errorf("%s: %d labelled graphs but %d labels", k.Name, len(task.Labelled), len(task.Labels))
	}
	if len(task.Labelled) == 0 {
		return nil, fmt.Errorf("%s: no labelled graphs", k.Name)
	}
	for _, idx := range [][]int{task.Labelled, task.Eval} {
		for _, g := range idx {
			if g < 0 || g >= len(task.Graphs) {
				return nil, fmt.Errorf("%s: graph index %d out of range [0, %d)", k.Name, g, len(task.Graphs))
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	fm, err := cache.Get(task.Dataset, task.Graphs, k, fp)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pick := func(idx []int) []SparseVector {
		rows := make([]SparseVector, len(idx))
		for i, g := range idx {
			rows[i] = fm.Rows[g]
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
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	pred := &suite.Predictions{
		Class:        make([]int, len(eval)),
		UnknownScore: make([]float64, len(eval)),
	}
	for i, x := range eval {
		c, d := model.Predict(x)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("%s: non-finite decision value for graph %d", k.Name, task.Eval[i])
		}
		pred.Class[i] = c
		pred.UnknownScore[i] = -d
	}
	// The one-vs-rest decision values are the kernel rows' logits for the
	// post-hoc scorers; they have no embedding.
	pred.Logits = decisionRows(model, eval)
	pred.LabelledLogits = decisionRows(model, train)
	return pred, nil
}

// decisionRows is model's decision values of every row, [len(rows)][C],
// rounded to float32 like a GNN's logits.
func decisionRows(model *OneVsRest, rows []SparseVector) [][]float32 {
	out := make([][]float32, len(rows))
	for i, x := range rows {
		d := model.Decisions(x)
		out[i] = make([]float32, len(d))
		for c, v := range d {
			out[i][c] = float32(v)
		}
	}
	return out
}

// maxIterations bounds the "iterations" hyper-parameter: past a few dozen
// iterations WL labels are unique per node and further ones only cost time.
const maxIterations = 50

// wlKernel is the WL subtree feature map with parameter "iterations" (h).
var wlKernel = &FeatureKernel{
	Name:   "wl",
	Params: suite.Declare(wlIterations),
	Compute: func(graphs []datasets.Graph, p suite.Params) (*FeatureMap, error) {
		return WLFeatures(graphs, wlIterations.Get(p))
	},
}

var wlIterations = suite.Int("iterations", 5, suite.Range{Min: 0, Max: maxIterations}, "WL iterations h (GraKeL's default 5)")

// WL is the paper's "WL Kernel" baseline: Weisfeiler-Lehman subtree features
// (Shervashidze et al., JMLR 2011; see WLFeatures) normalised per graph,
// then a one-vs-rest linear SVM (see TrainOneVsRest) trained on the
// labelled graphs. A linear SVM on explicit WL features is the kernel SVM on
// the WL subtree kernel, the sum over iterations of the label histogram dot
// products (GraKeL's WeisfeilerLehman with VertexHistogram base kernel).
// A graph's predicted class is the argmax decision value and its unknown
// score minus the max decision value (docs/protocol.md §3).
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
func (WL) Defaults() suite.Params { return wlKernel.Defaults() }

// ParamSet declares iterations, norm and C (suite.ParamSetter).
func (WL) ParamSet() suite.ParamSet { return wlKernel.ParamSet() }

// Fit computes (or reuses) the WL feature map of all task graphs, trains
// the one-vs-rest SVM on task.Labelled and predicts task.Eval.
func (WL) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return FitKernel(ctx, task, wlKernel, defaultCache)
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
