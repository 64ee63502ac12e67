package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
)

// TestGridReportResume drives the CLI end to end on real Letter-high: a
// small grid (wl and a 3-epoch gin-topk), the accuracy and F1 tables, and a
// rerun that must run nothing.
func TestGridReportResume(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	db := filepath.Join(t.TempDir(), "runs.db")
	grid := []string{"--methods", "wl,gin-topk", "--datasets", "Letter-high", "--ratios", "low",
		"--seeds", "0-1", "--steps", "12", "--set", "gin-topk.hidden=32", "--db", db, "--data-dir", dir, "--quiet"}
	var out bytes.Buffer
	if err := runGrid(grid, &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runReport([]string{"accuracy", "--db", db}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Letter-high", "Low Ratio", "wl", "gin-topk", "±", "chance"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("accuracy table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runReport([]string{"f1", "--db", db, "--format", "latex"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `\toprule`) || !strings.Contains(out.String(), "gin-topk") {
		t.Errorf("latex F1 table:\n%s", out.String())
	}
	// No UGNN run: the paper's side of the column, ours the best baseline
	// run; names through --names paper.
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--format", "md"}, []string{"| Letter-high low | 0.640±0.010 | gla 0.602±0.016 (UGNN +0.038) | +0.151 | – | ", "| UGNN not run |"}},
		{[]string{"--names", "paper"}, []string{"GLA 0.602±0.016 (UGNN +0.038)", "WL Kernel 0.313±0.000"}},
	} {
		out.Reset()
		if err := runReport(append([]string{"claims", "--db", db}, c.args...), &out); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report claims %v lacks %q:\n%s", c.args, want, out.String())
			}
		}
	}
	if err := runReport([]string{"claims", "--db", db, "--standalone"}, &out); err == nil {
		t.Error("report claims --standalone: no error")
	}

	// Rerun: nothing new starts, attempts stay 1.
	if err := runGrid(grid, &out); err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rs, err := store.List(runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d runs stored, want 4", len(rs))
	}
	for _, r := range rs {
		if r.Status != runs.StatusFinished || r.Attempts != 1 {
			t.Errorf("run %s: status %s, attempts %d; want finished, 1", r.Spec, r.Status, r.Attempts)
		}
	}
	out.Reset()
	if err := runGrid(append(grid, "--dry-run"), &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "  done  "); n != 4 || !strings.Contains(out.String(), "4 runs, 0 to do\n") {
		t.Errorf("dry run after the grid: %d done, want 4:\n%s", n, out.String())
	}
	out.Reset()
	if err := runRuns([]string{"--db", db, "--format", "csv"}, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "finished"); n != 4 {
		t.Errorf("bench runs lists %d finished runs, want 4:\n%s", n, out.String())
	}

	// bench curves: gin-topk's loss over its 3 epochs (12 steps of
	// batches of 64 of the 240 labelled graphs), averaged over the
	// two seeds; a curve nobody stored is an error naming it.
	out.Reset()
	if err := runCurves([]string{"--db", db, "--methods", "gin-topk", "--curves", "loss", "--format", "md"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "### gin-topk · Letter-high · low (2 runs: seeds 0,1)") ||
		strings.Count(out.String(), "±") != 3 || !strings.Contains(out.String(), "| 3 | ") {
		t.Errorf("bench curves, want 3 epochs of mean±std:\n%s", out.String())
	}
	if err := runCurves([]string{"--db", db, "--curves", "los"}, &out); err == nil || !strings.Contains(err.Error(), `"los"`) {
		t.Errorf("bench curves --curves los: error %v, want it to name the curve", err)
	}

	// --rerun marks the selected finished runs; the same grid recomputes
	// exactly those.
	for _, bad := range [][]string{{"--rerun", "why"}, {"--methods", "wl", "--rerun", " "}, {"--status", "done"}, {"--dry-run"}, {"--param", "x"}} {
		if err := runRuns(append(bad, "--db", db), &out); err == nil {
			t.Errorf("runs %v: no error", bad)
		}
	}
	out.Reset()
	if err := runRuns([]string{"--db", db, "--methods", "wl", "--ratios", "lo", "--rerun", "test"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "no finished run matches (0 run(s) selected)") {
		t.Errorf("rerun of a typo: %q", out.String())
	}
	rerun := []string{"--db", db, "--methods", "wl", "--seeds", "1", "--format", "csv", "--rerun", "test"}
	for _, dry := range []bool{true, false} {
		out.Reset()
		args, verb := rerun, "marked"
		if dry {
			args, verb = append(rerun, "--dry-run"), "would mark"
		}
		if err := runRuns(args, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), verb+" 1 finished run(s) for rerun") || strings.Count(out.String(), ",wl,") != 1 {
			t.Errorf("rerun (dry %v) output, want the one wl run listed and %q:\n%s", dry, verb, out.String())
		}
	}
	out.Reset()
	if err := runGrid(append(grid, "--dry-run"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 runs, 1 to do\n") {
		t.Errorf("dry run after --rerun, want 1 to do:\n%s", out.String())
	}
	// The wl run to do is estimated from its finished twin of the other seed.
	if !strings.Contains(out.String(), "(same config, 1 run(s))") || !strings.Contains(out.String(), "estimated wall time of the runs to do, one after another: ") {
		t.Errorf("dry run after --rerun, want the todo run's estimate from the other seed's wl run:\n%s", out.String())
	}
	if err := runGrid(grid, &out); err != nil {
		t.Fatal(err)
	}
	rs, err = store.List(runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		want := 1
		if r.Spec.Method == "wl" && r.Spec.Seed == 1 {
			want = 2
		}
		if r.Status != runs.StatusFinished || r.Attempts != want {
			t.Errorf("after the rerun, %s: status %s, attempts %d; want finished, %d", r.Spec, r.Status, r.Attempts, want)
		}
	}
}

// TestBadInput: every bad flag gives an error naming the flag or value.
func TestBadInput(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	db := filepath.Join(t.TempDir(), "runs.db")
	base := []string{"--db", db, "--data-dir", dir, "--quiet"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--methods", "nope", "--datasets", "Letter-high"}, `unknown method "nope"`},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--seeds", "x"}, "--seeds"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--ratios", "2"}, `ratio "2"`},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--set", "wl.nope=1"}, "wl.nope"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--set", "wl.C=abc"}, "wl.C"},
		{[]string{"--methods", "wl", "--datasets", "No-Such-Set"}, "No-Such-Set"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--devices", "tpu:1"}, "--devices"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--alpha", "0"}, "--alpha"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--test-frac", "1"}, "--test-frac"},
		{[]string{"--methods", "wl", "--datasets", "Letter-high", "--backend", "xla:cpu"}, "--backend"},
	}
	for _, c := range cases {
		err := runGrid(append(c.args, base...), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("grid %v: error %v, want it to mention %q", c.args, err, c.want)
		}
	}
	err := runReport([]string{"accuracy", "--db", filepath.Join(t.TempDir(), "missing.db")}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("report on a missing db: %v", err)
	}
}

