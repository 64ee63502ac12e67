//go:build amd64 && goexperiment.simd

package cpukernels

import (
	"simd/archsimd"

	"github.com/gomlx/compute/support/envutil"
)

// goKernels mirrors gomlx/compute's gobackend (simd_x86.go: IsAVX512Allowed,
// IsAVX2Allowed), whose variables are internal to that module. An invalid
// value of either variable makes the backend panic at start-up; here it
// reads as unset.
func goKernels() string {
	avx512, _ := envutil.ReadBool(envutil.GoBackendSIMD_AVX512, true)
	avx2, _ := envutil.ReadBool(envutil.GoBackendSIMD_AVX2, true)
	switch {
	case avx512 && archsimd.X86.AVX512():
		return AVX512
	case avx2 && archsimd.X86.AVX2():
		return AVX2
	}
	return Generic
}
