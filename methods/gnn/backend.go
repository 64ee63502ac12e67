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
	"sync"

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

// goDefault is what the plain "go" backend means here: GoMLX's pure-Go
// backend with an unbounded worker pool. With the default bounded pool
// (2 × GOMAXPROCS workers), several large matmuls running as parallel ops
// each hold a worker while waiting in workerspool.Saturate for more, and a
// run hung for good (seen on 2 cores with GOEXPERIMENT=simd; GOMLX-NOTES
// saw the same with parallelism=2). Unbounded, Saturate starts up to
// GOMAXPROCS goroutines of its own and cannot starve; a Letter-high epoch
// was as fast (3.75 s vs 3.87 s for 20 epochs).
const goDefault = "go:parallelism=-1"

var (
	backendsMu sync.Mutex
	backends   = map[string]compute.Backend{}
)

// NewBackend returns the process-wide GoMLX backend for config (see
// BackendConfig), creating it on first use; runs share it, so callers must
// not Finalize it. It returns an error naming the config when the backend
// is not compiled in (XLA needs `go build -tags xla` and a PJRT plugin) or
// fails to start.
func NewBackend(config string) (compute.Backend, error) {
	if config == "go" {
		config = goDefault
	}
	name, _, _ := strings.Cut(config, ":")
	if name == "xla" && !xlaCompiledIn {
		return nil, fmt.Errorf("backend %q: this binary was built without XLA; rebuild with `go build -tags xla ./cmd/bench` on a machine with a PJRT plugin", config)
	}
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if b, ok := backends[config]; ok {
		return b, nil
	}
	b, err := compute.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("backend %q: %w", config, err)
	}
	backends[config] = b
	return b, nil
}
