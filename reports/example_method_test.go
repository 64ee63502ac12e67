package reports_test

import (
	"context"
	"math"
	"os"
	"path/filepath"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// sizeNN is a whole method: it predicts the class of the labelled graph
// nearest in (nodes, edges) and scores a graph as unknown by its distance
// to it.
type sizeNN struct{}

// The registration line: the method and its row in the tables (a
// method outside the paper's families is FamilyOther, after them).
func init() {
	suite.Register(sizeNN{}, suite.Info{Row: "Size 1-NN", Family: suite.FamilyOther, Source: "docs/methods.md, Adding a method"})
}

func (sizeNN) Name() string { return "size-nn" }
func (sizeNN) Doc() string {
	return "1-nearest neighbour in (nodes, edges) among the labelled graphs; unknown score = its distance"
}
func (sizeNN) Defaults() suite.Params { return suite.Params{} }

func (sizeNN) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	pred := &suite.Predictions{Class: make([]int, len(task.Eval)), UnknownScore: make([]float64, len(task.Eval))}
	for i, g := range task.Eval {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a := task.Graphs[g]
		best := math.Inf(1)
		for j, l := range task.Labelled {
			b := task.Graphs[l]
			if d := math.Hypot(float64(a.NumNodes-b.NumNodes), float64(len(a.Src)-len(b.Src))); d < best {
				best, pred.Class[i] = d, task.Labels[j]
			}
		}
		pred.UnknownScore[i] = best
	}
	return pred, nil
}

// Example_addingAMethod runs sizeNN through a one-run grid (the embedded
// Letter-high, low ratio, seed 0) into a run database and shows it in the
// accuracy table, under its paper row name.
func Example_addingAMethod() {
	dir, err := os.MkdirTemp("", "ugbench-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	specs, err := suite.Expand(suite.GridConfig{Methods: []string{"size-nn"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low"}, Seeds: []int64{0}, Protocol: suite.DefaultProtocol()})
	if err != nil {
		panic(err)
	}
	store, err := runs.Open(filepath.Join(dir, "ugbench.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	sched := &suite.Scheduler{
		Runner: &suite.Runner{DataDir: dir, Backend: "go"}, // an empty data dir: the embedded Letter-high
		Store:  runs.Recorder{Store: store, Backend: "go"},
		Slots:  []suite.Slot{{Device: "cpu"}},
	}
	if _, err := sched.Run(context.Background(), specs); err != nil {
		panic(err)
	}
	rs, err := store.List(runs.Filter{})
	if err != nil {
		panic(err)
	}
	tbl := reports.AccuracyTable(rs, reports.Options{Names: reports.PaperNames(), Chance: true})
	if err := table.Render(os.Stdout, tbl, "md"); err != nil {
		panic(err)
	}
	// Output:
	// ### Classification accuracy
	//
	// Classification accuracy of different labelling ratios (mean ± sample std over seeds).
	//
	// | Method | Letter-high low |
	// | :--- | :---: |
	// | Size 1-NN | 0.333 (n=1) |
	// | chance | 0.169 |
}
