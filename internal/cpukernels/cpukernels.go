// Package cpukernels names the CPU vector kernels that GoMLX's pure-Go
// backend runs in this process. They round differently (a sum over 16 lanes
// is not a sum over 8), so two runs of one config hash agree bit for bit
// only when both ran the same kernels; e.g. gin-topk on Letter-high low,
// split 0, seed 0 at the protocol's budget ends at accuracy 0.4333 with the
// AVX2 kernels and 0.4378 with the AVX-512 ones on one machine
// (docs/speed.md). The run store records them beside the backend
// (runs.Provenance.Kernels), and the caches of training state key on them.
package cpukernels

import "strings"

// The kernel sets Of returns for the pure-Go backend.
const (
	// AVX512 is GoMLX's AVX-512 kernels (the CPU has AVX-512 and
	// GOMLX_GO_SIMD_AVX512 does not turn them off).
	AVX512 = "avx512"
	// AVX2 is its AVX2 kernels (the CPU has AVX2 but AVX-512 is absent or
	// turned off, and GOMLX_GO_SIMD_AVX2 does not turn them off).
	AVX2 = "avx2"
	// Generic is its portable Go code: no x86 SIMD kernels (another
	// architecture, a build without GOEXPERIMENT=simd, or both turned off).
	Generic = "generic"
)

// Of returns the kernel set GoMLX's pure-Go backend uses in this process
// when backend (a resolved backend configuration, e.g. "go" or
// "go:parallelism=2") names that backend: AVX512, AVX2 or Generic, decided
// as the backend decides it at start-up (the CPU's features, which
// GODEBUG=cpu.avx512f=off also hides, and the GOMLX_GO_SIMD_AVX512 and
// GOMLX_GO_SIMD_AVX2 variables). Other backends (XLA) give "": their
// kernels are XLA's.
func Of(backend string) string {
	if !PureGo(backend) {
		return ""
	}
	return goKernels()
}

// PureGo reports whether backend, a backend configuration as the run
// store records it (runs.Provenance.Backend), names GoMLX's pure-Go
// backend: "go", or "go:" followed by its options.
func PureGo(backend string) bool {
	return backend == "go" || strings.HasPrefix(backend, "go:")
}
