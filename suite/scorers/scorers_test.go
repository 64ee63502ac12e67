package scorers_test

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ugbench/ugbench/suite/scorers"
)

func TestRegistry(t *testing.T) {
	want := []string{"energy", "knn", "mahalanobis", "maxlogit", "msp"}
	if got := scorers.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	defaults := map[string]map[string]float64{
		"energy": {"t": 1}, "knn": {"k": 1}, "mahalanobis": {"shrink": 0.1}, "maxlogit": {}, "msp": {},
	}
	for _, name := range want {
		if d := scorers.Doc(name); !strings.Contains(d, "20") { // every doc cites a year
			t.Errorf("Doc(%s) = %q: no source", name, d)
		}
		if got := scorers.Defaults(name); !maps.Equal(got, defaults[name]) {
			t.Errorf("Defaults(%s) = %v, want %v", name, got, defaults[name])
		}
		s := mustParse(t, name)
		if s.Name() != name || s.Label() != name || !maps.Equal(s.Params(), defaults[name]) {
			t.Errorf("Parse(%s): name %s label %s params %v", name, s.Name(), s.Label(), s.Params())
		}
	}
	if scorers.Doc("nope") != "" || scorers.Defaults("nope") != nil {
		t.Error("Doc/Defaults of an unknown scorer not empty")
	}
}

func TestNeeds(t *testing.T) {
	for name, want := range map[string][2]bool{
		"msp": {true, false}, "maxlogit": {true, false}, "energy": {true, false},
		"mahalanobis": {false, true}, "knn": {false, true},
	} {
		l, e := mustParse(t, name).Needs()
		if [2]bool{l, e} != want {
			t.Errorf("%s.Needs() = %v, %v, want %v", name, l, e, want)
		}
	}
}

func TestLabel(t *testing.T) {
	cases := []struct {
		spec, label string
		params      map[string]float64
	}{
		{"knn", "knn", map[string]float64{"k": 1}},
		{"knn:k=1", "knn", map[string]float64{"k": 1}},
		{"knn:k=10", "knn_k10", map[string]float64{"k": 10}},
		{" knn : k = 10 ", "knn_k10", map[string]float64{"k": 10}},
		{"energy:t=2", "energy_t2", map[string]float64{"t": 2}},
		{"energy:t=0.5", "energy_t0.5", map[string]float64{"t": 0.5}},
		{"energy:t=1e-3", "energy_t0.001", map[string]float64{"t": 0.001}},
		{"mahalanobis:shrink=0.5", "mahalanobis_shrink0.5", map[string]float64{"shrink": 0.5}},
		{"mahalanobis:shrink=-0", "mahalanobis_shrink0", map[string]float64{"shrink": 0}},
		{"mahalanobis:shrink=0.10", "mahalanobis", map[string]float64{"shrink": 0.1}},
	}
	for _, c := range cases {
		s := mustParse(t, c.spec)
		if s.Label() != c.label || !maps.Equal(s.Params(), c.params) {
			t.Errorf("Parse(%q): label %q params %v, want %q %v", c.spec, s.Label(), s.Params(), c.label, c.params)
		}
	}
	// Params is a copy.
	s := mustParse(t, "knn:k=3")
	s.Params()["k"] = 7
	if s.Params()["k"] != 3 {
		t.Error("Params() aliases the scorer's parameters")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		spec string
		want []string // substrings of the error
	}{
		{"", []string{`unknown scorer ""`, "energy, knn, mahalanobis, maxlogit, msp"}},
		{"odin", []string{`"odin"`, "registered: energy, knn, mahalanobis, maxlogit, msp"}},
		{"knn:j=2", []string{`"knn:j=2"`, `no parameter "j"`, "valid: k"}},
		{"msp:t=1", []string{`no parameter "t"`, "it has none"}},
		{"knn:k=0", []string{`"knn:k=0"`, "k=0", "an integer ≥ 1"}},
		{"knn:k=1.5", []string{"k=1.5", "an integer ≥ 1"}},
		{"energy:t=-1", []string{"t=-1", "> 0"}},
		{"energy:t=0", []string{"t=0", "> 0"}},
		{"energy:t=NaN", []string{"t=NaN", "> 0"}},
		{"energy:t=Inf", []string{"t=Inf", "> 0"}},
		{"energy:t=1e999", []string{"t=1e999", "> 0"}},
		{"energy:t=two", []string{"t=two", "not a number"}},
		{"mahalanobis:shrink=2", []string{"shrink=2", "in [0, 1]"}},
		{"knn:k", []string{`"k" is not param=value`}},
		{"knn:k=", []string{`"k=" is not param=value`}},
		{"knn:", []string{`"" is not param=value`}},
		{"knn:k=2,", []string{`"" is not param=value`}},
		{"knn:k=2,k=3", []string{`"k" set twice`}},
	}
	for _, c := range cases {
		_, err := scorers.Parse(c.spec)
		if err == nil {
			t.Errorf("Parse(%q): no error", c.spec)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q): error %q lacks %q", c.spec, err, w)
			}
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := scorers.ParseList([]string{"msp", "energy:t=2", "knn:k=5"})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range got {
		labels = append(labels, s.Label())
	}
	if !slices.Equal(labels, []string{"msp", "energy_t2", "knn_k5"}) {
		t.Errorf("labels %v", labels)
	}
	for _, specs := range [][]string{{"knn", "knn:k=1"}, {"knn:k=2", "msp", "knn:k=2.0"}} {
		if _, err := scorers.ParseList(specs); err == nil || !strings.Contains(err.Error(), "same scorer") {
			t.Errorf("ParseList(%q): error %v, want a duplicate", specs, err)
		}
	}
	if _, err := scorers.ParseList([]string{"msp", "bad"}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("ParseList with a bad spec: error %v", err)
	}
}

