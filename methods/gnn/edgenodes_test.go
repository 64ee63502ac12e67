package gnn

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets/datasetstest"
)

// TestEncodeNodesEdgesMatchesDense: with node weights in [0.9, 1] (RGCL's
// range), EncodeNodesEdges gives EncodeNodes's readout z [B, 2H], the same
// per-graph sums of the final node states over the pooled mask (H and
// Mask), and the same gradient of Σ z·R with respect to every real node's
// weight, on Letter-high graphs without twins (hasTwins) and the same
// variables.
func TestEncodeNodesEdgesMatchesDense(t *testing.T) {
	ds := datasetstest.Load(t, "Letter-high")
	all := make([]int, len(ds.Graphs))
	for i := range all {
		all[i] = i
	}
	feats := StandardizeFeatures(ds.Graphs, ds.FeatureDim, all)
	rng := rand.New(rand.NewPCG(11, 12))
	var idx []int
	for _, i := range rng.Perm(len(ds.Graphs)) {
		if len(idx) < 40 && !hasTwins(ds.Graphs[i], feats.Nodes[i], feats.Dim) {
			idx = append(idx, i)
		}
	}
	cfg := EncoderConfig{Conv: ConvGIN, Hidden: 16, LayersPerStage: 2, PoolRatio: 0.8}
	db, eb := NewBatch(ds.Graphs, feats, idx, 64), NewEdgeBatch(ds.Graphs, feats, idx, 64)
	// Node weights of every real node, laid out in both layouts.
	wd, we := make([]float32, db.B*db.N), make([]float32, eb.Nodes)
	for s, g := range idx {
		for v := 0; v < ds.Graphs[g].NumNodes; v++ {
			w := float32(0.9 + 0.1*rng.Float64())
			wd[s*db.N+v], we[eb.Offset[s]+v] = w, w
		}
	}
	for s := len(idx); s < db.B; s++ { // empty slots: their one node
		wd[s*db.N], we[eb.Offset[s]] = 1, 1
	}
	r := make([]float32, db.B*cfg.EmbeddingDim())
	for i := range r {
		r[i] = float32(rng.NormFloat64())
	}
	rt := tensors.FromFlatDataAndDimensions(r, db.B, cfg.EmbeddingDim())
	backend := testBackend(t)
	store := model.NewStore()
	if err := SetSeed(store, 7); err != nil {
		t.Fatal(err)
	}
	outputs := func(z, patches, w, r *Node) []*Node {
		return []*Node{z, patches, Gradient(ReduceAllSum(Mul(z, r)), w)[0]}
	}
	de := model.MustNewExec(backend, store, func(scope *model.Scope, in []*Node) []*Node {
		e := EncodeNodes(scope.At("encoder"), cfg, in[0], in[1], in[2], in[3])
		return outputs(e.Z, ReduceSum(Mul(e.H, InsertAxes(e.Mask, -1)), 1), in[3], in[4])
	})
	x, a, m := db.Tensors()
	dOut := de.MustExec(x, a, m, tensors.FromFlatDataAndDimensions(wd, db.B, db.N), rt)
	ee := model.MustNewExec(backend, store, func(scope *model.Scope, in []*Node) []*Node {
		e := EncodeNodesEdges(scope.At("encoder"), cfg, NewEdgeInputs(in, eb.B), in[6])
		sums := SegmentSum(Mul(e.H, InsertAxes(e.Mask, -1)), e.Edges.Graph, eb.B+1)
		return outputs(e.Z, Slice(sums, AxisRange(0, eb.B)), in[6], in[7])
	})
	var args []any
	for _, tt := range eb.Tensors() {
		args = append(args, tt)
	}
	eOut := ee.MustExec(append(args, tensors.FromFlatDataAndDimensions(we, eb.Nodes), rt)...)
	for k, name := range []string{"z", "Σ H·mask per graph"} {
		if ok, err := closeSlices(tensors.MustCopyFlatData[float32](dOut[k]), tensors.MustCopyFlatData[float32](eOut[k]), 1e-5); !ok {
			t.Errorf("%s differs: relative error %.2g", name, err)
		}
	}
	gd, ge := tensors.MustCopyFlatData[float32](dOut[2]), tensors.MustCopyFlatData[float32](eOut[2])
	var dGrad, eGrad []float32
	for s, g := range idx {
		for v := 0; v < ds.Graphs[g].NumNodes; v++ {
			dGrad, eGrad = append(dGrad, gd[s*db.N+v]), append(eGrad, ge[eb.Offset[s]+v])
		}
	}
	if ok, err := closeSlices(dGrad, eGrad, 1e-4); !ok {
		t.Errorf("node-weight gradients differ: relative error %.2g", err)
	}
}
