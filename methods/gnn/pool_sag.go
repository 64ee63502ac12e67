package gnn

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// SAGScore is the self-attention score of SAGPool (Lee, Lee & Kang 2019,
// "Self-Attention Graph Pooling", eq. 3): a graph convolution with one
// output channel over the current graph, Z = D̂^{-1/2}ÂD̂^{-1/2} H θ_att + b
// (GCNLayer; the authors' code and the paper use GCN, PyG's SAGPooling
// defaults to GraphConv). h [B, N, D], adj [B, N, N], mask [B, N] → [B, N]
// (0 on padding).
func SAGScore(scope *model.Scope, h, adj, mask *Node) *Node {
	s := GCNLayer(scope, h, adj, mask, 1)
	return Reshape(s, h.Shape().Dim(0), h.Shape().Dim(1))
}

// SAGPool is SAGPool (Lee et al. 2019): keep the ⌈ρ·n_b⌉ nodes of every
// graph b with the highest SAGScore, gate them by tanh(score) and keep the
// edges among them — TopKPool with the GCN score (idx = top-rank(Z, ⌈ρn⌉),
// X' = X_idx ⊙ tanh(Z_idx), A' = A_idx,idx, the paper's eq. 4–5).
// h [B, N, D], adj [B, N, N], mask [B, N] → Pooled with K = KeepCount(ratio, N).
func SAGPool(scope *model.Scope, h, adj, mask *Node, ratio float64) Pooled {
	return TopKPool(h, adj, mask, SAGScore(scope, h, adj, mask), ratio)
}
