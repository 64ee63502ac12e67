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
// above (if the encoder has one, EncoderConfig.SupportsEdges; else dense).
// The rule reads every graph of the task, so it is fixed for a run (one
// compiled family per run) and picks dense for Letter-* (≤ 9 nodes
// (Letter-high)) and COIL-DEL (≤ 77), whose stored results it keeps.
// The value comes from README's layout benchmarks (COLORS-3,
// BenchmarkTrainEpochLayouts).
const DenseMaxNodes = 150

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
		if largest > DenseMaxNodes && enc.SupportsEdges() {
			return LayoutEdges, nil
		}
		return LayoutDense, nil
	}
	return "", fmt.Errorf("layout %q: unknown (want %q, %q or %q)", layout, LayoutAuto, LayoutDense, LayoutEdges)
}
