package semisup

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
)

// paramLayout is the batch layout of a run, gnn.ParamLayout (resolved once
// per run by gnn.ChooseLayout over all of the task's graphs): the "edges"
// list (the default), "dense" padded batches, or "auto" (dense when the largest
// graph has ≤ gnn.DenseMaxNodes nodes, else edges). Every batch of the run
// — labelled, unlabelled, augmented views, ψ's scores, prediction — and
// every encoder call follow it; size_chunks still cuts a batch into
// chunks, each laid out on its own. Both layouts compute the same
// function (they sum in different orders), so it changes time and memory,
// not results beyond rounding; "auto" is the legacy value (it hashes as
// if absent).
var paramLayout = gnn.ParamLayout

// graphIn is one chunk of a batch inside a GoMLX graph, in the run's
// layout: dense X [B, N, D], Adj [B, N, N], Mask [B, N]; or, with Adj
// nil, the edge list E (E.NumGraphs = B; X and Mask unset).
type graphIn struct {
	X, Adj, Mask *Node
	E            gnn.EdgeInputs
}

// edges reports whether g is in the edge-list layout.
func (g graphIn) edges() bool { return g.Adj == nil }

// encode is Φ on g (gnn.Encode or gnn.EncodeEdges): z [B, 2·Hidden].
func encode(scope *model.Scope, enc gnn.EncoderConfig, g graphIn) *Node {
	if g.edges() {
		return gnn.EncodeEdges(scope, enc, g.E)
	}
	return gnn.Encode(scope, enc, g.X, g.Adj, g.Mask)
}

// encodedNodes is encodeNodes's output in either layout: Z [B, 2·Hidden];
// the final-stage node states H and their pooled mask Mask, dense
// [B, K, Hidden] and [B, K] (Graph nil), edge list [Nodes, Hidden] and
// [Nodes] with Graph [Nodes, 1] int32 every node's slot (B for padding
// nodes); B the chunk's slots.
type encodedNodes struct {
	Z, H, Mask, Graph *Node
	B                 int
}

// encodeNodes is gnn.EncodeNodes (dense) or gnn.EncodeNodesEdges on g,
// weighting nodes by weight (nil: none; [B, N] dense, [Nodes] edge list).
func encodeNodes(scope *model.Scope, enc gnn.EncoderConfig, g graphIn, weight *Node) encodedNodes {
	if g.edges() {
		e := gnn.EncodeNodesEdges(scope, enc, g.E, weight)
		return encodedNodes{Z: e.Z, H: e.H, Mask: e.Mask, Graph: e.Edges.Graph, B: g.E.NumGraphs}
	}
	e := gnn.EncodeNodes(scope, enc, g.X, g.Adj, g.Mask, weight)
	return encodedNodes{Z: e.Z, H: e.H, Mask: e.Mask, B: g.X.Shape().Dim(0)}
}

// chunkAt reads the chunk at in[i] if there is one: three dense inputs
// (x rank 3, adj rank 3, mask rank 2) or seven edge-list ones
// (gnn.EdgeBatch.Tensors — x rank 2, src int32 rank 1, … — then the
// chunk's slot weight [B], which carries B). It returns the chunk and
// the number of inputs it takes (0: none at i).
func chunkAt(in []*Node, i int) (graphIn, int) {
	switch {
	case i+2 < len(in) && in[i].Rank() == 3 && in[i+1].Rank() == 3 && in[i+2].Rank() == 2:
		return graphIn{X: in[i], Adj: in[i+1], Mask: in[i+2]}, 3
	case i+6 < len(in) && in[i].Rank() == 2 && in[i+1].Rank() == 1 && in[i+1].DType() == dtypes.Int32:
		return graphIn{E: gnn.NewEdgeInputs(in[i:i+6], in[i+6].Shape().Dim(0))}, 7
	}
	return graphIn{}, 0
}

// nodeRows locates node v of slot s in a node-indexed output of one
// chunk: row s·N + v of the dense layout's [B, N], row Offset[s] + v of
// the edge list's [Nodes].
type nodeRows struct {
	n      int
	offset []int
}

// at is the row of node v of slot s.
func (r nodeRows) at(s, v int) int {
	if r.offset != nil {
		return r.offset[s] + v
	}
	return s*r.n + v
}

// chunkOf lays the graphs part (indices into graphs and their feature
// rows nodes) out as one chunk in n's layout, with graph slots bucketed
// up to the larger of the two batch sizes: the chunk's inputs (as
// chunkAt reads them), its slot weights [B] (1 real, 0 padding) and
// where its nodes are.
func (n *net) chunkOf(graphs []datasets.Graph, nodes [][]float32, part []int) ([]any, []float32, nodeRows) {
	feats := &gnn.Features{Dim: n.feats.Dim, Nodes: nodes}
	if n.layout == gnn.LayoutEdges {
		b := gnn.NewEdgeBatch(graphs, feats, part, max(n.batch, n.ubatch))
		var in []any
		for _, t := range b.Tensors() {
			in = append(in, t)
		}
		return append(in, tensors.FromFlatDataAndDimensions(b.Weight, b.B)), b.Weight, nodeRows{offset: b.Offset}
	}
	b := gnn.NewBatch(graphs, feats, part, max(n.batch, n.ubatch))
	x, a, m := b.Tensors()
	return []any{x, a, m}, b.Weight, nodeRows{n: b.N}
}

// oneChunk reads in as exactly one chunk (a prediction or scoring batch,
// net.inputs).
func oneChunk(in []*Node) graphIn {
	g, k := chunkAt(in, 0)
	if k == 0 || k != len(in) {
		panic("semisup: the inputs are not one chunk")
	}
	return g
}
