package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain-word_1.0", "plain-word_1.0"},
		{"/a/b:c=d,e", "/a/b:c=d,e"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"*.lr=0.1", "'*.lr=0.1'"},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
		// bash reads it back as the one word.
		out, err := exec.Command("bash", "-c", `printf %s `+Quote(c.in)).Output()
		if err != nil || string(out) != c.in {
			t.Errorf("bash reads Quote(%q) as %q (%v)", c.in, out, err)
		}
	}
}

func baseConfig(dir string) Config {
	return Config{
		Shards: 3, Bench: filepath.Join(dir, "bench"), Dir: filepath.Join(dir, "shared"),
		DB: filepath.Join(dir, "shared", "merged.db"), JobName: "ug", CPUsPerTask: 2,
		GridArgs: []string{"--methods", "wl", "--set", "*.lr=0.1", "--data-dir", "/data dir"},
	}
}

func TestScriptDirectives(t *testing.T) {
	c := baseConfig("/x")
	c.Partition, c.Account, c.Time, c.Mem, c.Gres = "gpu", "lab", "4:00:00", "8G", "gpu:1"
	c.Sbatch = []string{"--qos=long", "--exclusive"}
	s, err := Script(c)
	if err != nil {
		t.Fatal(err)
	}
	var directives []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "#SBATCH ") {
			directives = append(directives, strings.TrimPrefix(line, "#SBATCH "))
		}
	}
	want := []string{"--job-name=ug", "--array=0-2", "--cpus-per-task=2", "--partition=gpu", "--account=lab",
		"--time=4:00:00", "--mem=8G", "--gres=gpu:1", "--output=/x/shared/logs/%A_%a.out", "--qos=long", "--exclusive"}
	if !slices.Equal(directives, want) {
		t.Errorf("#SBATCH lines:\n got %q\nwant %q", directives, want)
	}
	if out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
	// Without the optional ones, no empty directives.
	s, err = Script(baseConfig("/x"))
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"--partition", "--account", "--time=", "--mem", "--gres"} {
		if strings.Contains(s, "#SBATCH "+opt) {
			t.Errorf("script has #SBATCH %s though it was not given", opt)
		}
	}
}

func TestScriptErrors(t *testing.T) {
	cases := []struct {
		edit    func(*Config)
		wantErr string
	}{
		{func(c *Config) { c.Shards = 0 }, "--shards 0"},
		{func(c *Config) { c.CPUsPerTask = 0 }, "--cpus-per-task 0"},
		{func(c *Config) { c.Bench = "bin/bench" }, "--bench \"bin/bench\": want an absolute path"},
		{func(c *Config) { c.Dir = "shared" }, "--dir \"shared\""},
		{func(c *Config) { c.Dir = "/a b" }, "--dir \"/a b\": no white space"},
		{func(c *Config) { c.LocalDir = "tmp" }, "--local-dir"},
		{func(c *Config) { c.Time = "1:00:00\n#SBATCH --x" }, "--time"},
		{func(c *Config) { c.Sbatch = []string{"qos=long"} }, "want a long sbatch option"},
		{func(c *Config) { c.JobName = "" }, "--job-name"},
		{func(c *Config) { c.GridArgs = []string{"--db=x.db"} }, "grid flag --db"},
		{func(c *Config) { c.GridArgs = []string{"--shard", "0/2"} }, "grid flag --shard"},
	}
	for _, tc := range cases {
		c := baseConfig("/x")
		tc.edit(&c)
		if _, err := Script(c); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Script(%+v): %v, want an error containing %q", c, err, tc.wantErr)
		}
	}
}