// TestShardedGridMerge runs wl on real Letter-high (2 ratios × 3 seeds) as
// three shards into three databases, merges them, and checks that the
// merged database gives the same report tables as the grid run unsharded,
// and that merging again changes nothing.
func TestShardedGridMerge(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	tmp := t.TempDir()
	grid := []string{"--methods", "wl", "--datasets", "Letter-high", "--ratios", "low,high", "--seeds", "0-2", "--data-dir", dir, "--quiet"}
	var out bytes.Buffer
	if err := runGrid(append(grid, "--db", filepath.Join(tmp, "all.db")), &out); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(tmp, "merged.db")
	mergeArgs := []string{merged}
	total := 0
	for i := 0; i < 3; i++ {
		db := filepath.Join(tmp, fmt.Sprintf("shard%d.db", i))
		if err := runGrid(append(grid, "--db", db, "--shard", fmt.Sprintf("%d/3", i)), &out); err != nil {
			t.Fatal(err)
		}
		store, err := runs.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := store.List(runs.Filter{})
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		total += len(rs)
		mergeArgs = append(mergeArgs, db)
	}
	if total != 6 {
		t.Errorf("the shards ran %d runs, want 6", total)
	}
	report := func(db string) string {
		var b bytes.Buffer
		for _, table := range [][]string{{"accuracy"}, {"f1"}, {"metric", "ood_auroc"}} {
			if err := runReport(append(table, "--db", db, "--format", "csv"), &b); err != nil {
				t.Fatal(err)
			}
		}
		return b.String()
	}
	want := report(filepath.Join(tmp, "all.db"))
	for pass := 0; pass < 2; pass++ {
		out.Reset()
		if err := runMerge(mergeArgs, &out); err != nil {
			t.Fatal(err)
		}
		if pass == 1 && strings.Count(out.String(), "0 added, 0 replaced") != 3 {
			t.Errorf("merging again changed runs:\n%s", out.String())
		}
		if got := report(merged); got != want {
			t.Errorf("merge %d: report of the merged shards\n%s\nwant (unsharded)\n%s", pass+1, got, want)
		}
	}
	if strings.Count(want, "wl,Letter-high,") != 6 || strings.Count(want, ",3\n") != 6 {
		t.Errorf("the reports compare little:\n%s", want)
	}
}

