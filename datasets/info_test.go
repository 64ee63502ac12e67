package datasets

import (
	"strings"
	"testing"
)

func TestPaperDatasets(t *testing.T) {
	// docs/protocol.md §1 table, in the paper's order.
	want := []struct {
		name           string
		classes, known int
		low, high      float64
		graphs         int
		format         string
	}{
		{"COIL-DEL", 100, 80, 0.50, 0.80, 3900, FormatTU},
		{"Letter-high", 15, 10, 0.20, 0.40, 2250, FormatTU},
		{"MNIST", 10, 7, 0.01, 0.03, 55000, FormatSuperpixel},
		{"CIFAR10", 10, 7, 0.30, 0.70, 45000, FormatSuperpixel},
		{"REDDIT-MULTI-12K", 11, 7, 0.30, 0.70, 11929, FormatTU},
		{"COLORS-3", 11, 7, 0.30, 0.80, 10500, FormatTU},
	}
	got := PaperDatasets()
	if len(got) != len(want) {
		t.Fatalf("%d paper datasets, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Classes != w.classes || g.Known != w.known || g.Low != w.low || g.High != w.high ||
			g.PaperGraphs != w.graphs || g.PaperClasses != w.classes || g.Format != w.format || !g.InPaper {
			t.Errorf("paper dataset %d = %+v, want %+v", i, g, w)
		}
		if g.Unknown() != w.classes-w.known {
			t.Errorf("%s: Unknown() = %d", g.Name, g.Unknown())
		}
		if l, ok := LookupInfo(w.name); !ok || l != g {
			t.Errorf("LookupInfo(%s) = %+v, %v", w.name, l, ok)
		}
	}
	got[0].Known = -1 // a copy: must not change the table
	if PaperDatasets()[0].Known != 80 {
		t.Error("PaperDatasets returned the internal table")
	}
}

func TestExtraInfos(t *testing.T) {
	want := map[string][4]float64{ // classes, known, low, high
		"Letter-low":  {15, 10, 0.2, 0.4},
		"Letter-med":  {15, 10, 0.2, 0.4},
		"COIL-RAG":    {100, 80, 0.5, 0.8},
		"IMDB-BINARY": {2, 1, 0.3, 0.7},
		"IMDB-MULTI":  {3, 2, 0.3, 0.7},
	}
	for name, w := range want {
		in, ok := LookupInfo(name)
		if !ok {
			t.Errorf("no info for %s", name)
			continue
		}
		if in.InPaper || in.PaperGraphs != 0 || float64(in.Classes) != w[0] || float64(in.Known) != w[1] || in.Low != w[2] || in.High != w[3] {
			t.Errorf("%s = %+v, want %v and not in paper", name, in, w)
		}
	}
	if len(AllInfos()) != 6+len(want) {
		t.Errorf("AllInfos has %d entries", len(AllInfos()))
	}
	if _, ok := LookupInfo("letter-high"); ok {
		t.Error("LookupInfo must be case-sensitive")
	}
}

func TestResolveRatio(t *testing.T) {
	cases := []struct {
		dataset, s string
		name       string
		ratio      float64
		err        string
	}{
		{"COIL-DEL", "low", "low", 0.5, ""},
		{"COIL-DEL", "high", "high", 0.8, ""},
		{"MNIST", " LOW ", "low", 0.01, ""},
		{"COLORS-3", "high", "high", 0.8, ""},
		{"COLORS-3", "0.25", "0.25", 0.25, ""},
		{"anything", "1", "1", 1, ""},
		{"anything", ".5", "0.5", 0.5, ""},
		{"anything", "low", "", 0, `ratio "low": dataset "anything" has no protocol entry`},
		{"COIL-DEL", "0", "", 0, `ratio "0"`},
		{"COIL-DEL", "1.5", "", 0, `ratio "1.5"`},
		{"COIL-DEL", "-0.1", "", 0, `ratio "-0.1"`},
		{"COIL-DEL", "NaN", "", 0, `ratio "NaN"`},
		{"COIL-DEL", "medium", "", 0, `ratio "medium": want "low", "high" or a number in (0, 1]`},
	}
	for _, c := range cases {
		name, r, err := ResolveRatio(c.dataset, c.s)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ResolveRatio(%q, %q) error %v, want %q", c.dataset, c.s, err, c.err)
			}
			continue
		}
		if err != nil || name != c.name || r != c.ratio {
			t.Errorf("ResolveRatio(%q, %q) = %q, %v, %v; want %q, %v", c.dataset, c.s, name, r, err, c.name, c.ratio)
		}
	}
}
