package gnn

import "testing"

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
// graphs, batch 256, random batches split into 3 size chunks as the rows
// do by default).
func BenchmarkTrainEpochCOILDELRows(b *testing.B) {
	for _, row := range backboneRows {
		b.Run(row.name, func(b *testing.B) { benchEpoch(b, "COIL-DEL", row.enc, BatchingRandom, 3) })
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
			benchEpoch(b, "Letter-high", EncoderConfig{Conv: ConvGIN, Pool: PoolASAP, ASAPDropout: 0.1, ASAPDenseClusterMax: c.limit}, BatchingRandom, 3)
		})
	}
}