func TestSlurmFlags(t *testing.T) {
	tmp := t.TempDir()
	grid := []string{"--methods", "wl", "--datasets", "Letter-high", "--seeds", "0-2"}
	cases := []struct {
		args    []string
		wantErr string
	}{
		{append([]string{"--dir", tmp, "--"}, grid...), "--shards"},
		{append([]string{"--shards", "2", "--dir", tmp, "--", "--db", "x.db"}, grid...), "grid flag --db"},
		{append([]string{"--shards", "2", "--dir", tmp, "--", "--shard", "0/2"}, grid...), "grid flag --shard"},
		{[]string{"--shards", "2", "--dir", tmp, "--", "--methods", "no-such-method", "--datasets", "Letter-high"}, "no-such-method"},
		{append([]string{"--shards", "2", "--dir", tmp, "--", "--seeds", "x"}, grid[:4]...), "--seeds"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		if err := runSlurm(c.args, &out); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("bench slurm %q: %v, want an error containing %q", c.args, err, c.wantErr)
		}
	}
	script := filepath.Join(tmp, "grid.sh")
	var out bytes.Buffer
	args := append([]string{"--shards", "4", "--dir", tmp, "--cpus-per-task", "2", "-o", script, "--"}, grid...)
	if err := runSlurm(args, &out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-3", "#SBATCH --cpus-per-task=2", "--devices cpu:2", "--seeds 0-2", "DB=" + filepath.Join(tmp, "ugbench.db")} {
		if !strings.Contains(string(b), want) {
			t.Errorf("script lacks %q:\n%s", want, b)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "logs")); err != nil {
		t.Errorf("bench slurm did not make the log directory: %v", err)
	}

	// The shard sizes bench slurm reports are those of bench grid --shard.
	grid = append(grid, "--ratios", "low,high", "--set", "wl.iterations=2,3")
	for _, n := range []int{1, 3, 4} {
		sizes, err := shardSizes(grid, n)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for i, got := range sizes {
			var out bytes.Buffer
			db := filepath.Join(tmp, fmt.Sprintf("dry%d-%d.db", n, i))
			if err := runGrid(append(slices.Clone(grid), "--dry-run", "--db", db, "--shard", fmt.Sprintf("%d/%d", i, n)), &out); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("%d runs, %d to do", got, got); !strings.Contains(out.String(), want) {
				t.Errorf("shard %d/%d: bench slurm counts %d runs, bench grid --dry-run says\n%s", i, n, got, out.String())
			}
			total += got
		}
		if total != 12 {
			t.Errorf("%d shards hold %d runs, want 12 (2 ratios × 3 seeds × 2 iterations)", n, total)
		}
	}
}

// TestMethodsRegistered: the binary's blank imports (register.go) register
// every method row, the semi-supervised baselines included.
func TestMethodsRegistered(t *testing.T) {
	var out bytes.Buffer
	if err := runMethods(nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wl", "sp", "graphlet", "gin-topk", "gin-asap", "infograph", "graphcl", "gla", "rgcl", "ugnn", "ugnn-wo-up"} {
		if !strings.Contains(out.String(), "\n"+name+"\n") && !strings.HasPrefix(out.String(), name+"\n") {
			t.Errorf("bench methods lacks %s", name)
		}
	}
}
