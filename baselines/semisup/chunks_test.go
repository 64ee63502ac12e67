package semisup

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestLayOneChunk: with size_chunks = 1 a batch is laid out as before
// size chunks existed (one padded batch in the batch's order, the layout of
// the runs stored without the parameter): Pos is 0…len−1 then padding,
// and the tensors are gnn.NewBatch's (dense layout).
func TestLayOneChunk(t *testing.T) {
	task := variedTask(t, "graphcl", suite.Params{"size_chunks": 1, "layout": "dense"})
	n, err := newNet(task)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	idx := []int{5, 1, 17, 3, 9}
	c := n.layOriginal(idx, n.plan(idx))
	want := gnn.NewBatch(task.Graphs, n.feats, idx, max(n.batch, n.ubatch))
	if !slices.Equal(c.Pos, []int{0, 1, 2, 3, 4, -1, -1, -1}) || len(c.In) != 3 {
		t.Fatalf("Pos %v, %d inputs; want one chunk of 8 slots in batch order", c.Pos, len(c.In))
	}
	x, a, m := want.Tensors()
	for i, w := range []*tensors.Tensor{x, a, m} {
		got := c.In[i].(*tensors.Tensor)
		if !got.Shape().Equal(w.Shape()) || !slices.Equal(tensors.MustCopyFlatData[float32](got), tensors.MustCopyFlatData[float32](w)) {
			t.Errorf("input %d differs from gnn.NewBatch's", i)
		}
	}
}

// TestLayChunks: size chunks sort the batch by original node count; every
// position appears once, each chunk pads to its own node bucket (dense
// layout), and the labels follow their graphs.
func TestLayChunks(t *testing.T) {
	task := variedTask(t, "graphcl", suite.Params{"layout": "dense"}) // size_chunks 3
	n, err := newNet(task)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	plan := n.plan(idx)
	if len(plan) != 3 || len(plan[0]) != 6 || len(plan[1]) != 3 || len(plan[2]) != 3 {
		t.Fatalf("plan %v: want chunks of 6, 3, 3 positions", plan)
	}
	c := n.layOriginal(idx, plan)
	var seen []int
	prev := 0
	for s, p := range c.Pos {
		if p < 0 {
			continue
		}
		seen = append(seen, p)
		if size := task.Graphs[idx[p]].NumNodes; size < prev {
			t.Errorf("slot %d: %d nodes after %d: chunks are not size-sorted", s, size, prev)
		} else {
			prev = size
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("positions %v: want each of 0…11 once", seen)
	}
	var nodes []int
	for i := 0; i < len(c.In); i += 3 {
		nodes = append(nodes, c.In[i].(*tensors.Tensor).Shape().Dim(1))
	}
	if !slices.IsSorted(nodes) || nodes[0] == nodes[2] {
		t.Errorf("chunk node buckets %v: want ascending and not all equal", nodes)
	}
	y := tensors.MustCopyFlatData[int32](n.labelsOf(idx, c))
	for s, p := range c.Pos {
		if p >= 0 && y[s] != n.label[idx[p]] {
			t.Errorf("slot %d: label %d, want %d", s, y[s], n.label[idx[p]])
		}
	}
}

// TestChunksSameRun: every method trained with size_chunks 3 predicts what
// it predicts with size_chunks 1 (one padded batch) up to float rounding:
// padding changes no loss and no gradient, so the two runs take the same
// steps. Graphs of 2–25 nodes, so the chunks pad differently.
func TestChunksSameRun(t *testing.T) {
	for _, tc := range []struct {
		method string
		set    suite.Params
	}{
		{"graphcl", suite.Params{"pretrain_epochs": 2}},
		{"infograph", nil},
		{"gla", nil},
		{"rgcl", suite.Params{"pretrain_epochs": 2, "min_drop": 1}},
		{"rgcl", suite.Params{"pretrain_epochs": 2, "loss_form": "chem", "rho": 0.8}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			var scores [2][]float64
			for i, k := range []int{1, 3} {
				set := suite.Params{"steps": 6, "batch_size": 12, "unlabelled_batch_size": 12, "hidden": 8, "size_chunks": k}
				for key, v := range tc.set {
					set[key] = v
				}
				m, err := suite.Lookup(tc.method)
				if err != nil {
					t.Fatal(err)
				}
				p, err := m.Fit(context.Background(), variedTask(t, tc.method, set))
				if err != nil {
					t.Fatal(err)
				}
				scores[i] = p.UnknownScore
			}
			var worst float64
			for j := range scores[0] {
				worst = max(worst, math.Abs(scores[0][j]-scores[1][j]))
			}
			if worst > 1e-4 {
				t.Errorf("unknown scores differ by up to %.2g between size_chunks 1 and 3, want ≤ 1e-4", worst)
			}
			t.Logf("largest difference %.2g", worst)
		})
	}
}

// TestSizeChunksLegacyHash: a graphcl spec with size_chunks = 1 hashes
// like the stored Letter-high run made before the parameter existed
// (3a9440fcce5d797d, the grid database of protocol v2); the default 3 is
// a new configuration.
func TestSizeChunksLegacyHash(t *testing.T) {
	p := suite.Params{"aug1": "random2", "aug2": "random2", "aug_ratio1": 0.2, "aug_ratio2": 0.2, "batch_size": 64,
		"curve_every": 0, "hidden": 128, "layers": 2, "lr": 0.001, "pool_ratio": 0.8, "pretrain_epochs": 100,
		"pretrain_lr": 0.001, "proj_input": "hidden", "steps": 500, "tau": 0.5, "unlabelled_batch_size": 256}
	spec := suite.RunSpec{Method: "graphcl", Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Params: p,
		Protocol: suite.Protocol{ClassSplit: "first", TestFrac: 0.2, Alpha: 1}}
	if h := spec.Hash(); h != "3a9440fcce5d797d" {
		t.Fatalf("stored spec hashes to %s, want 3a9440fcce5d797d", h)
	}
	for k, same := range map[int]bool{1: true, 3: false} {
		s := spec
		s.Params = p.Clone()
		s.Params["size_chunks"] = k
		if got := s.Hash() == "3a9440fcce5d797d"; got != same {
			t.Errorf("size_chunks %d: same hash as the stored run = %v, want %v", k, got, same)
		}
	}
}
