package gnn

import (
	"math"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/datasets"
)

// BucketNodes rounds a node count up to its padding bucket: a multiple of
// 4 up to 32, of 16 up to 128, of 64 up to 512, then of 256. Few buckets mean
// few GoMLX compilations; fine buckets mean little padding.
func BucketNodes(n int) int {
	step := 256
	switch {
	case n <= 32:
		step = 4
	case n <= 128:
		step = 16
	case n <= 512:
		step = 64
	}
	if n < 1 {
		n = 1
	}
	return (n + step - 1) / step * step
}

// BucketGraphs rounds a batch's graph count up to the next power of two
// (at least 8), capped at maxBatch.
func BucketGraphs(b, maxBatch int) int {
	p := 8
	for p < b {
		p *= 2
	}
	if p > maxBatch {
		p = max(maxBatch, b)
	}
	return p
}

// Features holds every graph's node features after standardisation, shape
// [NumNodes, Dim] per graph, row-major.
type Features struct {
	Dim   int
	Nodes [][]float32
}

// StandardizeFeatures z-scores every feature column of every graph with
// the mean and std over all nodes of the graphs in pool (mean 0, std 1
// there; a constant column is only centred). pool is the training pool D^l
// ∪ D^u (suite.Task.TrainPool): the statistics read no labels and nothing
// of the held-out test set (docs/protocol.md §1). Coordinates (Letter,
// COIL) otherwise span very different ranges across datasets. The result
// holds every graph, shape [NumNodes, dim] each.
func StandardizeFeatures(graphs []datasets.Graph, dim int, pool []int) *Features {
	mean := make([]float64, dim)
	sq := make([]float64, dim)
	var n float64
	for _, i := range pool {
		f := graphs[i].Features
		for r := 0; r < graphs[i].NumNodes; r++ {
			for c := 0; c < dim; c++ {
				v := float64(f[r*dim+c])
				mean[c] += v
				sq[c] += v * v
			}
		}
		n += float64(graphs[i].NumNodes)
	}
	inv := make([]float64, dim)
	for c := range mean {
		mean[c] /= max(n, 1)
		variance := sq[c]/max(n, 1) - mean[c]*mean[c]
		inv[c] = 1
		if variance > 1e-12 {
			inv[c] = 1 / math.Sqrt(variance)
		}
	}
	out := &Features{Dim: dim, Nodes: make([][]float32, len(graphs))}
	for i := range graphs {
		f := graphs[i].Features
		z := make([]float32, len(f))
		for k, v := range f {
			c := k % dim
			z[k] = float32((float64(v) - mean[c]) * inv[c])
		}
		out.Nodes[i] = z
	}
	return out
}

// Batch is a padded dense batch of graphs (see the package doc for the
// layout). Graph slot s < len(Index) holds graph Index[s]; the remaining
// slots up to B are padding graphs with one zero node and Weight 0.
type Batch struct {
	// Index are the graphs of the batch, as indices into the graph list.
	Index []int
	// B is the padded number of graph slots, N the padded nodes per graph,
	// D the feature width.
	B, N, D int
	// X is [B, N, D], A is [B, N, N], Mask is [B, N], Weight is [B]
	// (1 for a real graph slot, 0 for padding), all row-major.
	X, A, Mask, Weight []float32
	// NumNodes is the real node count of each slot, shape [B].
	NumNodes []int
}

// NewBatch pads the graphs idx (indices into graphs and feats) into one
// dense batch of BucketGraphs(len(idx), maxBatch) slots of
// BucketNodes(max nodes) nodes.
func NewBatch(graphs []datasets.Graph, feats *Features, idx []int, maxBatch int) *Batch {
	maxN := 1
	for _, i := range idx {
		maxN = max(maxN, graphs[i].NumNodes)
	}
	B, N, D := BucketGraphs(len(idx), maxBatch), BucketNodes(maxN), feats.Dim
	b := &Batch{
		Index: idx, B: B, N: N, D: D,
		X:        make([]float32, B*N*D),
		A:        make([]float32, B*N*N),
		Mask:     make([]float32, B*N),
		Weight:   make([]float32, B),
		NumNodes: make([]int, B),
	}
	for s := 0; s < B; s++ {
		if s >= len(idx) {
			b.Mask[s*N] = 1 // one zero node: reductions stay non-empty
			b.NumNodes[s] = 1
			continue
		}
		g := &graphs[idx[s]]
		b.Weight[s] = 1
		b.NumNodes[s] = g.NumNodes
		copy(b.X[s*N*D:], feats.Nodes[idx[s]])
		for v := 0; v < g.NumNodes; v++ {
			b.Mask[s*N+v] = 1
		}
		for e := range g.Src {
			// Row = receiving node, so (A·H)[i] sums the features of i's neighbours.
			b.A[s*N*N+int(g.Dst[e])*N+int(g.Src[e])] = 1
		}
	}
	return b
}

// Tensors returns X, A and Mask as GoMLX tensors, in that order.
func (b *Batch) Tensors() (x, a, mask *tensors.Tensor) {
	return tensors.FromFlatDataAndDimensions(b.X, b.B, b.N, b.D),
		tensors.FromFlatDataAndDimensions(b.A, b.B, b.N, b.N),
		tensors.FromFlatDataAndDimensions(b.Mask, b.B, b.N)
}
