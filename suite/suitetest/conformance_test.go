package suitetest

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// fake is a method whose faults are switched on by its name.
type fake struct{ name string }

func (f fake) Name() string           { return f.name }
func (f fake) Doc() string            { return "a conformance test fake" }
func (f fake) Defaults() suite.Params { return suite.Params{"steps": 3} }
func (f fake) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	for ep := 1; ep <= 3; ep++ {
		if f.name != "uncancellable" && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		task.Log.Epoch(ep, 3, map[string]float64{"loss": 1})
	}
	n := len(task.Eval)
	if f.name == "short" {
		n--
	}
	p := &suite.Predictions{Class: make([]int, n), UnknownScore: make([]float64, n)}
	for i := range n {
		p.Class[i] = task.Eval[i] % task.NumKnown
		p.UnknownScore[i] = float64(task.Eval[i])
		if f.name == "random" {
			p.UnknownScore[i] = rand.Float64()
		}
	}
	return p, nil
}

// TestConformanceFindsFaults: a well-behaved fake passes; one that is not
// deterministic, one with a missing prediction and one that ignores
// cancellation are each caught.
func TestConformanceFindsFaults(t *testing.T) {
	ds, err := datasets.LoadEmbedded("Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"good", ""},
		{"random", "predict differently"},
		{"short", "evaluation graphs"},
		{"uncancellable", "ran to the end"},
	} {
		problems, err := Conformance(ds, fake{tc.name})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := strings.Join(problems, "; ")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.want)
		}
	}
}
