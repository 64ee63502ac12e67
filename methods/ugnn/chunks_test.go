package ugnn

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestChunkedStepsMatchUnchunked: splitting batches into size chunks
// (size_chunks) changes neither the warm-up loss nor the prototype-aware
// step's losses and momentum-updated prototypes (same seed, same weights,
// same data), up to float32 summation order.
func TestChunkedStepsMatchUnchunked(t *testing.T) {
	lt := newLetterTask(t)
	type outcome struct {
		warm   map[string]float64
		semi   map[string]float64
		protos [][]float32
	}
	run1 := func(chunks int) outcome {
		params := lt.params(1)
		params["size_chunks"], params["batch_size"] = chunks, 64
		var reported [][]int
		task := lt.task(params, 1, &reported)
		task.Labelled, task.Labels = task.Labelled[:64], task.Labels[:64]
		task.Unlabelled = task.Unlabelled[:64]
		cfg, err := configFrom(params, lt.numKnown)
		if err != nil {
			t.Fatal(err)
		}
		var o outcome
		for _, phase := range []string{"warm", "semi"} {
			r, err := newRun(task, cfg, Variants[0]) // fresh, identically initialised network
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			if phase == "warm" {
				o.warm, err = r.labelledEpoch(context.Background(), rng, 1<<30)
			} else {
				o.protos = make([][]float32, 13)
				for c := range o.protos {
					o.protos[c] = make([]float32, 2*cfg.Hidden)
					for k := range o.protos[c] {
						o.protos[c][k] = float32((c*31+k*7)%11) - 5
					}
					normalize(o.protos[c])
				}
				o.semi, err = r.semiEpoch(context.Background(), rng, o.protos, 1<<30)
			}
			r.net.close()
			if err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	whole, split := run1(1), run1(3)
	if !(whole.warm["loss"] > 0) || !(whole.semi["loss_u"] > 0) || !(whole.semi["loss_ce"] > 0) {
		t.Fatalf("steps did not run: warm %v, semi %v", whole.warm, whole.semi)
	}
	for _, k := range []string{"loss", "loss_ce"} {
		if !near(whole.warm[k], split.warm[k], 1e-4) {
			t.Errorf("warm-up %s: unchunked %v, chunked %v", k, whole.warm[k], split.warm[k])
		}
	}
	for _, k := range []string{"loss", "loss_ce", "loss_u"} {
		if !near(whole.semi[k], split.semi[k], 1e-4) {
			t.Errorf("semi step %s: unchunked %v, chunked %v", k, whole.semi[k], split.semi[k])
		}
	}
	for c := range whole.protos {
		for k := range whole.protos[c] {
			if !near(float64(whole.protos[c][k]), float64(split.protos[c][k]), 1e-5) {
				t.Fatalf("prototype %d[%d]: unchunked %v, chunked %v", c, k, whole.protos[c][k], split.protos[c][k])
			}
		}
	}
}
