package semisup

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/internal/cputime"
	"github.com/ugbench/ugbench/suite"
)

// timedLog records the wall time and the process CPU time of every
// logged epoch that carries key.
type timedLog struct {
	key        string
	last       time.Time
	lastCPU    float64
	times, cpu []float64
}

func (l *timedLog) Epoch(_, _ int, v map[string]float64) {
	now := time.Now()
	cpu, _ := cputime.Seconds()
	if _, ok := v[l.key]; ok {
		l.times = append(l.times, now.Sub(l.last).Seconds())
		l.cpu = append(l.cpu, cpu-l.lastCPU)
	}
	l.last, l.lastCPU = now, cpu
}

// epochTask is dataset's low-ratio task (split seed 0) cut to 256
// labelled and 512 unlabelled graphs, so that one epoch is a few steps:
// 4 labelled batches of 64 and 2 unlabelled batches of 256.
func epochTask(b *testing.B, dataset, method string, set suite.Params) *suite.Task {
	b.Helper()
	ds := datasetstest.Load(b, dataset)
	info, _ := datasets.LookupInfo(dataset)
	_, r, err := datasets.ResolveRatio(dataset, "low")
	if err != nil {
		b.Fatal(err)
	}
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{Known: info.Known, Ratio: r, Seed: 0})
	if err != nil {
		b.Fatal(err)
	}
	m, err := suite.Lookup(method)
	if err != nil {
		b.Fatal(err)
	}
	p := m.Defaults()
	for k, v := range set {
		p[k] = v
	}
	nl := min(256, len(split.Labelled))
	return &suite.Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumKnown: len(split.KnownClasses),
		Labelled: split.Labelled[:nl], Labels: split.LabelledY[:nl], Unlabelled: split.Unlabelled[:min(512, len(split.Unlabelled))],
		Eval: split.Unlabelled[:8], Params: p, Seed: 0, Backend: "go", Dataset: dataset,
	}
}

// benchEpoch times method's epochs on dataset's epochTask with set: it
// reports s/epoch and cpu-s/epoch, the medians of the wall and the
// process CPU time over the logged epochs carrying key after the first
// (which compiles), and cpu-s/fit, the CPU time of a whole Fit (all
// threads, compilation and prediction included). Under load compare the
// CPU seconds: the wall time also counts the other processes' turns.
func benchEpoch(b *testing.B, dataset, method, key string, set suite.Params) {
	var wall, cpu []float64
	median := func(x []float64) float64 {
		t := slices.Sorted(slices.Values(x))
		return t[len(t)/2]
	}
	cpu0, _ := cputime.Seconds()
	for range b.N {
		task := epochTask(b, dataset, method, set)
		log := &timedLog{key: key, last: time.Now()}
		log.lastCPU, _ = cputime.Seconds()
		task.Log = log
		m, _ := suite.Lookup(method)
		if _, err := m.Fit(context.Background(), task); err != nil {
			b.Fatal(err)
		}
		if len(log.times) < 2 {
			b.Fatalf("%d epochs logged %s: need 2 (the first compiles)", len(log.times), key)
		}
		wall, cpu = append(wall, median(log.times[1:])), append(cpu, median(log.cpu[1:]))
	}
	b.ReportMetric(median(wall), "s/epoch")
	b.ReportMetric(median(cpu), "cpu-s/epoch")
	cpu1, _ := cputime.Seconds()
	b.ReportMetric((cpu1-cpu0)/float64(b.N), "cpu-s/fit")
}

// BenchmarkEpochCOILDEL times each method's costly epoch on COIL-DEL
// (graphs of 3–77 nodes), with every batch padded whole (chunks1, the
// layout before size_chunks) and as 3 size chunks (chunks3, the default):
// GraphCL's and RGCL's pretraining epoch over 768 graphs, InfoGraph's pass
// of 4 joint steps, GLA's pass (an unlabelled pass over 512 graphs and 4
// labelled steps); pretrain_step_cap 0, so that 1 step does not cap the
// 4 pretraining epochs to 1. It reports benchEpoch's figures (the Fit
// around the epochs, compilation and prediction, is only in cpu-s/fit).
func BenchmarkEpochCOILDEL(b *testing.B) {
	for _, c := range []struct {
		method, key string
		set         suite.Params
	}{
		{"graphcl", "pretrain_loss", suite.Params{"pretrain_epochs": 4, "pretrain_step_cap": 0, "steps": 1}},
		{"rgcl", "pretrain_loss", suite.Params{"pretrain_epochs": 4, "pretrain_step_cap": 0, "steps": 1}},
		{"infograph", "loss", suite.Params{"steps": 16}},
		{"gla", "loss", suite.Params{"steps": 12}},
	} {
		for _, k := range []int{1, 3} {
			b.Run(c.method+"/chunks"+string(rune('0'+k)), func(b *testing.B) {
				set := suite.Params{"size_chunks": k}
				for key, v := range c.set {
					set[key] = v
				}
				benchEpoch(b, "COIL-DEL", c.method, c.key, set)
			})
		}
	}
}

// BenchmarkEpochCOLORS3 times GraphCL's pretraining epoch (768 graphs × 2
// views, 3 size chunks a batch; 4 epochs, uncapped) on COLORS-3 (graphs
// of up to 200 nodes, where layout auto picks the edge list) in both
// layouts, dense and edges; benchEpoch's figures.
func BenchmarkEpochCOLORS3(b *testing.B) {
	for _, layout := range []string{"dense", "edges"} {
		b.Run("graphcl/"+layout, func(b *testing.B) {
			benchEpoch(b, "COLORS-3", "graphcl", "pretrain_loss", suite.Params{"pretrain_epochs": 4, "pretrain_step_cap": 0, "steps": 1, "layout": layout})
		})
	}
}
