package cpukernels

import "testing"

func TestOf(t *testing.T) {
	if got := Of("xla:cpu"); got != "" {
		t.Errorf(`Of("xla:cpu") = %q, want ""`, got)
	}
	if got := Of("gopher"); got != "" {
		t.Errorf(`Of("gopher") = %q, want ""`, got)
	}
	native := Of("go")
	switch native {
	case AVX512, AVX2, Generic:
	default:
		t.Fatalf(`Of("go") = %q, want one of the kernel sets`, native)
	}
	if got := Of("go:parallelism=2"); got != native {
		t.Errorf(`Of("go:parallelism=2") = %q, want %q as for "go"`, got, native)
	}
	// Turning the AVX-512 kernels off leaves AVX2 or less; turning both off
	// leaves the portable code.
	t.Setenv("GOMLX_GO_SIMD_AVX512", "false")
	if got := Of("go"); got == AVX512 {
		t.Errorf("GOMLX_GO_SIMD_AVX512=false: %q", got)
	}
	t.Setenv("GOMLX_GO_SIMD_AVX2", "false")
	if got := Of("go"); got != Generic {
		t.Errorf("both turned off: %q, want %q", got, Generic)
	}
}

func TestPureGo(t *testing.T) {
	for _, c := range []struct {
		backend string
		want    bool
	}{{"go", true}, {"go:parallelism=2", true}, {"gopher", false}, {"xla:cpu", false}, {"", false}} {
		if got := PureGo(c.backend); got != c.want {
			t.Errorf("PureGo(%q) = %v, want %v", c.backend, got, c.want)
		}
	}
}