// writeExe writes an executable shell script.
func writeExe(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestScriptRoles runs the script's three roles with a fake bench and a
// fake sbatch that log their arguments: submitting, an array task, and the
// merge.
func TestScriptRoles(t *testing.T) {
	dir := t.TempDir()
	c := baseConfig(dir)
	c.LocalDir = filepath.Join(dir, "local")
	log := filepath.Join(dir, "calls.log")
	// The fake bench logs its arguments; as grid it writes "db of shard"
	// into its --db file, which must already hold a resumed shard's
	// content if there was one, and with FAKE_WAL a -wal file beside it
	// (a bench killed before it closed the store); as runs it folds the
	// -wal file into the database, as SQLite's checkpoint on close does.
	// As grid it also logs the saved run state it finds in the default
	// cache beside --db, and saves one (FAKE_SAVE) or finishes it (drops
	// the state, as bench does when the run finishes).
	writeExe(t, c.Bench, `printf '%s|' bench "$@" >>`+Quote(log)+`; echo >>`+Quote(log)+`
if [ "$1" = grid ]; then
	while [ $# -gt 0 ]; do [ "$1" = --db ] && db=$2; shift; done
	echo "shard $SLURM_ARRAY_TASK_ID" >>"$db"
	state="$(dirname "$db")/ugbench-cache/resume/gin-topk-key/gen-000000001/suite.json"
	if [ -f "$state" ]; then echo "found $(cat "$state")" >>`+Quote(log)+`; fi
	if [ -n "${FAKE_SAVE:-}" ]; then
		mkdir -p "$(dirname "$state")" && echo "$FAKE_SAVE" >"$state"
	else
		rm -rf "$(dirname "$db")/ugbench-cache/resume"/*
	fi
	if [ -n "${FAKE_WAL:-}" ]; then echo "$FAKE_WAL" >"$db-wal"; fi
	exit ${FAKE_EXIT:-0}
fi
if [ "$1" = runs ]; then
	while [ $# -gt 0 ]; do [ "$1" = --db ] && db=$2; shift; done
	cat "$db-wal" >>"$db" && rm "$db-wal"
fi`)
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	writeExe(t, filepath.Join(bin, "sbatch"), `printf '%s|' sbatch "$@" >>`+Quote(log)+`; echo >>`+Quote(log)+`
n=$(cat `+Quote(filepath.Join(dir, "jobid"))+` 2>/dev/null || echo 100); echo $((n+1)) >`+Quote(filepath.Join(dir, "jobid"))+`; echo "$((n+1));cluster"`)
	s, err := Script(c)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "grid.sh")
	if err := os.WriteFile(script, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "SLURM_ARRAY_TASK_ID=", "SLURM_JOB_ID=", "SLURM_ARRAY_JOB_ID=")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	calls := func() []string {
		b, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}

	// Submitting: the array, then the merge job depending on it.
	out, err := run(nil)
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	if !strings.Contains(out, "submitted job array 101 (3 shards) and merge job 102") {
		t.Errorf("submit printed %q", out)
	}
	got := calls()
	want := []string{
		"sbatch|--parsable|" + script + "|",
		"sbatch|--parsable|--job-name=ug-merge|--dependency=afterany:101|--cpus-per-task=1|--output=" + c.Dir + "/logs/%j-merge.out|--wrap=bash " + script + " merge|",
	}
	if !slices.Equal(got, want) {
		t.Errorf("submit called\n %q\nwant\n %q", got, want)
	}

	// An array task: bench grid with the grid's flags, its shard from the
	// environment, a node-local database copied to the shared directory.
	task := []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_JOB_ID=101", "SLURM_JOB_ID=103"}
	if out, err := run(task); err != nil {
		t.Fatalf("array task: %v\n%s", err, out)
	}
	local := filepath.Join(c.LocalDir, "ugbench-101-1", "runs.db")
	got = calls()
	want = []string{"bench|grid|--methods|wl|--set|*.lr=0.1|--data-dir|/data dir|--shard|env/3|--db|" + local + "|--quiet|"}
	if !slices.Equal(got, want) {
		t.Errorf("array task called\n %q\nwant\n %q", got, want)
	}
	shardDB := filepath.Join(c.Dir, "shards", "shard-1-of-3.db")
	if b, err := os.ReadFile(shardDB); err != nil || string(b) != "shard 1\n" {
		t.Errorf("shard database %s: %q, %v", shardDB, b, err)
	}
	if _, err := os.Stat(filepath.Dir(local)); !os.IsNotExist(err) {
		t.Errorf("the node-local directory %s was not removed", filepath.Dir(local))
	}
	// A rerun resumes from the shared copy, and a failing grid still
	// saves its database and fails the task.
	out, err = run(append(task, "FAKE_EXIT=3"))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("array task with a failing grid: %v, want exit status 3\n%s", err, out)
	}
	calls()
	if b, _ := os.ReadFile(shardDB); string(b) != "shard 1\nshard 1\n" {
		t.Errorf("rerun shard database: %q, want the first run's content and the rerun's", b)
	}

	// A bench killed before it closed the database left committed runs in
	// its -wal file: the script checkpoints them before copying.
	out, err = run(append(task, "FAKE_WAL=committed before the kill", "FAKE_EXIT=143"))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("array task with a killed grid: %v, want exit status 143\n%s", err, out)
	}
	if got := calls(); len(got) != 2 || got[1] != "bench|runs|--db|"+local+"|" {
		t.Errorf("array task with a killed grid called %q, want the grid, then bench runs on its database", got)
	}
	if b, _ := os.ReadFile(shardDB); string(b) != "shard 1\nshard 1\nshard 1\ncommitted before the kill\n" {
		t.Errorf("shard database after a killed grid: %q, want the -wal file's runs in it", b)
	}

	// A task that ends with an unfinished run (its time limit) leaves the
	// run's saved state in the shared directory; the next task finds it in
	// its local cache and, once the run finishes, the shared copy goes.
	shardResume := filepath.Join(c.Dir, "shards", "resume-1-of-3")
	if out, err := run(append(task, "FAKE_SAVE=epoch 7")); err != nil {
		t.Fatalf("array task saving a run: %v\n%s", err, out)
	}
	calls()
	if b, err := os.ReadFile(filepath.Join(shardResume, "gin-topk-key", "gen-000000001", "suite.json")); err != nil || string(b) != "epoch 7\n" {
		t.Fatalf("saved state in %s: %q, %v; want the task's", shardResume, b, err)
	}
	if out, err := run(task); err != nil {
		t.Fatalf("array task continuing a run: %v\n%s", err, out)
	}
	if got := calls(); len(got) != 2 || got[1] != "found epoch 7" {
		t.Errorf("the next task logged %q, want it to find the saved state", got)
	}
	if _, err := os.Stat(shardResume); !os.IsNotExist(err) {
		t.Errorf("%s kept after its runs finished (%v)", shardResume, err)
	}

	// The merge: every shard database present, one bench merge; a missing
	// one fails after merging the others.
	out, err = run(nil, "merge")
	if err == nil || !strings.Contains(out, "only 1 of 3 shard databases") {
		t.Errorf("merge with shards missing: %v\n%s", err, out)
	}
	if got := calls(); !slices.Equal(got, []string{"bench|merge|" + c.DB + "|" + shardDB + "|"}) {
		t.Errorf("merge called %q", got)
	}
	for _, i := range []string{"0", "2"} {
		if out, err := run([]string{"SLURM_ARRAY_TASK_ID=" + i, "SLURM_ARRAY_JOB_ID=101", "SLURM_JOB_ID=10" + i}); err != nil {
			t.Fatalf("array task %s: %v\n%s", i, err, out)
		}
	}
	calls()
	if out, err := run(nil, "merge"); err != nil || !strings.Contains(out, "merged 3 shards") {
		t.Errorf("merge: %v\n%s", err, out)
	}
	var shards []string
	for _, i := range []string{"0", "1", "2"} {
		shards = append(shards, filepath.Join(c.Dir, "shards", "shard-"+i+"-of-3.db"))
	}
	if got := calls(); !slices.Equal(got, []string{"bench|merge|" + c.DB + "|" + strings.Join(shards, "|") + "|"}) {
		t.Errorf("merge called %q", got)
	}
}
