package gnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// Trainer is the epoch bookkeeping that every GNN training loop of the
// repository shares (FitSupervised, baselines/semisup, methods/ugnn): it
// logs an epoch's values with the suite, reports the classes predicted for
// D^u as the curve du_closed_acc, and saves and restores the run's state
// (RunState, through Task.Resume). The methods keep their models, losses
// and step functions; Pass and Passes run the steps.
type Trainer struct {
	Task  *suite.Task
	Store *model.Store
	// State is the run's host state saved with Store (random generators,
	// counters, batches drawn ahead): register it before Restore.
	State RunState
	// Epoch is the number of epochs logged so far in the current phase
	// (a restored run sets it to the epochs it restored), Total the
	// number the phase logs (suite.Logger.Epoch's total).
	Epoch, Total int
	// CurveEvery, if > 0, reports the classes that Logits predicts for
	// D^u (MaxSoftmax) after every CurveEvery-th epoch and after epoch
	// Total (Task.ReportClasses); it does not change training.
	CurveEvery int
	// Logits returns the logits over known classes [len(idx)][NumKnown]
	// of the graphs idx with the current weights (needed if CurveEvery > 0).
	Logits func(ctx context.Context, idx []int) ([][]float32, error)
}

// EndEpoch counts one more epoch, logs its values (Task.Log.Epoch) and,
// when due (CurveEvery), reports the classes predicted for D^u.
func (t *Trainer) EndEpoch(ctx context.Context, values map[string]float64) error {
	t.Epoch++
	t.Task.Log.Epoch(t.Epoch, t.Total, values)
	if t.CurveEvery > 0 && (t.Epoch%t.CurveEvery == 0 || t.Epoch == t.Total) {
		logits, err := t.Logits(ctx, t.Task.Unlabelled)
		if err != nil {
			return err
		}
		return t.Task.ReportClasses(t.Epoch, t.Task.Unlabelled, MaxSoftmaxPredictions(logits).Class)
	}
	return nil
}

// Restore continues an interrupted run from its last save, if any
// (RunState.Restore): the store's variables, the registered host state and
// progress (a pointer); it reports whether there was a save.
func (t *Trainer) Restore(progress any) (bool, error) {
	return t.State.Restore(t.Task.Resume, t.Store, progress)
}

// Save stores the run's state with progress (JSON-encodable) if a save is
// due (RunState.Save); a failed save warns and training goes on.
func (t *Trainer) Save(progress any) {
	t.State.Save(t.Task.Resume, t.Store, progress)
}

// Pass runs step on batches in order, checking ctx before each, and
// returns the mean of the batches' losses weighted by their graph counts.
// step returns a batch's loss, or NaN for a batch it skipped (no optimizer
// step), which the mean leaves out. An error of step or ctx ends the pass.
func Pass(ctx context.Context, batches [][]int, step func(i int, idx []int) (float64, error)) (float64, error) {
	var sum float64
	count := 0
	for i, idx := range batches {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		loss, err := step(i, idx)
		if err != nil {
			return 0, err
		}
		if !math.IsNaN(loss) {
			sum += loss * float64(len(idx))
			count += len(idx)
		}
	}
	return sum / float64(max(count, 1)), nil
}

// PassesAt is where a Passes loop stands: passes (over its graphs) and
// optimizer steps done.
type PassesAt struct{ Passes, Steps int }

// Passes is a step budget spent in passes over a set of graphs, the loop
// of the supervised rows (FitSupervised), of the semi-supervised baselines'
// supervised part and of UGNN's warm-up: Steps optimizer steps on batches
// of Batch graphs of Idx, drawn pass after pass (EpochBatches with
// Batching and Rand), the last pass cut short — ⌈Steps/⌈|Idx|/Batch⌉⌉
// passes (EpochsFor).
type Passes struct {
	Graphs   []datasets.Graph
	Idx      []int
	Batch    int
	Batching Batching
	Steps    int
	Rand     *rand.Rand
	// Before, if set, runs at the start of every pass, before its batches
	// are drawn, and returns extra values to log for the pass.
	Before func(pass int) (map[string]float64, error)
	// Step takes one optimizer step on the graphs idx in pass and returns
	// the batch's loss, or NaN for a skipped step (counted in the budget,
	// left out of the pass's mean loss; see Pass).
	Step func(pass int, idx []int) (float64, error)
	// End runs after every pass with where the loop stands and the pass's
	// values: Before's, "loss" (the pass's mean, Pass) and "steps" (the
	// pass's steps).
	End func(at PassesAt, values map[string]float64) error
}

// Run spends the budget from at (the zero PassesAt, or where a restored
// run stopped). A step's error names the pass and the step; a budget on
// an empty Idx is an error.
func (p *Passes) Run(ctx context.Context, at PassesAt) error {
	if len(p.Idx) == 0 && at.Steps < p.Steps {
		return fmt.Errorf("%d steps to take on no graphs", p.Steps-at.Steps)
	}
	for pass := at.Passes + 1; at.Steps < p.Steps; pass++ {
		values := map[string]float64{}
		if p.Before != nil {
			extra, err := p.Before(pass)
			if err != nil {
				return fmt.Errorf("pass %d: %w", pass, err)
			}
			for k, v := range extra {
				values[k] = v
			}
		}
		batches, err := EpochBatches(p.Graphs, p.Idx, p.Batch, p.Batching, p.Rand)
		if err != nil {
			return err
		}
		batches = batches[:min(len(batches), p.Steps-at.Steps)]
		loss, err := Pass(ctx, batches, func(i int, idx []int) (float64, error) {
			loss, err := p.Step(pass, idx)
			if err != nil {
				return 0, fmt.Errorf("pass %d, step %d: %w", pass, at.Steps+i+1, err)
			}
			return loss, nil
		})
		if err != nil {
			return err
		}
		at = PassesAt{Passes: pass, Steps: at.Steps + len(batches)}
		values["loss"], values["steps"] = loss, float64(len(batches))
		if err := p.End(at, values); err != nil {
			return err
		}
	}
	return nil
}
