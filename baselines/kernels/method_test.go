package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

type nopLogger struct{}

func (nopLogger) Epoch(int, int, map[string]float64) {}

func TestRegistered(t *testing.T) {
	for name, want := range map[string]suite.Params{
		"wl": {"iterations": 5, "norm": "l2", "C": 1.0},
		"sp": {"norm": "l2", "C": 1.0},
		"graphlet": {"exact_threshold": 4_000_000, "samples": 10715, "sampling_seed": 0,
			"norm": "l2", "C": 1.0},
	} {
		m, err := suite.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m.Defaults(), want) {
			t.Errorf("%s: Defaults = %v, want %v", name, m.Defaults(), want)
		}
		if m.Name() != name || m.Doc() == "" {
			t.Errorf("%s: Name %q, Doc %q", name, m.Name(), m.Doc())
		}
	}
}

// toyTask: known classes 0 = paths, 1 = stars, 2 = cycles, and unknown
// graphs = cliques, of 5..12 nodes; every third known graph is labelled.
func toyTask(params suite.Params) (*suite.Task, []int) {
	var graphs []datasets.Graph
	var truth []int
	for n := 5; n <= 12; n++ {
		for c, edges := range [][][2]int{path(n), star(n), cycle(n), clique(n)} {
			graphs = append(graphs, mkGraph(n, edges, nil))
			truth = append(truth, c)
		}
	}
	task := &suite.Task{Graphs: graphs, NumKnown: 3, Params: params, Seed: 3, Log: nopLogger{}, Dataset: "toy-shapes"}
	for i, c := range truth {
		if c < 3 && i%3 == 0 {
			task.Labelled = append(task.Labelled, i)
			task.Labels = append(task.Labels, c)
		} else {
			task.Eval = append(task.Eval, i)
		}
	}
	task.Unlabelled = task.Eval
	return task, truth
}

func TestFitToy(t *testing.T) {
	task, truth := toyTask(WL{}.Defaults())
	pred, err := WL{}.Fit(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if len(pred.Class) != len(task.Eval) || len(pred.UnknownScore) != len(task.Eval) {
		t.Fatalf("lengths %d, %d, want %d", len(pred.Class), len(pred.UnknownScore), len(task.Eval))
	}
	correct, known := 0, 0
	for k, g := range task.Eval {
		if truth[g] < 3 {
			known++
			if pred.Class[k] == truth[g] {
				correct++
			}
		}
	}
	if correct != known {
		t.Errorf("toy accuracy %d/%d, want all", correct, known)
	}
	// Same seed, same predictions (the second Fit hits the feature cache).
	again, err := WL{}.Fit(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pred, again) {
		t.Error("Fit is not deterministic given the seed")
	}
}

func TestFitErrors(t *testing.T) {
	for _, p := range []suite.Params{
		{"iterations": -1, "norm": "l2", "C": 1.0},
		{"iterations": 5, "norm": "max", "C": 1.0},
		{"iterations": 5, "norm": "l2", "C": 0.0},
	} {
		task, _ := toyTask(p)
		if _, err := (WL{}).Fit(context.Background(), task); err == nil {
			t.Errorf("params %v: no error", p.Summary())
		}
	}
	task, _ := toyTask(WL{}.Defaults())
	task.Labels[0] = 3
	if _, err := (WL{}).Fit(context.Background(), task); err == nil {
		t.Error("label ≥ NumKnown: no error")
	}
	task, _ = toyTask(WL{}.Defaults())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (WL{}).Fit(ctx, task); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// letterHighTask is a task on Letter-high: classes 0..9 known, 20% of
// each labelled (seeded), everything else evaluated.
func letterHighTask(t *testing.T, params suite.Params) (*suite.Task, *datasets.Dataset) {
	ds := datasetstest.Load(t, "Letter-high")
	const known = 10
	r := rand.New(rand.NewPCG(1, 0))
	byClass := make([][]int, ds.NumClasses)
	for i, c := range ds.Labels {
		byClass[c] = append(byClass[c], i)
	}
	isLabelled := make([]bool, len(ds.Graphs))
	task := &suite.Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumNodeLabels: ds.NumNodeLabels,
		NumKnown: known, Params: params, Seed: 1, Log: nopLogger{}, Dataset: ds.Name,
	}
	for c := range known {
		idx := byClass[c]
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, g := range idx[:max(1, len(idx)/5)] {
			isLabelled[g] = true
		}
	}
	for g := range ds.Graphs {
		if isLabelled[g] {
			task.Labelled = append(task.Labelled, g)
			task.Labels = append(task.Labels, ds.Labels[g])
		} else {
			task.Eval = append(task.Eval, g)
		}
	}
	task.Unlabelled = task.Eval
	return task, ds
}

// TestFitLetterHigh runs wl, sp and graphlet end to end on Letter-high.
// wl must beat chance clearly; sp and graphlet (the paper's accuracy 0.13
// to 0.16 on Letter-high, against wl's 0.44) must return well-formed
// predictions and beat chance on the known classes.
func TestFitLetterHigh(t *testing.T) {
	for _, m := range []suite.Method{WL{}, SP{}, Graphlet{}} {
		t.Run(m.Name(), func(t *testing.T) {
			task, ds := letterHighTask(t, m.Defaults())
			known := task.NumKnown
			pred, err := m.Fit(context.Background(), task)
			if err != nil {
				t.Fatal(err)
			}
			if len(pred.Class) != len(task.Eval) || len(pred.UnknownScore) != len(task.Eval) {
				t.Fatalf("lengths %d, %d, want %d", len(pred.Class), len(pred.UnknownScore), len(task.Eval))
			}
			correct, n := 0, 0
			var knownScore, unknownScore float64
			for k, g := range task.Eval {
				if c := pred.Class[k]; c < 0 || c >= known {
					t.Fatalf("class %d outside [0, %d)", c, known)
				}
				if s := pred.UnknownScore[k]; math.IsNaN(s) || math.IsInf(s, 0) {
					t.Fatalf("non-finite unknown score %v", s)
				}
				if ds.Labels[g] < known {
					n++
					knownScore += pred.UnknownScore[k]
					if pred.Class[k] == ds.Labels[g] {
						correct++
					}
				} else {
					unknownScore += pred.UnknownScore[k]
				}
			}
			acc := float64(correct) / float64(n)
			t.Logf("%s on Letter-high: %d labelled, %d eval; known-class accuracy %.3f (%d/%d); mean unknown score known %.3f, unknown %.3f",
				m.Name(), len(task.Labelled), len(task.Eval), acc, correct, n,
				knownScore/float64(n), unknownScore/float64(len(task.Eval)-n))
			floor := 0.15
			if m.Name() == "wl" {
				floor = 0.3
			}
			if acc <= floor {
				t.Errorf("known-class accuracy %.3f, want > %.2f (chance 0.1)", acc, floor)
			}
		})
	}
}

// BenchmarkFeatureMaps times each kernel's feature map over a whole dataset
// (uncached), with the methods' default parameters.
func BenchmarkFeatureMaps(b *testing.B) {
	for _, k := range []*FeatureKernel{wlKernel, spKernel, graphletKernel} {
		for _, name := range []string{"Letter-high", "COIL-DEL", "COLORS-3"} {
			b.Run(k.Name+"/"+name, func(b *testing.B) {
				ds := datasetstest.Load(b, name)
				for b.Loop() {
					if _, err := k.Compute(ds.Graphs, k.Params.Defaults()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
