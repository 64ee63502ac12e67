package gnn

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/internal/cputime"
	"github.com/ugbench/ugbench/suite"
)

// discardLog drops curves.
type discardLog struct{}

func (discardLog) Epoch(int, int, map[string]float64) {}

// protocolTask builds the protocol split task of a real dataset from
// $UGBENCH_DATA (docs/datasets.md), skipping the test if the data is absent.
func protocolTask(tb testing.TB, name, ratio string, params suite.Params) *suite.Task {
	tb.Helper()
	ds := datasetstest.Load(tb, name)
	info, _ := datasets.LookupInfo(name)
	_, r, err := datasets.ResolveRatio(name, ratio)
	if err != nil {
		tb.Fatal(err)
	}
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{Known: info.Known, Ratio: r, Seed: 0})
	if err != nil {
		tb.Fatal(err)
	}
	return &suite.Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumKnown: len(split.KnownClasses),
		Labelled: split.Labelled, Labels: split.LabelledY, Unlabelled: split.Unlabelled, Eval: split.Unlabelled,
		Params: params, Seed: 0, Backend: "go", Log: discardLog{}, Dataset: name,
	}
}

// BenchmarkTrainEpochCOILDEL measures one training epoch of gin-topk
// (defaults: hidden 128, 2 GIN layers per stage, TopK 0.8, batch 256, the
// default layout of ParamLayout) on COIL-DEL's low-ratio labelled set
// (1,600 graphs, 7 steps), with random (default) and size-bucketed
// batching.
func BenchmarkTrainEpochCOILDEL(b *testing.B) {
	for _, c := range []struct {
		name     string
		batching Batching
		chunks   int
	}{{"random", BatchingRandom, 1}, {"random-chunks3", BatchingRandom, 3}, {"size", BatchingSize, 1}} {
		b.Run(c.name, func(b *testing.B) { benchTrainEpoch(b, "COIL-DEL", c.batching, c.chunks) })
	}
}

func benchTrainEpoch(b *testing.B, dataset string, batching Batching, chunks int) {
	benchEpoch(b, dataset, EncoderConfig{Conv: ConvGIN}, batching, chunks)
}

// benchEpoch times TrainEpoch of a classifier with enc's conv and pool
// (hidden 128, 2 layers per stage, ρ 0.8, batch 256, ParamLayout's
// default; auto for a pooling without an edge-list path, as the rows
// declare) on dataset's low-ratio labelled set; the first epoch, which
// compiles, is outside the timer.
func benchEpoch(b *testing.B, dataset string, enc EncoderConfig, batching Batching, chunks int) {
	layout := Layout(ParamLayout.Spec().Default.(string))
	if !enc.SupportsEdges() {
		layout = LayoutAuto
	}
	benchTaskEpoch(b, protocolTask(b, dataset, "low", nil), enc, batching, chunks, 256, layout)
}

// benchTaskEpoch is benchEpoch on any task, batch size and layout.
func benchTaskEpoch(b *testing.B, task *suite.Task, enc EncoderConfig, batching Batching, chunks, batchSize int, layout Layout) {
	enc.Hidden, enc.LayersPerStage, enc.PoolRatio = 128, 2, 0.8
	if enc.Pool == PoolASAP {
		enc.ASAPEdges = NewEdgeBudget(task.Graphs)
	}
	c, err := NewClassifier(task, SupervisedConfig{
		Encoder: enc, Steps: 1, BatchSize: batchSize, LR: 1e-3, Batching: batching, Chunks: chunks, Layout: layout,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := c.TrainEpoch(context.Background(), rng); err != nil { // compile outside the timer
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		if _, err := c.TrainEpoch(context.Background(), rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(len(task.Labelled)), "graphs/epoch")
}

// cpuSeconds is the process's user + system CPU time so far
// (cputime.Seconds).
func cpuSeconds(tb testing.TB) float64 {
	s, err := cputime.Seconds()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
