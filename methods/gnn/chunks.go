package gnn

import (
	"slices"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom

	"github.com/ugbench/ugbench/datasets"
)

// SizeChunks splits one batch (graph indices) into at most k chunks of
// graphs of similar size: the batch is sorted by node count (stably) and
// cut into ½, ¼, ⅛, … of its graphs, the last chunk taking the rest. Each
// chunk is padded on its own, so a batch of mostly small graphs no longer
// pads every graph to the largest one, while the step still sees the same
// uniformly sampled batch: the summed loss, hence the gradient, is the one
// of the unsplit batch (padding never changes a result). k ≤ 1 returns the
// batch unchanged. Empty chunks are left out.
func SizeChunks(graphs []datasets.Graph, idx []int, k int) [][]int {
	if k <= 1 || len(idx) < 2 {
		return [][]int{idx}
	}
	sorted := slices.Clone(idx)
	slices.SortStableFunc(sorted, func(a, b int) int { return graphs[a].NumNodes - graphs[b].NumNodes })
	var chunks [][]int
	rest := sorted
	for c := 0; c < k-1 && len(rest) > 1; c++ {
		n := max(1, len(rest)/2)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	return append(chunks, rest)
}

// ChunkedCrossEntropy is the mean softmax cross-entropy over all real graph
// slots of several chunks: Σ_chunks Σ_i w_i·nll_i / Σ w. logits[s] [B_s, C],
// labels[s] [B_s] int32, weight[s] [B_s].
func ChunkedCrossEntropy(logits, labels, weight []*Node) *Node {
	var num, den *Node
	for s := range logits {
		logp := LogSoftmax(logits[s], -1)
		onehot := OneHot(labels[s], logits[s].Shape().Dim(-1), logits[s].DType())
		nll := Neg(ReduceSum(Mul(onehot, logp), -1))
		n, d := ReduceAllSum(Mul(nll, weight[s])), ReduceAllSum(weight[s])
		if num == nil {
			num, den = n, d
		} else {
			num, den = Add(num, n), Add(den, d)
		}
	}
	return Div(num, Max(den, OnesLike(den)))
}
