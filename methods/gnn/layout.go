package gnn

import (
	"fmt"

	"github.com/ugbench/ugbench/datasets"
)

// Layout names how a batch of graphs is laid out for the encoder.
type Layout string

const (
	// LayoutAuto picks LayoutDense or LayoutEdges by graph size
	// (ChooseLayout); "" means LayoutAuto.
	LayoutAuto Layout = "auto"
	// LayoutDense pads every graph to the batch's largest: x [B, N, D],
	// adj [B, N, N], mask [B, N] (NewBatch, Encode). Batched matmuls;
	// memory O(B·N²).
	LayoutDense Layout = "dense"
	// LayoutEdges concatenates the graphs: x [Nodes, D] and an edge list
	// (NewEdgeBatch, EncodeEdges). Gather/scatter; memory O(Nodes + Edges).
	LayoutEdges Layout = "edges"
)

// DenseMaxNodes is the rule of LayoutAuto: a run uses the dense layout when
// its largest graph has at most DenseMaxNodes nodes, the edge-list layout
// above (if the encoder's pooling is TopK, which alone had an edge-list
// path when auto was the default; else dense, SAG included, so that its
// stored runs keep their layout).
// The rule reads every graph of the task, so it is fixed for a run (one
// compiled family per run, one place to look).
//
// It is not a speed crossover: BenchmarkTrainEpochLayouts found the edge
// list faster at every size measured (CPU s per gin-topk epoch, edges vs
// dense: Letter-high 0.083 vs 0.100, COIL-DEL 1.57 vs 1.83, COLORS-3 5.4
// vs 9.6; docs/speed.md "Large graphs"). The two layouts compute the same
// function but sum in different orders, so a run's numbers differ at
// rounding level and then drift like a new seed; 100 keeps the datasets of
// the stored grids (Letter-*: ≤ 9 nodes, COIL-DEL: ≤ 77; TestChooseLayout)
// on the dense layout their runs used, and sends COLORS-3 (≤ 200 nodes)
// and REDDIT-MULTI-12K (up to ~3,800, whose [B, N, N] batches do not fit)
// to the edge list.
const DenseMaxNodes = 100

// ChooseLayout resolves layout for an encoder over graphs: LayoutDense or
// LayoutEdges. LayoutAuto (or "") applies DenseMaxNodes; an explicit layout
// is returned as is. It fails on an unknown layout and on LayoutEdges for
// a pooling without an edge-list path.
func ChooseLayout(layout Layout, enc EncoderConfig, graphs []datasets.Graph) (Layout, error) {
	switch layout {
	case LayoutDense:
		return LayoutDense, nil
	case LayoutEdges:
		if !enc.SupportsEdges() {
			return "", fmt.Errorf("layout %q: pool %q has no edge-list path (want layout %q or %q)", layout, enc.Pool, LayoutDense, LayoutAuto)
		}
		return LayoutEdges, nil
	case LayoutAuto, "":
		largest := 0
		for i := range graphs {
			largest = max(largest, graphs[i].NumNodes)
		}
		if largest > DenseMaxNodes && enc.autoEdges() {
			return LayoutEdges, nil
		}
		return LayoutDense, nil
	}
	return "", fmt.Errorf("layout %q: unknown (want %q, %q or %q)", layout, LayoutAuto, LayoutDense, LayoutEdges)
}

// NumBatchInputs is the number of inputs BatchInputs gives for one batch
// in layout (LayoutDense or LayoutEdges): 3 dense (x, adj, mask), 6 edge
// list (EdgeBatch.Tensors: x, src, dst, edge weight, graph, mask).
func NumBatchInputs(layout Layout) int {
	if layout == LayoutEdges {
		return 6
	}
	return 3
}

// BatchInputs lays the graphs idx (indices into graphs and feats) out as
// one batch of B = BucketGraphs(len(idx), maxBatch) graph slots in layout
// (LayoutDense: NewBatch, LayoutEdges: NewEdgeBatch) and returns its
// NumBatchInputs(layout) inputs as GoMLX tensors (Batch.Tensors or
// EdgeBatch.Tensors, in their order), B and the slots' weights [B] (1 for
// a real graph, 0 for a padding slot). Slot s < len(idx) holds graph
// idx[s] in both layouts.
func BatchInputs(layout Layout, graphs []datasets.Graph, feats *Features, idx []int, maxBatch int) (in []any, slots int, weight []float32) {
	if layout == LayoutEdges {
		b := NewEdgeBatch(graphs, feats, idx, maxBatch)
		for _, t := range b.Tensors() {
			in = append(in, t)
		}
		return in, b.B, b.Weight
	}
	b := NewBatch(graphs, feats, idx, maxBatch)
	x, a, m := b.Tensors()
	return []any{x, a, m}, b.B, b.Weight
}
