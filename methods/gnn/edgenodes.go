package gnn

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// EncodedEdges is EncodeNodesEdges's output, Encoded in the edge-list
// layout. Pooling does not move nodes (TopKPoolEdges), so node v of the
// batch is row v of every node-indexed field.
type EncodedEdges struct {
	// Z [B, 2·Hidden] is the readout mean‖max, EncodeEdges's output.
	Z *Node
	// H [Nodes, Hidden] are the final-stage node states the readout sees
	// (0 on nodes the pooling dropped and on padding nodes), Mask [Nodes]
	// their pooled mask: the "patches" of InfoGraph.
	H, Mask *Node
	// Edges is the pooled batch structure; Edges.Graph [Nodes, 1] int32
	// holds every node's graph slot (B for padding nodes).
	Edges EdgeGraph
}

// EncodeNodesEdges is EncodeNodes in the edge-list layout: EncodeEdges that
// also returns the final-stage node states and their mask, and optionally
// weights nodes: with nodeWeight [Nodes] non-nil, every convolution's
// output (both stages) is multiplied row-wise by it. The dense layout's
// second-stage weights Select·nodeWeight are the weights of the nodes the
// pooling kept, which here stay in their rows, so both layouts weight
// the same nodes by the same values. With nodeWeight nil the graph is
// exactly EncodeEdges's. Only TopK and SAG pooling (SupportsEdges); it panics on
// another.
func EncodeNodesEdges(scope *model.Scope, cfg EncoderConfig, in EdgeInputs, nodeWeight *Node) EncodedEdges {
	if !cfg.SupportsEdges() {
		panic(fmt.Sprintf("gnn: pool %q has no edge-list layout", cfg.Pool))
	}
	weigh := func(h *Node) *Node {
		if nodeWeight == nil {
			return h
		}
		return Mul(h, InsertAxes(nodeWeight, -1))
	}
	e := NewEdgeGraph(in.Src, in.Dst, in.EdgeWeight, in.Graph, in.NumGraphs)
	h, mask := in.X, in.Mask
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = weigh(cfg.convEdges(scope.In("conv1_%d", l), h, e, mask))
	}
	h, e, mask = TopKPoolEdges(h, e, mask, cfg.poolScoreEdges(scope.In("pool"), h, e, mask), cfg.PoolRatio)
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = weigh(cfg.convEdges(scope.In("conv2_%d", l), h, e, mask))
	}
	return EncodedEdges{Z: MeanMaxReadoutEdges(h, mask, e), H: h, Mask: mask, Edges: e}
}

// SegmentSum sums the rows of x [Nodes, ...] by segment: seg [Nodes, 1]
// int32 holds each row's segment id (< n, e.g. EdgeGraph.Graph with n =
// NumGraphs+1) → [n, ...]; an empty segment is 0.
func SegmentSum(x, seg *Node, n int) *Node { return segmentSum(x, seg, n) }

// SegmentMax is the largest row of x [Nodes, ...] per segment (seg as in
// SegmentSum) → [n, ...]; an empty segment is −MaxFloat32. Its gradient,
// like ReduceMax's, goes to every tied maximum.
func SegmentMax(x, seg *Node, n int) *Node {
	dims := x.Shape().Clone().Dimensions
	dims[0] = n
	init := BroadcastToDims(Scalar(x.Graph(), x.DType(), -math.MaxFloat32), dims...)
	return ScatterMax(init, seg, x, false, false)
}
