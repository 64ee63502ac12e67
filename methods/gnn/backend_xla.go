//go:build xla

package gnn

import _ "github.com/gomlx/go-xla/compute/xla" // XLA (CPU/CUDA) via PJRT; needs cgo

// xlaCompiledIn reports whether the XLA backend is linked in (-tags xla).
const xlaCompiledIn = true