// randomOutputs returns n rows of logits (width c) and embeddings (width d).
func randomOutputs(r *rand.Rand, n, c, d int) scorers.Outputs {
	mk := func(w int) [][]float32 {
		m := make([][]float32, n)
		for i := range m {
			m[i] = make([]float32, w)
			for j := range m[i] {
				m[i][j] = float32(r.NormFloat64() * 2)
			}
		}
		return m
	}
	return scorers.Outputs{Logits: mk(c), Embeddings: mk(d)}
}

var allSpecs = []string{"msp", "maxlogit", "energy:t=2", "mahalanobis", "mahalanobis:shrink=0", "knn:k=3"}

// Fit sees only D^l (its signature has no evaluation data) and Score rates
// each row on its own: scoring a set at once equals scoring its rows one by
// one, and changing the caller's D^l slices after Fit changes nothing.
func TestScoreIsPerRowAndFitKeepsNoReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lab := randomOutputs(r, 30, 3, 4)
	labels := make([]int, 30)
	for i := range labels {
		labels[i] = i % 3
	}
	eval := randomOutputs(r, 8, 3, 4)
	for _, spec := range allSpecs {
		s := mustParse(t, spec)
		if err := s.Fit(lab, labels, 3); err != nil {
			t.Fatal(err)
		}
		all, err := s.Score(eval)
		if err != nil {
			t.Fatal(err)
		}
		for i := range eval.Logits {
			one, err := s.Score(scorers.Outputs{Logits: eval.Logits[i : i+1], Embeddings: eval.Embeddings[i : i+1]})
			if err != nil || one[0] != all[i] {
				t.Errorf("%s: row %d alone scores %v (%v), in the set %v", spec, i, one, err, all[i])
			}
		}
		saved := [2][]float32{slices.Clone(lab.Logits[0]), slices.Clone(lab.Embeddings[0])}
		lab.Logits[0][0], lab.Embeddings[0][0] = 100, 100
		labels[0] = 1
		again, _ := s.Score(eval)
		lab.Logits[0], lab.Embeddings[0], labels[0] = saved[0], saved[1], 0
		if !slices.Equal(again, all) {
			t.Errorf("%s: changing D^l after Fit changed the scores", spec)
		}
	}
}

// Permuting the rows of D^l together with their labels fits the same
// scorer; changing labels fits a different one where labels matter.
func TestFitPermutationAndLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lab := randomOutputs(r, 40, 3, 5)
	labels := make([]int, 40)
	for i := range labels {
		labels[i] = r.IntN(3)
	}
	perm := r.Perm(40)
	var plab scorers.Outputs
	plabels := make([]int, 40)
	for i, p := range perm {
		plab.Logits = append(plab.Logits, lab.Logits[p])
		plab.Embeddings = append(plab.Embeddings, lab.Embeddings[p])
		plabels[i] = labels[p]
	}
	eval := randomOutputs(r, 10, 3, 5)
	for _, spec := range allSpecs {
		want := fitScore(t, spec, lab, labels, 3, eval)
		got := fitScore(t, spec, plab, plabels, 3, eval)
		checkScores(t, spec+" permuted", got, want, 1e-12)
	}
	relabelled := slices.Clone(labels)
	for i := range relabelled {
		relabelled[i] = (relabelled[i] + i) % 3
	}
	a := fitScore(t, "mahalanobis", lab, labels, 3, eval)
	b := fitScore(t, "mahalanobis", lab, relabelled, 3, eval)
	if slices.Equal(a, b) {
		t.Error("mahalanobis: other labels, same scores")
	}
}

