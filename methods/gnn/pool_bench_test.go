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

// BenchmarkTrainEpochSAGLayouts compares gin-sag's dense and edge-list
// layouts (one training epoch, as benchEpoch: batch 256, 3 size chunks) on
// the low-ratio labelled sets of Letter-high (≤ 9 nodes), COIL-DEL (≤ 77)
// and COLORS-3 (≤ 200): the measurement behind gin-sag's default layout.
func BenchmarkTrainEpochSAGLayouts(b *testing.B) {
	for _, ds := range []string{"Letter-high", "COIL-DEL", "COLORS-3"} {
		b.Run(ds, func(b *testing.B) {
			task := protocolTask(b, ds, "low", nil)
			for _, layout := range []Layout{LayoutDense, LayoutEdges} {
				b.Run(string(layout), func(b *testing.B) {
					benchTaskEpoch(b, task, EncoderConfig{Conv: ConvGIN, Pool: PoolSAG}, BatchingRandom, 3, 256, layout)
				})
			}
		})
	}
}
