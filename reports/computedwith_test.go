package reports

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// withKernels sets the backend and kernels of rs's runs (in place).
func withKernels(rs []runs.Run, backend, kernels string) []runs.Run {
	for i := range rs {
		rs[i].Provenance.Backend, rs[i].Provenance.Kernels = backend, kernels
	}
	return rs
}

func TestComputeLabel(t *testing.T) {
	for _, c := range []struct{ backend, kernels, want string }{
		{"go", "avx2", "go (avx2)"},
		{"go", "avx512", "go (avx512)"},
		{"xla:cuda", "", "xla:cuda"},
		{"", "", ""},
	} {
		if got := ComputeLabel(runs.Provenance{Backend: c.backend, Kernels: c.kernels}); got != c.want {
			t.Errorf("ComputeLabel(%q, %q) = %q, want %q", c.backend, c.kernels, got, c.want)
		}
	}
}

func TestMixedKernelsWarning(t *testing.T) {
	for _, c := range []struct {
		name    string
		kernels []string // per seed 0, 1, 2
		want    []string
	}{
		{"one kernel set", []string{"avx2", "avx2", "avx2"}, nil},
		{"unrecorded kernels are not known to differ", []string{"", "avx2", "avx2"}, nil},
		{"mixed", []string{"avx2", "avx512", "avx2"},
			[]string{"ugnn/MNIST/low: seeds computed by different kernels (go (avx2) for seed 0, seed 2; go (avx512) for seed 1); one config agrees bit for bit only under the same kernels"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rs []runs.Run
			for seed, k := range c.kernels {
				r := mk("ugnn", "MNIST", "low", int64(seed), 0.5+0.01*float64(seed))
				r.Provenance.Backend, r.Provenance.Kernels = "go", k
				rs = append(rs, r)
			}
			_, warns := Aggregate(rs, suite.MetricAccuracy)
			if got := warningStrings(warns); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("warnings %q, want %q", got, c.want)
			}
		})
	}
}

func TestCompareKernelsWarning(t *testing.T) {
	const want = "old was computed by go (avx2) kernels and new by go (avx512): part of every change may be the kernels' (docs/speed.md, CPU kernels)"
	for _, c := range []struct {
		name       string
		oldK, newK string
		warned     bool
	}{
		{"same kernels", "avx2", "avx2", false},
		{"other kernels", "avx2", "avx512", true},
		{"a side without recorded kernels", "", "avx512", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := withKernels(cellRuns("gin-topk", "COIL-DEL", "low", 0, "accuracy", 0.5, 0.51, 0.52, 0.53), "go", c.oldK)
			new := withKernels(cellRuns("gin-topk", "COIL-DEL", "low", 0, "accuracy", 0.5, 0.51, 0.52, 0.53), "go", c.newK)
			_, warns, err := Compare(old, new, CompareOptions{Metrics: []string{"accuracy"}})
			if err != nil {
				t.Fatal(err)
			}
			got := warningStrings(warns)
			if warned := len(got) > 0 && got[0] == want; warned != c.warned {
				t.Errorf("warnings %q; want the kernels warning first: %v", got, c.warned)
			}
		})
	}
}

func TestCheckKernelsWarning(t *testing.T) {
	b, _ := NewBaseline(withKernels(gateRuns(4, noShift, 1), "go", "avx2"), []string{"accuracy"}, nil, 0, "")
	if !reflect.DeepEqual(b.Kernels, []string{"go (avx2)"}) {
		t.Fatalf("baseline kernels %q, want go (avx2)", b.Kernels)
	}
	var buf bytes.Buffer
	if err := b.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := ReadBaseline(&buf, "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read.Kernels, b.Kernels) {
		t.Fatalf("kernels read back %q, want %q", read.Kernels, b.Kernels)
	}
	for _, c := range []struct {
		kernels string
		warning string
	}{
		{"avx2", ""},
		{"avx512", "the baseline was computed by go (avx2) kernels and the current runs by go (avx512): part of every change may be the kernels' (docs/speed.md, CPU kernels)"},
	} {
		res, err := Check(read, withKernels(gateRuns(4, noShift, 1), "go", c.kernels), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(warningStrings(res.Warnings), "\n")
		if c.warning == "" && strings.Contains(got, "kernels") || c.warning != "" && !strings.HasPrefix(got, c.warning) {
			t.Errorf("%s: warnings %q, want %q", c.kernels, got, c.warning)
		}
		if res.Code != CheckPass {
			t.Errorf("%s: code %d; other kernels warn, they do not fail the check", c.kernels, res.Code)
		}
	}
}

func TestComputedWith(t *testing.T) {
	rs := []runs.Run{mk("gin-topk", "MNIST", "low", 0, 0.5), mk("gin-topk", "MNIST", "low", 1, 0.5),
		mk("gin-topk", "MNIST", "low", 2, 0.5), mk("gin-topk", "MNIST", "low", 3, 0.5), mk("gin-topk", "MNIST", "low", 4, 0.5)}
	rs[0].Provenance = runs.Provenance{Backend: "go", Kernels: "avx2"}
	rs[1].Provenance = runs.Provenance{Backend: "xla:cuda"}
	rs[2].Provenance = runs.Provenance{Backend: "go"} // stored before the kernels column: not known
	rs[3].Provenance = runs.Provenance{Backend: "go", Kernels: "avx512"}
	rs[3].Status = runs.StatusFailed // only finished runs count
	want := []string{"go (avx2)", "xla:cuda"}
	if got := ComputedWith(rs); !reflect.DeepEqual(got, want) {
		t.Errorf("ComputedWith = %q, want %q", got, want)
	}
}
