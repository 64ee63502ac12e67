package gnn

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPredictionReadsCurrentWeights: predicting between training epochs
// neither freezes the prediction graph at the weights of its compilation
// (GoMLX embeds a non-training graph's variables as constants on the
// pure-Go backend) nor changes training: a classifier that predicts after
// epoch 1 and again after epoch 2 ends with exactly the logits of one
// that only predicts after epoch 2, and its two predictions differ.
func TestPredictionReadsCurrentWeights(t *testing.T) {
	task := protocolTask(t, "Letter-high", "low", nil)
	cfg := SupervisedConfig{Encoder: EncoderConfig{Conv: ConvGIN, Pool: PoolTopK, Hidden: 16, LayersPerStage: 1, PoolRatio: 0.8},
		Steps: 1, BatchSize: 32, LR: 0.01}
	eval := task.Unlabelled[:64]
	run := func(predictBetween bool) (first, last [][]float32) {
		c, err := NewClassifier(task, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rng := rand.New(rand.NewPCG(3, 4))
		ctx := context.Background()
		for ep := 0; ep < 2; ep++ {
			if _, err := c.TrainEpoch(ctx, rng); err != nil {
				t.Fatal(err)
			}
			if ep == 0 && predictBetween {
				if first, err = c.Logits(ctx, eval); err != nil {
					t.Fatal(err)
				}
			}
		}
		last, err = c.Logits(ctx, eval)
		if err != nil {
			t.Fatal(err)
		}
		return first, last
	}
	first, withBetween := run(true)
	_, without := run(false)
	for i := range without {
		if !slices.Equal(withBetween[i], without[i]) {
			t.Fatalf("graph %d: logits %v after predicting between epochs, %v without", eval[i], withBetween[i], without[i])
		}
	}
	same := 0
	for i := range first {
		if slices.Equal(first[i], withBetween[i]) {
			same++
		}
	}
	if same == len(first) {
		t.Error("the prediction after epoch 2 equals the one after epoch 1: stale weights")
	}
}
