package gnn

import (
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Predictor is a prediction executable (a graph not marked as training)
// that always reads the model's current weights.
//
// GoMLX (≥ v0.28.13) embeds the variables of a graph not marked as
// training as constants when the backend prefers it, which the pure-Go
// backend of compute ≥ v0.1.11 does (Capabilities.PreferConstantsForVariables):
// a prediction executable compiled before training ends keeps predicting
// with the weights of its compilation. A Predictor therefore drops its
// compiled graphs when told the weights changed (WeightsChanged) and
// recompiles on the next Exec, for the shapes then used.
type Predictor struct {
	backend compute.Backend
	store   *model.Store
	fn      func(scope *model.Scope, in []*Node) []*Node
	exec    *model.Exec
}

// NewPredictor returns a Predictor of fn (inputs → outputs, as for
// model.NewExec) over store's variables. Nothing compiles before Exec.
func NewPredictor(backend compute.Backend, store *model.Store, fn func(scope *model.Scope, in []*Node) []*Node) *Predictor {
	return &Predictor{backend: backend, store: store, fn: fn}
}

// WeightsChanged tells p that a training step or a checkpoint load changed
// the variables: the next Exec recompiles.
func (p *Predictor) WeightsChanged() {
	if p.exec != nil {
		p.exec.Finalize()
		p.exec = nil
	}
}

// Exec runs the prediction graph on args with the current weights,
// compiling it first if needed (one compiled graph per input shape).
func (p *Predictor) Exec(args ...any) ([]*tensors.Tensor, error) {
	if p.exec == nil {
		e, err := model.NewExec(p.backend, p.store, p.fn)
		if err != nil {
			return nil, err
		}
		e.SetMaxCache(-1)
		p.exec = e
	}
	return p.exec.Exec(args...)
}

// Finalize releases the compiled graphs.
func (p *Predictor) Finalize() { p.WeightsChanged() }
