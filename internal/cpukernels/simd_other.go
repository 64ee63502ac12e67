//go:build !amd64 || !goexperiment.simd

package cpukernels

// goKernels: without GOEXPERIMENT=simd on amd64, gomlx/compute's gobackend
// has no SIMD kernels (simd_other.go).
func goKernels() string { return Generic }
