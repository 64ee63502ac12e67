package gnn

import (
	"context"
	"slices"

	"github.com/gomlx/gomlx/core/tensors"
)

// BySize calls fn with the positions 0..n-1 in batches of at most batch,
// stably sorted by size(i) (e.g. a graph's node count), so that a batch
// pads its graphs little; it checks ctx before every batch. The GNN stacks
// predict in these batches (Classifier.Predict, baselines/semisup,
// methods/ugnn).
func BySize(ctx context.Context, n, batch int, size func(i int) int, fn func(pos []int) error) error {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return size(a) - size(b) })
	for start := 0; start < n; start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(order[start:min(start+batch, n)]); err != nil {
			return err
		}
	}
	return nil
}

// Rows sets dst[pos[s]] to row s of t [B, w] for every s < len(pos) (the
// rows after them are padding slots).
func Rows(dst [][]float32, t *tensors.Tensor, pos []int) {
	w := t.Shape().Dim(-1)
	flat := tensors.MustCopyFlatData[float32](t)
	for s, p := range pos {
		dst[p] = flat[s*w : (s+1)*w]
	}
}
