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

// timedLog records the wall time of every logged epoch that carries key.
type timedLog struct {
	key   string
	last  time.Time
	times []float64
}

func (l *timedLog) Epoch(_, _ int, v map[string]float64) {
	now := time.Now()
	if _, ok := v[l.key]; ok {
		l.times = append(l.times, now.Sub(l.last).Seconds())
	}
	l.last = now
}

// coilTask is COIL-DEL's low-ratio task (split seed 0) cut to 256
// labelled and 512 unlabelled graphs, so that one epoch is a few steps:
// 4 labelled batches of 64 and 2 unlabelled batches of 256.
func coilTask(b *testing.B, method string, set suite.Params) *suite.Task {
	b.Helper()
	ds := datasetstest.Load(b, "COIL-DEL")
	info, _ := datasets.LookupInfo("COIL-DEL")
	_, r, err := datasets.ResolveRatio("COIL-DEL", "low")
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
		Eval: split.Unlabelled[:8], Params: p, Seed: 0, Backend: "go", Dataset: "COIL-DEL",
	}
}

// BenchmarkEpochCOILDEL times each method's costly epoch on COIL-DEL
// (graphs of 3–77 nodes), with every batch padded whole (chunks1, the
// layout before size_chunks) and as 3 size chunks (chunks3, the default):
// GraphCL's and RGCL's pretraining epoch over 768 graphs, InfoGraph's pass
// of 4 joint steps, GLA's pass (an unlabelled pass over 512 graphs and 4
// labelled steps). It reports s/epoch, the median over the epochs after
// the first (which compiles); the Fit around them (compilation,
// prediction) is not the figure; cpu-s/fit is the CPU time of a whole Fit
// (all threads, compilation and prediction included).
func BenchmarkEpochCOILDEL(b *testing.B) {
	for _, c := range []struct {
		method, key string
		set         suite.Params
	}{
		{"graphcl", "pretrain_loss", suite.Params{"pretrain_epochs": 4, "steps": 1}},
		{"rgcl", "pretrain_loss", suite.Params{"pretrain_epochs": 4, "steps": 1}},
		{"infograph", "loss", suite.Params{"steps": 16}},
		{"gla", "loss", suite.Params{"steps": 12}},
	} {
		for _, k := range []int{1, 3} {
			b.Run(c.method+"/chunks"+string(rune('0'+k)), func(b *testing.B) {
				var med []float64
				cpu0, _ := cputime.Seconds()
				for range b.N {
					set := suite.Params{"size_chunks": k}
					for key, v := range c.set {
						set[key] = v
					}
					task := coilTask(b, c.method, set)
					log := &timedLog{key: c.key, last: time.Now()}
					task.Log = log
					m, _ := suite.Lookup(c.method)
					if _, err := m.Fit(context.Background(), task); err != nil {
						b.Fatal(err)
					}
					t := slices.Sorted(slices.Values(log.times[1:]))
					med = append(med, t[len(t)/2])
				}
				slices.Sort(med)
				b.ReportMetric(med[len(med)/2], "s/epoch")
				cpu1, _ := cputime.Seconds()
				b.ReportMetric((cpu1-cpu0)/float64(b.N), "cpu-s/fit")
			})
		}
	}
}
