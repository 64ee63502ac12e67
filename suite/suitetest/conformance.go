package suitetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// tinyBudget are small values of shared hyper-parameters, applied to
// every method that has them, so that a conformance check of one method
// takes seconds on Letter-high.
var tinyBudget = suite.Params{
	"steps": 6, "hidden": 16, "batch_size": 32, "unlabelled_batch_size": 64,
	"pretrain_epochs": 1, "cycles": 2, "kmeans_iters": 5, "subgraphs": 2,
	"candidates": 5, "iterations": 2, "curve_every": 0,
}

// TinyParams are m's defaults with the shared budget parameters it has set
// to small values (steps, hidden, pretraining epochs, …): what a
// conformance check runs.
func TinyParams(m suite.Method) suite.Params {
	p := m.Defaults().Clone()
	for k, v := range tinyBudget {
		if _, ok := p[k]; ok {
			p[k] = v
		}
	}
	return p
}

// CheckMethod is the conformance check every registered method must pass
// (benchopt's per-solver tests play this role there), on ds (Letter-high
// in the suite's tests) at the low labelled ratio, split seed 0, run seed
// 1, with TinyParams:
//
//   - aligned outputs: one class in 0..NumKnown−1 and one finite unknown
//     score per evaluation graph; logits [len(Eval)][NumKnown] and
//     embeddings [len(Eval)][d] when handed over, with their D^l
//     counterparts [len(Labelled)][·];
//   - deterministic for a seed: a second run predicts the same classes and
//     scores, bit for bit;
//   - blind to the test set's labels: a run on a copy of the dataset whose
//     test graphs' labels are shuffled, with the same split, predicts the
//     same (the Task carries no test label, and nothing else may leak one);
//   - cancellable: Fit with a context cancelled after its first epoch
//     returns the context's error within a few seconds.
func CheckMethod(t *testing.T, ds *datasets.Dataset, name string) {
	t.Helper()
	m, err := suite.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Conformance(ds, m)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", name, p)
	}
}

// Conformance runs CheckMethod's checks of m on ds and returns what it
// found wrong, one sentence each; err is a failed run (which ends the
// checks).
func Conformance(ds *datasets.Dataset, m suite.Method) (problems []string, err error) {
	name := m.Name()
	info, ok := datasets.LookupInfo(ds.Name)
	if !ok {
		return nil, fmt.Errorf("dataset %s has no protocol entry", ds.Name)
	}
	spec := suite.RunSpec{Method: name, Dataset: ds.Name, RatioName: "low", Ratio: info.Low, Seed: 1, Protocol: suite.DefaultProtocol()}
	split, err := suite.MakeSplit(ds, spec)
	if err != nil {
		return nil, err
	}
	params := TinyParams(m)
	fit := func(ctx context.Context, ds *datasets.Dataset, log suite.Logger) (*suite.Predictions, *suite.Task, error) {
		task := suite.NewTask(ds, split, spec, params)
		task.Device, task.Backend, task.Log = "cpu", "go", log
		p, err := m.Fit(ctx, task)
		return p, task, err
	}
	first, task, err := fit(context.Background(), ds, nopLog{})
	if err != nil {
		return nil, err
	}
	if err := checkAligned(first, task); err != nil {
		problems = append(problems, err.Error())
	}

	again, _, err := fit(context.Background(), ds, nopLog{})
	if err != nil {
		return problems, fmt.Errorf("second run: %w", err)
	}
	if !slices.Equal(again.Class, first.Class) || !slices.Equal(again.UnknownScore, first.UnknownScore) {
		problems = append(problems, "two runs of one seed predict differently")
	}

	blind := *ds
	blind.Labels = slices.Clone(ds.Labels)
	rng := rand.New(rand.NewPCG(7, 7))
	test := split.Test
	for i := len(test) - 1; i > 0; i-- { // shuffle the test graphs' labels among themselves
		j := rng.IntN(i + 1)
		blind.Labels[test[i]], blind.Labels[test[j]] = blind.Labels[test[j]], blind.Labels[test[i]]
	}
	for i := range test { // and make some of them classes no graph has
		if i%3 == 0 {
			blind.Labels[test[i]] = ds.NumClasses + 5
		}
	}
	shuffled, _, err := fit(context.Background(), &blind, nopLog{})
	if err != nil {
		return problems, fmt.Errorf("run with the test labels changed: %w", err)
	}
	if !slices.Equal(shuffled.Class, first.Class) || !slices.Equal(shuffled.UnknownScore, first.UnknownScore) {
		problems = append(problems, "predictions change with the test graphs' labels")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	cl := &cancelLog{cancel: cancel}
	_, _, err = fit(ctx, ds, cl)
	switch {
	case err == nil && cl.fired:
		problems = append(problems, "cancelled after its first epoch, it ran to the end")
	case err == nil:
		// A method that logs no epoch (the kernels) cannot be cancelled
		// in between; it must still finish.
	case !errors.Is(err, context.Canceled):
		problems = append(problems, fmt.Sprintf("cancelled after its first epoch: %v, want context.Canceled", err))
	case time.Since(start) > time.Minute:
		problems = append(problems, fmt.Sprintf("took %v to stop after cancellation", time.Since(start)))
	}
	return problems, nil
}

// checkAligned checks the shapes of p against task (see CheckMethod).
func checkAligned(p *suite.Predictions, task *suite.Task) error {
	n, l := len(task.Eval), len(task.Labelled)
	if len(p.Class) != n || len(p.UnknownScore) != n {
		return fmt.Errorf("%d classes and %d scores for %d evaluation graphs", len(p.Class), len(p.UnknownScore), n)
	}
	for i, c := range p.Class {
		if c < 0 || c >= task.NumKnown {
			return fmt.Errorf("class %d of evaluation graph %d: want 0..%d", c, i, task.NumKnown-1)
		}
		if s := p.UnknownScore[i]; math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("unknown score %v of evaluation graph %d", s, i)
		}
	}
	for _, m := range []struct {
		name       string
		eval, lab  [][]float32
		fixedWidth int
	}{{"logits", p.Logits, p.LabelledLogits, task.NumKnown}, {"embeddings", p.Embeddings, p.LabelledEmbeddings, 0}} {
		if (m.eval == nil) != (m.lab == nil) {
			return fmt.Errorf("%s: of the evaluation graphs %v, of D^l %v: both or neither", m.name, m.eval != nil, m.lab != nil)
		}
		if m.eval == nil {
			continue
		}
		if len(m.eval) != n || len(m.lab) != l {
			return fmt.Errorf("%s: %d and %d rows for %d evaluation and %d labelled graphs", m.name, len(m.eval), len(m.lab), n, l)
		}
		w := m.fixedWidth
		if w == 0 {
			w = len(m.eval[0])
		}
		for i, row := range slices.Concat(m.eval, m.lab) {
			if len(row) != w || w == 0 {
				return fmt.Errorf("%s: row %d has width %d, want %d ≥ 1", m.name, i, len(row), w)
			}
		}
	}
	return nil
}

type nopLog struct{}

func (nopLog) Epoch(int, int, map[string]float64) {}

// cancelLog cancels its context at the first epoch.
type cancelLog struct {
	cancel context.CancelFunc
	fired  bool
}

func (c *cancelLog) Epoch(int, int, map[string]float64) { c.cancel(); c.fired = true }
