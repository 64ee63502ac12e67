// Package gnn holds the GoMLX building blocks shared by every GNN method of
// ugbench: the padded dense batch layout, GIN convolution, TopK pooling,
// mean‖max readout, PyTorch-style initialised linear layers, backend
// selection and the supervised training glue.
//
// Layout. A batch of B graphs padded to N nodes is
//
//	X    [B, N, D] float32  node features (padding rows are 0)
//	A    [B, N, N] float32  adjacency, A[b,i,j] = 1 iff edge j→i (0 for padding)
//	Mask [B, N]    float32  1 for a real node, 0 for padding
//
// Dense per-graph adjacency with batched matmuls is used instead of an
// edge list with gather/scatter because the pure-Go backend's Gather and
// ScatterSum copy one element at a time (GOMLX-NOTES: ~42% of a GIN epoch),
// while the paper's datasets have small graphs (Letter ≤ 9 nodes, COIL-DEL
// ≤ 77, COLORS-3 ≤ 200). Batches are padded to a few shape buckets
// (BucketNodes, BucketGraphs) so GoMLX compiles few graphs; padding is
// masked out of every reduction, loss and normalisation. Padding graph
// slots hold one zero node with weight 0, so no reduction is ever empty.
package gnn

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend, always available
)

// DefaultBackend is the backend used when neither --backend nor
// GOMLX_BACKEND says otherwise: GoMLX's pure-Go backend.
const DefaultBackend = "go"

// BackendConfig resolves the backend configuration string: flag if
// non-empty, else $GOMLX_BACKEND, else DefaultBackend. Examples: "go",
// "xla:cpu", "xla:cuda" (XLA needs a binary built with -tags xla).
func BackendConfig(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(compute.ConfigEnvVar); env != "" {
		return env
	}
	return DefaultBackend
}

// NewBackend creates the GoMLX backend for config (see BackendConfig). It
// returns an error naming the config when the backend is not compiled in
// (XLA needs `go build -tags xla` and a PJRT plugin) or fails to start.
func NewBackend(config string) (compute.Backend, error) {
	name, _, _ := strings.Cut(config, ":")
	if name == "xla" && !xlaCompiledIn {
		return nil, fmt.Errorf("backend %q: this binary was built without XLA; rebuild with `go build -tags xla ./cmd/bench` on a machine with a PJRT plugin", config)
	}
	b, err := compute.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("backend %q: %w", config, err)
	}
	return b, nil
}
