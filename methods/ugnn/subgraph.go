package ugnn

import (
	"github.com/ugbench/ugbench/datasets"
)

// view is a perturbed copy of one graph with its (standardised) features;
// the perturbations themselves (node and edge deletion, seeded per
// stream) are package augment's DropNodes, DropEdges and Stream.
type view struct {
	g     datasets.Graph
	nodes []float32 // [g.NumNodes, dim]
}
