package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
)

// TestPassMean: Pass weights every batch's loss by its graphs and leaves
// skipped (NaN) batches out.
func TestPassMean(t *testing.T) {
	losses := []float64{1, math.NaN(), 4}
	got, err := Pass(context.Background(), [][]int{{0, 1}, {2}, {3, 4, 5, 6}}, func(i int, _ []int) (float64, error) { return losses[i], nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := (1*2 + 4*4) / 6.0; got != want {
		t.Errorf("mean %v, want %v", got, want)
	}
}

// TestPassesBudget: 7 steps on 10 graphs in batches of 4 are passes of 3,
// 3 and 1 steps; a loop restored after the first pass takes the same
// batches as the rest of an uninterrupted one; a budget on no graphs is an
// error.
func TestPassesBudget(t *testing.T) {
	graphs := make([]datasets.Graph, 10)
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	run := func(from PassesAt, src *rand.PCG) (ats []PassesAt, steps [][]int) {
		p := Passes{Graphs: graphs, Idx: idx, Batch: 4, Steps: 7, Rand: rand.New(src),
			Step: func(_ int, b []int) (float64, error) { steps = append(steps, b); return 1, nil },
			End: func(at PassesAt, values map[string]float64) error {
				ats = append(ats, at)
				if values["loss"] != 1 {
					t.Errorf("pass %d: loss %v, want 1", at.Passes, values["loss"])
				}
				return nil
			}}
		if err := p.Run(context.Background(), from); err != nil {
			t.Fatal(err)
		}
		return ats, steps
	}
	ats, steps := run(PassesAt{}, rand.NewPCG(1, 2))
	if want := []PassesAt{{1, 3}, {2, 6}, {3, 7}}; !slices.Equal(ats, want) {
		t.Errorf("passes end at %v, want %v", ats, want)
	}
	src := rand.NewPCG(1, 2)
	if _, err := EpochBatches(graphs, idx, 4, BatchingRandom, rand.New(src)); err != nil { // the first pass's draws
		t.Fatal(err)
	}
	_, rest := run(PassesAt{Passes: 1, Steps: 3}, src)
	if !slices.EqualFunc(rest, steps[3:], slices.Equal) {
		t.Errorf("restored run's batches %v, want %v", rest, steps[3:])
	}
	empty := Passes{Steps: 1, Rand: rand.New(rand.NewPCG(1, 2))}
	if err := empty.Run(context.Background(), PassesAt{}); err == nil {
		t.Error("a budget on no graphs ran")
	}
}

// TestBySize: batches follow the sizes, ties in position order.
func TestBySize(t *testing.T) {
	sizes := []int{5, 1, 3, 1, 5}
	var got [][]int
	err := BySize(context.Background(), len(sizes), 2, func(i int) int { return sizes[i] }, func(pos []int) error {
		got = append(got, slices.Clone(pos))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{1, 3}, {2, 0}, {4}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches %v, want %v", got, want)
	}
}
