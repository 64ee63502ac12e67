package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestPlotTSNE runs a tiny real grid on Letter-high (gin-topk and ugnn at
// 4 steps and hidden 16, and wl; 2 seeds), checks that each gin-topk and
// ugnn run stored the embeddings of exactly its test set with their
// truth, draws two runs' t-SNE side by side as SVG, and checks
// the error for a run without embeddings (wl).
func TestPlotTSNE(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	grid := []string{"--methods", "gin-topk,ugnn,wl", "--datasets", "Letter-high", "--ratios", "low",
		"--seeds", "0-1", "--steps", "4", "--set", "gin-topk.hidden=16", "--set", "ugnn.hidden=16", "--db", db, "--data-dir", dir, "--quiet"}
	var out bytes.Buffer
	if err := runGrid(grid, &out); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(dir, "Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := store.List(runs.Filter{Methods: []string{"gin-topk", "ugnn"}, Status: []runs.Status{runs.StatusFinished}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d finished gin-topk and ugnn runs, want 4", len(rs))
	}
	for _, r := range rs {
		e, err := store.Embeddings(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		split, err := suite.MakeSplit(ds, r.Spec)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Graphs) != len(split.Test) || e.Dim != 32 || len(e.Data) != len(split.Test)*32 {
			t.Errorf("run %d: %d graphs of width %d (%d values), want the test set's %d of width 2·16", r.ID, len(e.Graphs), e.Dim, len(e.Data), len(split.Test))
		}
		unknown := 0
		for i, g := range e.Graphs {
			if g != split.Test[i] {
				t.Fatalf("run %d: graph %d is %d, want the test set's %d", r.ID, i, g, split.Test[i])
			}
			want := split.KnownIndex(ds.Labels[g])
			if want < 0 {
				want = suite.Unknown
				unknown++
			}
			if e.Truth[i] != want {
				t.Errorf("run %d: truth of graph %d = %d, want %d", r.ID, g, e.Truth[i], want)
			}
		}
		if unknown == 0 || unknown == len(e.Graphs) {
			t.Errorf("run %d: %d of %d test graphs unknown; want both kinds", r.ID, unknown, len(e.Graphs))
		}
	}
	store.Close()

	for _, ext := range []string{".svg"} { // PNG: reports.TestTSNEPlotWritesFigure
		file := filepath.Join(tmp, "tsne"+ext)
		out.Reset()
		args := []string{"tsne", "--db", db, "--methods", "ugnn,gin-topk", "--seeds", "1", "--out", file, "--iterations", "10", "--perplexity", "20"}
		if err := runPlot(args, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "2 panel(s)") {
			t.Errorf("plot tsne said %q", out.String())
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 20000 {
			t.Errorf("%s: %d bytes; two panels of ~450 dots are more", file, len(b))
		}
		if ext == ".svg" && (!bytes.HasPrefix(bytes.TrimSpace(b), []byte("<?xml")) || !bytes.Contains(b, []byte("<svg")) ||
			!bytes.Contains(b, []byte("gin-topk · Letter-high low · split 0 seed 1")) ||
			bytes.Index(b, []byte("ugnn · Letter-high")) > bytes.Index(b, []byte("gin-topk · Letter-high")) || !bytes.Contains(b, []byte("unknown"))) {
			t.Errorf("%s is not the SVG of the figure: %.200s", file, b)
		}
	}
	// --max-points cuts the 450-graph test set to a sample and says so.
	file := filepath.Join(tmp, "sample.svg")
	out.Reset()
	if err := runPlot([]string{"tsne", "--db", db, "--methods", "gin-topk", "--seeds", "1", "--out", file, "--iterations", "10", "--perplexity", "20", "--max-points", "100"}, &out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Contains(b, []byte("100 of 450 test graphs")) {
		t.Errorf("plot tsne --max-points 100: %v; the title does not say 100 of 450 test graphs", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tsne", "--db", db, "--methods", "wl", "--out", filepath.Join(tmp, "wl.svg")}, "(wl/Letter-high/low/split=0/seed=0) has no stored embeddings"},
		{[]string{"tsne", "--db", db, "--methods", "gin-topk", "--out", filepath.Join(tmp, "x.svg"), "--perplexity", "5000"}, "below the number of points"},
		{[]string{"tsne", "--db", db, "--methods", "gin-topk", "--out", filepath.Join(tmp, "x.svg"), "--ids", "999"}, "--ids [999]"},
		{[]string{"tsne", "--db", db}, "--out"},
	} {
		err := runPlot(tc.args, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}
