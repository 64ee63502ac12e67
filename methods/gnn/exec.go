package gnn

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Execs compiles a run's executables — training steps (Step) and
// inference graphs (Infer: predictions, scores) — over one store of
// variables, and releases them together.
//
// It is the one place that works around GoMLX's constant variables:
// GoMLX (≥ v0.28.13) embeds the variables of a graph not marked as
// training as constants when the backend prefers it, which the pure-Go
// backend of compute ≥ v0.1.11 does (Capabilities.PreferConstantsForVariables),
// so an inference executable compiled before training ends would keep
// predicting with the weights of its compilation, and an optimizer in
// such a graph would update variables that its next run never reads
// (docs/speed.md). Execs marks every graph it compiles as training
// (model.Store.SetTraining) before the graph function reads a variable,
// so every run reads the current variables; an inference graph is marked
// as such besides (IsInference), and the layers that behave differently
// while training, ASAP's attention dropout and BatchNorm (batch or running
// statistics), read that mark instead. Every other layer of the repository
// computes the same function in training and inference.
type Execs struct {
	backend compute.Backend
	store   *model.Store
	list    []*model.Exec
}

// graphParamInference is the graph parameter that marks a graph compiled
// by Execs.Infer (IsInference).
const graphParamInference = model.ScopeSeparator + "ugbench_inference"

// NewExecs returns an Execs compiling over store's variables on backend.
func NewExecs(backend compute.Backend, store *model.Store) *Execs {
	return &Execs{backend: backend, store: store}
}

// Step returns the executable of a training step fn (inputs → outputs,
// as for model.NewExec; fn adds the optimizer's update), every input
// shape compiled once and cached. Nothing compiles before its first Exec.
func (e *Execs) Step(fn func(scope *model.Scope, in []*Node) []*Node) (*model.Exec, error) {
	return e.compile(fn, false)
}

// Infer returns the executable of an inference graph fn (no dropout:
// IsInference), which reads the current variables at every run; every
// input shape is compiled once and cached.
func (e *Execs) Infer(fn func(scope *model.Scope, in []*Node) []*Node) (*model.Exec, error) {
	return e.compile(fn, true)
}

func (e *Execs) compile(fn func(scope *model.Scope, in []*Node) []*Node, inference bool) (*model.Exec, error) {
	x, err := model.NewExec(e.backend, e.store, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		e.store.SetTraining(g, true) // variables as parameters (see Execs)
		if inference {
			model.SetGraphParam(g, graphParamInference, true)
		}
		return fn(scope, in)
	})
	if err != nil {
		return nil, err
	}
	x.SetMaxCache(-1)
	e.list = append(e.list, x)
	return x, nil
}

// IsInference reports whether g was compiled by Execs.Infer: a layer with
// a training-only behaviour (dropout, BatchNorm's batch statistics) must
// check it besides GoMLX's training mark, which Execs sets on every graph.
func IsInference(g *Graph) bool {
	v, _ := model.GetGraphParam(g, graphParamInference)
	b, _ := v.(bool)
	return b
}

// Close releases every executable compiled so far (the backend is shared).
func (e *Execs) Close() {
	for _, x := range e.list {
		x.Finalize()
	}
	e.list = nil
}

// CheckedScalar reads an executable's scalar float32 output t (a loss or one of
// its terms, shape [] or [1]) as a float64 and fails on NaN or ±Inf with
// the error "<what> is <v>". The value is returned with the error too, for
// callers that only log a term.
func CheckedScalar(t *tensors.Tensor, what string) (float64, error) {
	v := float64(tensors.MustCopyFlatData[float32](t)[0])
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v, fmt.Errorf("%s is %v", what, v)
	}
	return v, nil
}
