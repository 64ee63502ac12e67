package gnn

import (
	"context"
	"math/rand/v2"
	"testing"
)

// backboneRows are the supervised rows' encoders (baselines/supervised) at
// their defaults: hidden 128, two layers per stage, ρ = 0.8.
var backboneRows = []struct {
	name string
	enc  EncoderConfig
}{
	{"gin-topk", EncoderConfig{Conv: ConvGIN, Pool: PoolTopK}},
	{"gcn-topk", EncoderConfig{Conv: ConvGCN, Pool: PoolTopK}},
	{"sage-topk", EncoderConfig{Conv: ConvSAGE, Pool: PoolTopK}},
	{"gin-sag", EncoderConfig{Conv: ConvGIN, Pool: PoolSAG}},
	{"gin-asap", EncoderConfig{Conv: ConvGIN, Pool: PoolASAP, ASAPDropout: 0.1}},
}

// BenchmarkTrainEpochCOILDELRows measures one training epoch of every
// convolution and pooling row on COIL-DEL's low-ratio labelled set (1,600
// graphs, batch 256, random batching: 7 steps padded to N = 80).
func BenchmarkTrainEpochCOILDELRows(b *testing.B) {
	for _, row := range backboneRows {
		b.Run(row.name, func(b *testing.B) { benchRowEpoch(b, "COIL-DEL", row.enc) })
	}
}

// BenchmarkTrainEpochLetterASAPClusterMax compares ASAP's two ClusterMax
// paths on Letter-high, where the dense one is smallest (B·N·N·D =
// 256·12·12·128 = 4.7M floats).
func BenchmarkTrainEpochLetterASAPClusterMax(b *testing.B) {
	for _, c := range []struct {
		name  string
		limit int
	}{{"dense", 1 << 30}, {"edges", 0}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(old int) { DenseClusterMaxLimit = old }(DenseClusterMaxLimit)
			DenseClusterMaxLimit = c.limit
			benchRowEpoch(b, "Letter-high", EncoderConfig{Conv: ConvGIN, Pool: PoolASAP, ASAPDropout: 0.1})
		})
	}
}

func benchRowEpoch(b *testing.B, dataset string, enc EncoderConfig) {
	task := protocolTask(b, dataset, "low", nil)
	enc.Hidden, enc.LayersPerStage, enc.PoolRatio = 128, 2, 0.8
	if enc.Pool == PoolASAP {
		enc.ASAPEdges = NewEdgeBudget(task.Graphs)
	}
	c, err := NewClassifier(task, SupervisedConfig{Encoder: enc, Epochs: 1, BatchSize: 256, LR: 1e-3})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := c.TrainEpoch(context.Background(), rng); err != nil { // compile outside the timer
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.TrainEpoch(context.Background(), rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(task.Labelled)), "graphs/epoch")
}