func TestShapeErrors(t *testing.T) {
	ok := scorers.Outputs{Logits: [][]float32{{1, 0}, {0, 1}, {2, 0}}, Embeddings: [][]float32{{1, 0, 0}, {0, 1, 1}, {1, 1, 0}}}
	labels := []int{0, 1, 0}
	fitCases := []struct {
		name, spec string
		lab        scorers.Outputs
		labels     []int
		numKnown   int
		want       string
	}{
		{"no logits", "msp", scorers.Outputs{Embeddings: ok.Embeddings}, labels, 2, "does not give"},
		{"no embeddings", "knn", scorers.Outputs{Logits: ok.Logits}, labels, 2, "does not give"},
		{"logit width ≠ numKnown", "energy", ok, labels, 3, "width 2, want 3"},
		{"rows ≠ labels", "knn", ok, []int{0}, 2, "3 rows of labelled embeddings, want 1"},
		{"ragged", "mahalanobis", scorers.Outputs{Embeddings: [][]float32{{1, 0}, {1}, {0, 0}}}, labels, 2, "row 1 of labelled embeddings has width 1, want 2"},
		{"label out of range", "msp", ok, []int{0, 2, 0}, 2, "label 2 of labelled graph 1 not in 0..1"},
		{"negative label", "knn", ok, []int{-1, 0, 0}, 2, "label -1"},
		{"no class", "msp", ok, labels, 0, "0 known classes"},
		{"NaN", "knn", scorers.Outputs{Embeddings: [][]float32{{1, float32(math.NaN())}, {0, 1}, {1, 1}}}, labels, 2, "[0][1] is NaN"},
		{"no labelled graph", "mahalanobis", scorers.Outputs{Embeddings: [][]float32{}}, nil, 2, "no labelled graph"},
	}
	for _, c := range fitCases {
		err := mustParse(t, c.spec).Fit(c.lab, c.labels, c.numKnown)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Fit error %v, want %q", c.name, err, c.want)
		}
	}
	scoreCases := []struct {
		name, spec string
		eval       scorers.Outputs
		want       string
	}{
		{"logit width", "msp", scorers.Outputs{Logits: [][]float32{{1, 2, 3}}}, "width 3, want 2"},
		{"embedding width", "knn", scorers.Outputs{Embeddings: [][]float32{{1, 2}}}, "width 2, want 3"},
		{"mahalanobis width", "mahalanobis:shrink=0.5", scorers.Outputs{Embeddings: [][]float32{{1, 2, 3, 4}}}, "width 4, want 3"},
		{"missing", "maxlogit", scorers.Outputs{Embeddings: ok.Embeddings}, "does not give"},
		{"Inf", "energy", scorers.Outputs{Logits: [][]float32{{1, float32(math.Inf(1))}}}, "is +Inf"},
	}
	for _, c := range scoreCases {
		s := mustParse(t, c.spec)
		if err := s.Fit(ok, labels, 2); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err := s.Score(c.eval)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Score error %v, want %q", c.name, err, c.want)
		}
	}
	// Score before Fit, and after a failed Fit.
	s := mustParse(t, "knn:k=2")
	if _, err := s.Score(ok); err == nil || !strings.Contains(err.Error(), "before a successful Fit") {
		t.Errorf("Score before Fit: %v", err)
	}
	if err := s.Fit(ok, labels, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Fit(scorers.Outputs{Embeddings: ok.Embeddings[:1]}, labels[:1], 2); err == nil {
		t.Fatal("knn:k=2 fitted on 1 graph")
	}
	if _, err := s.Score(ok); err == nil {
		t.Error("Score after a failed Fit succeeded")
	}
}

// TestNewIsIndependent: New gives an unfitted copy with the same label
// and parameters, and fitting it leaves the original as it was; copies
// fit and score concurrently (run with -race).
func TestNewIsIndependent(t *testing.T) {
	orig, err := scorers.Parse("knn:k=2")
	if err != nil {
		t.Fatal(err)
	}
	bank := scorers.Outputs{Embeddings: [][]float32{{1, 0}, {0, 1}, {1, 1}}}
	eval := scorers.Outputs{Embeddings: [][]float32{{1, 0}, {0, 2}}}
	var wg sync.WaitGroup
	scores := make([][]float64, 4)
	for i := range scores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := orig.New()
			if c.Label() != "knn_k2" || c.Params()["k"] != 2 {
				t.Errorf("copy %s %v", c.Label(), c.Params())
			}
			if err := c.Fit(bank, []int{0, 1, 0}, 2); err != nil {
				t.Error(err)
				return
			}
			scores[i], _ = c.Score(eval)
		}()
	}
	wg.Wait()
	for i := range scores {
		if !slices.Equal(scores[i], scores[0]) || len(scores[i]) != 2 {
			t.Errorf("copy %d scored %v, copy 0 %v", i, scores[i], scores[0])
		}
	}
	if _, err := orig.Score(eval); err == nil {
		t.Errorf("the original scored although only its copies were fitted")
	}
}
