package selection

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// mk is a finished run with one accuracy value.
func mk(method, dataset, ratio string, seed int64, acc float64) runs.Run {
	spec := suite.RunSpec{Method: method, Dataset: dataset, RatioName: ratio, Ratio: 0.1, Seed: seed,
		Params: suite.Params{}, Protocol: suite.DefaultProtocol()}
	return runs.Run{Spec: spec, Status: runs.StatusFinished, Metrics: map[string]float64{suite.MetricAccuracy: acc}}
}

func TestKeepParams(t *testing.T) {
	with := func(r runs.Run, p suite.Params) runs.Run { r.Spec.Params = p; return r }
	rs := []runs.Run{
		with(mk("gin-topk", "COIL-DEL", "low", 0, 0.1), suite.Params{"lr": 0.001, "size_chunks": 3}),
		with(mk("gin-topk", "COIL-DEL", "low", 0, 0.2), suite.Params{"lr": 0.001}), // before size_chunks existed
		with(mk("gin-topk", "COIL-DEL", "low", 1, 0.3), suite.Params{"lr": 0.01, "size_chunks": 1}),
		with(mk("wl", "COIL-DEL", "low", 0, 0.4), suite.Params{"iterations": 5}), // has no size_chunks
	}
	accs := func(rs []runs.Run) []float64 {
		var out []float64
		for _, r := range rs {
			out = append(out, r.Metrics[suite.MetricAccuracy])
		}
		return out
	}
	for _, c := range []struct {
		args []string
		want []float64
	}{
		{nil, []float64{0.1, 0.2, 0.3, 0.4}},
		{[]string{"size_chunks=3"}, []float64{0.1, 0.4}},
		{[]string{"size_chunks=unset"}, []float64{0.2, 0.4}},
		{[]string{"size_chunks=3", "lr=0.01"}, []float64{0.4}},
		{[]string{" lr = 0.001 "}, []float64{0.1, 0.2, 0.4}},
		{[]string{"iterations=3"}, []float64{0.1, 0.2, 0.3}},
		{[]string{"lr=0.0010"}, []float64{0.1, 0.2, 0.4}}, // numbers compare as numbers
	} {
		want, err := ParseParams(c.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := accs(KeepParams(rs, want)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("--param %q: runs %v, want %v", c.args, got, c.want)
		}
	}
	for _, bad := range [][]string{{"size_chunks"}, {"=3"}, {"lr="}, {"lr=1", "lr=2"}} {
		if _, err := ParseParams(bad); err == nil || strings.Contains(err.Error(), "--param") {
			t.Errorf("ParseParams(%q) = %v, want a plain error (the command names its flag)", bad, err)
		}
	}
}

func TestParseSideAndAlign(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want string // %+v of the side without Text, or "error"
	}{
		{"old.db", "db=old.db"},
		{"commit=1a2b,db=x.db", "db=x.db commit=1a2b"},
		{"method=ugnn", "method=ugnn"},
		{"tau=0.2,alpha=1.2", "alpha=1.2 tau=0.2"},
		{"alpha=abc", "error"},
		{"tau=", "error"},
		{"tau=1,tau=2", "error"},
		{"tau=unset", "tau=unset"},
		{"", "error"},
		{"method=sage-topk,score=knn_k10", "method=sage-topk score=knn_k10"},
		{"score=native", "score=native"},
		{"score=KNN", "error"},
	} {
		s, err := ParseSide(c.arg)
		got := "error"
		if err == nil {
			var parts []string
			for _, kv := range [][2]string{{"db", s.DB}, {"commit", s.Commit}, {"method", s.Method}, {"alpha", s.Alpha}, {"tau", s.Params["tau"]}, {"score", s.Score}} {
				if kv[1] != "" {
					parts = append(parts, kv[0]+"="+kv[1])
				}
			}
			got = strings.Join(parts, " ")
		}
		if got != c.want {
			t.Errorf("ParseSide(%q) = %q, want %q", c.arg, got, c.want)
		}
	}

	// Two values of tau: the param must not split rows, and each side
	// keeps its own runs.
	var rs []runs.Run
	for i, tau := range []float64{0.1, 0.1, 0.2, 0.2} {
		r := mk("ugnn", "COIL-DEL", "low", int64(i%2), 0.5+tau)
		r.Spec.Params = suite.Params{"tau": tau, "epochs": 20.0}
		r.Provenance.GitCommit = "abcdef"
		rs = append(rs, r)
	}
	a, _ := ParseSide("tau=0.1")
	b, _ := ParseSide("tau=0.20,commit=abc")
	old, new := AlignSides(a, b, a.Select(rs), b.Select(rs))
	if len(old) != 2 || len(new) != 2 {
		t.Fatalf("sides select %d and %d runs, want 2 and 2", len(old), len(new))
	}
	if _, ok := old[0].Spec.Params["tau"]; ok {
		t.Errorf("tau kept in the aligned runs")
	}
	if _, ok := rs[0].Spec.Params["tau"]; !ok {
		t.Errorf("AlignSides changed its input")
	}
	m1, _ := ParseSide("method=gin-topk")
	m2, _ := ParseSide("method=ugnn")
	o, n := AlignSides(m1, m2, []runs.Run{mk("gin-topk", "X", "low", 0, 0)}, []runs.Run{mk("ugnn", "X", "low", 0, 0)})
	if o[0].Spec.Method != "gin-topk → ugnn" || n[0].Spec.Method != o[0].Spec.Method {
		t.Errorf("methods aligned as %q and %q", o[0].Spec.Method, n[0].Spec.Method)
	}
}

func TestValidScore(t *testing.T) {
	for _, bad := range []string{"KNN", "knn k", "", "k:n", "knn;k"} {
		if ValidScore(bad) == nil {
			t.Errorf("ValidScore(%q) = nil", bad)
		}
	}
	for _, good := range []string{suite.NativeScore, "knn_k10", "mahalanobis_shrink0.5", "energy_t1e-05", "energy_t1e+21"} {
		if err := ValidScore(good); err != nil {
			t.Errorf("ValidScore(%q) = %v", good, err)
		}
	}
}
