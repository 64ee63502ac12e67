package gnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

// BenchmarkASAPFitnessGate measures, rather than times, ASAP's fitness
// gate φ = σ(LEConv(h^c)) inside gin-asap (the row's defaults: GIN, ρ 0.8,
// hidden 128, 2 layers per stage, attention dropout 0.1, batch 64 in 3
// size chunks, Adam 1e-3) on COIL-DEL's low-ratio split 0, run seeds 0–2,
// trained exactly as gnn.FitSupervised trains it (same initialisation and
// batch order, so epoch 1's loss is the stored run's). On the first 64
// labelled graphs, before training and after epochs 1, 2, 5 and 20, it
// reports per seed:
//
//   - logit_mean_eE: the mean fitness logit log(φ/(1−φ)) over real nodes
//     (φ clamped to [1e-30, 1−1e-7], so −69 means φ underflowed to 0);
//   - closed_eE: the share of kept clusters whose gate φ < 1e-3, i.e.
//     whose features reach the second stage multiplied by less than 1e-3
//     and whose gate has no gradient left (σ′ ≈ φ);
//   - open_eE: the share of real nodes whose φ > 0.999;
//   - loss_eE: the epoch's mean training cross-entropy.
//
// docs/methods.md ("ASAP's fitness gate") has its figures. Run:
// go test ./methods/gnn -run XXX -bench ASAPFitnessGate -benchtime 1x
// (about 2 minutes a seed on a 2-core machine).
func BenchmarkASAPFitnessGate(b *testing.B) {
	ds := datasetstest.Load(b, "COIL-DEL")
	for _, seed := range []int64{0, 1, 2} {
		b.Run(fmt.Sprintf("seed=%d", seed), func(b *testing.B) {
			for range b.N {
				asapGateProbe(b, ds, seed)
			}
		})
	}
}

// asapGateProbe trains gin-asap on d's low-ratio split 0 with run seed
// seed for 20 epochs and reports BenchmarkASAPFitnessGate's metrics.
func asapGateProbe(b *testing.B, d *datasets.Dataset, seed int64) {
	b.Helper()
	name, ratio, err := datasets.ResolveRatio("COIL-DEL", "low")
	if err != nil {
		b.Fatal(err)
	}
	spec := suite.RunSpec{Method: "gin-asap", Dataset: "COIL-DEL", RatioName: name, Ratio: ratio, Seed: seed, Protocol: suite.DefaultProtocol()}
	split, err := suite.MakeSplit(d, spec)
	if err != nil {
		b.Fatal(err)
	}
	task := suite.NewTask(d, split, spec, nil)
	// The shared parameters' defaults, as the row declares them; its
	// att_dropout (0.1) is declared in baselines/supervised, which imports
	// this package.
	p := suite.Declare(ParamBatchSize, ParamLR, ParamHidden, ParamLayers, ParamPoolRatio, ParamSizeChunks).Defaults()
	enc := EncoderConfig{Conv: ConvGIN, Pool: PoolASAP, Hidden: ParamHidden.Get(p), LayersPerStage: ParamLayers.Get(p),
		PoolRatio: ParamPoolRatio.Get(p), ASAPDropout: 0.1, ASAPEdges: NewEdgeBudget(task.Graphs)}
	c, err := NewClassifier(task, SupervisedConfig{Encoder: enc, BatchSize: ParamBatchSize.Get(p), LR: ParamLR.Get(p),
		Batching: BatchingRandom, Chunks: ParamSizeChunks.Get(p), Layout: LayoutAuto})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// The first stage and the pool of Encode, outputs: φ [B, N], the mask
	// [B, N] and the kept clusters [B, N] (Selectᵀ·1).
	probe, err := c.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		s := scope.At("encoder")
		h := in[0]
		for l := 0; l < enc.LayersPerStage; l++ {
			h = enc.conv(s.In("conv1_%d", l), h, in[1], in[2])
		}
		a := ASAPool(s.In("pool"), h, in[1], in[2], enc.PoolRatio, ASAPOptions{Edges: enc.ASAPEdges})
		return []*Node{a.Fitness, in[2], ReduceSum(a.Select, 1)}
	})
	if err != nil {
		b.Fatal(err)
	}
	in, _, _ := c.batchArgs(task.Labelled[:64])
	measure := func(epoch int) {
		out, err := probe.Exec(in...)
		if err != nil {
			b.Fatal(err)
		}
		fit := tensors.MustCopyFlatData[float32](out[0])
		mask := tensors.MustCopyFlatData[float32](out[1])
		kept := tensors.MustCopyFlatData[float32](out[2])
		var sum float64
		var n, open, k, closed int
		for i, m := range mask {
			if m == 0 {
				continue
			}
			f := math.Min(math.Max(float64(fit[i]), 1e-30), 1-1e-7)
			sum += math.Log(f / (1 - f))
			n++
			if f > 0.999 {
				open++
			}
			if kept[i] > 0 {
				k++
				if f < 1e-3 {
					closed++
				}
			}
		}
		b.ReportMetric(sum/float64(n), fmt.Sprintf("logit_mean_e%d", epoch))
		b.ReportMetric(float64(closed)/float64(k), fmt.Sprintf("closed_e%d", epoch))
		b.ReportMetric(float64(open)/float64(n), fmt.Sprintf("open_e%d", epoch))
	}
	measure(0)
	rng := rand.New(NewPCG(seed, StreamBatches))
	for e := 1; e <= 20; e++ {
		loss, err := c.TrainEpoch(context.Background(), rng)
		if err != nil {
			b.Fatal(err)
		}
		if e == 1 || e == 2 || e == 5 || e == 20 {
			measure(e)
			b.ReportMetric(loss, fmt.Sprintf("loss_e%d", e))
		}
	}
}
