package datasets_test

import (
	"math"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
)

// twoGraphs is a path 0–1–2 with 1-d features and node labels, and a single
// edge without labels.
func twoGraphs() []datasets.Graph {
	return []datasets.Graph{
		{NumNodes: 3, Src: []int32{0, 1, 1, 2}, Dst: []int32{1, 0, 2, 1}, Features: []float32{0.5, 0, 1}, NodeLabels: []int32{0, 1, 0}},
		{NumNodes: 2, Src: []int32{0, 1}, Dst: []int32{1, 0}, Features: []float32{1, 2}},
	}
}

// TestFingerprint: equal content gives an equal fingerprint; a change to
// any part a model or kernel reads gives another one.
func TestFingerprint(t *testing.T) {
	base := datasets.Fingerprint(twoGraphs())
	if len(base) != 64 {
		t.Fatalf("fingerprint %q: want 64 hex digits", base)
	}
	if got := datasets.Fingerprint(twoGraphs()); got != base {
		t.Fatalf("same graphs, fingerprints %s and %s", base, got)
	}
	changes := []struct {
		name string
		edit func(g []datasets.Graph) []datasets.Graph
	}{
		{"edge endpoint", func(g []datasets.Graph) []datasets.Graph { g[0].Dst[3] = 0; return g }},
		{"feature value", func(g []datasets.Graph) []datasets.Graph { g[0].Features[0] = 0.25; return g }},
		{"0 → -0 feature", func(g []datasets.Graph) []datasets.Graph {
			g[0].Features[1] = float32(math.Copysign(0, -1))
			return g
		}},
		{"node label", func(g []datasets.Graph) []datasets.Graph { g[0].NodeLabels[2] = 2; return g }},
		{"no labels → empty labels", func(g []datasets.Graph) []datasets.Graph { g[1].NodeLabels = []int32{}; return g }},
		{"node count", func(g []datasets.Graph) []datasets.Graph { g[1].NumNodes = 3; return g }},
		{"graph order", func(g []datasets.Graph) []datasets.Graph { g[0], g[1] = g[1], g[0]; return g }},
		{"graph dropped", func(g []datasets.Graph) []datasets.Graph { return g[:1] }},
		// The same numbers cut at another graph boundary.
		{"features moved between graphs", func(g []datasets.Graph) []datasets.Graph {
			g[0].Features, g[1].Features = []float32{0.5, 0}, []float32{1, 1, 2}
			return g
		}},
	}
	seen := map[string]string{base: "base"}
	for _, c := range changes {
		fp := datasets.Fingerprint(c.edit(twoGraphs()))
		if prev, ok := seen[fp]; ok {
			t.Errorf("%s: fingerprint equals that of %s", c.name, prev)
		}
		seen[fp] = c.name
	}
	if datasets.Fingerprint(nil) == datasets.Fingerprint([]datasets.Graph{{}}) {
		t.Error("no graphs and one empty graph have the same fingerprint")
	}
}

// TestFingerprintRealData: loading a real dataset twice gives the same
// fingerprint, a copy with one feature changed another.
func TestFingerprintRealData(t *testing.T) {
	a := datasetstest.Load(t, "Letter-high")
	b := datasetstest.Load(t, "Letter-high")
	if datasets.Fingerprint(a.Graphs) != datasets.Fingerprint(b.Graphs) {
		t.Fatal("two loads of Letter-high differ")
	}
	g := slices.Clone(b.Graphs)
	g[100].Features = slices.Clone(g[100].Features)
	g[100].Features[0] += 1e-3
	if datasets.Fingerprint(a.Graphs) == datasets.Fingerprint(g) {
		t.Error("a changed feature left the fingerprint unchanged")
	}
}

// BenchmarkFingerprint: one fingerprint of a whole dataset, the cost every
// kernel run and every UGNN run with a warm-up cache pays once.
func BenchmarkFingerprint(b *testing.B) {
	for _, name := range []string{"Letter-high", "COLORS-3"} {
		ds := datasetstest.Load(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				datasets.Fingerprint(ds.Graphs)
			}
		})
	}
}
