package runs

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// mergeRun is one run to put into a test database.
type mergeRun struct {
	seed   int64
	status Status  // finished, failed, interrupted or running
	acc    float64 // the accuracy metric of a finished run
	curves int     // number of loss curve points
}

// makeDB writes runs (method m, dataset d, the given seeds) into a new
// database at dir/name of schema migs and returns its path.
func makeDB(t *testing.T, dir, name string, migs []string, rs ...mergeRun) string {
	t.Helper()
	path := filepath.Join(dir, name)
	s, err := openWith(path, migs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range rs {
		spec := testSpec("m", "d", r.seed)
		prov := testProv
		prov.Host = name // provenance differs between files
		id, err := s.Start(spec, prov)
		if err != nil {
			t.Fatal(err)
		}
		var curves []suite.CurvePoint
		for e := 0; e < r.curves; e++ {
			v := r.acc + float64(e)
			if e == 1 {
				v = math.NaN()
			}
			curves = append(curves, suite.CurvePoint{Epoch: e, Name: "loss", Value: v})
		}
		switch r.status {
		case StatusFinished:
			err = s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": r.acc, "ood_f1": math.NaN()}, Curves: curves, Seconds: 1.5,
				Embeddings: mergeEmbeddings(r)})
		case StatusFailed, StatusInterrupted:
			err = s.Fail(id, r.status, "broke in "+name, curves)
		case StatusRunning:
		default:
			t.Fatalf("bad status %q", r.status)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// mergeEmbeddings are the test embeddings makeDB stores with a finished
// run: two graphs, width 2, values from r.acc and r.seed.
func mergeEmbeddings(r mergeRun) *suite.Embeddings {
	return &suite.Embeddings{Graphs: []int{int(r.seed), 10 + int(r.seed)}, Truth: []int{0, suite.Unknown}, Dim: 2,
		Data: []float32{float32(r.acc), 1, 2, float32(r.seed)}}
}

// dump renders every table of the database at path (but schema_version) as
// sorted lines; runs are keyed by hash, not id, and rows of tables with a
// run_id column name their run's hash, so that two files holding the same
// runs under other ids dump alike. withIDs keeps the ids as they are.
func dump(t *testing.T, path string, withIDs bool) map[string][]string {
	t.Helper()
	db, err := openReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sc, err := readSchema(db)
	if err != nil {
		t.Fatal(err)
	}
	hashOf := map[int64]string{}
	rows, err := readRows(db, 2, `SELECT id, hash FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		hashOf[r[0].(int64)] = r[1].(string)
	}
	out := map[string][]string{}
	for _, tbl := range sc.tables {
		cols := sc.cols[tbl]
		rows, err := readRows(db, len(cols), `SELECT `+quotedList(cols)+` FROM `+quoted(tbl)+` ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for i, r := range rows {
			var parts []string
			for j, c := range cols {
				v := r[j]
				if !withIDs {
					switch {
					case tbl == "runs" && c == "id":
						continue
					case c == sc.parent[tbl]:
						v = hashOf[v.(int64)]
					}
				}
				parts = append(parts, fmt.Sprintf("%s=%v", c, v))
			}
			if sc.parent[tbl] != "" && !withIDs {
				// Order within a run matters (curves); across runs it
				// follows ids.
				parts = append(parts, fmt.Sprintf("#%d", i-firstOf(rows, i, slices.Index(cols, sc.parent[tbl]))))
			}
			lines = append(lines, strings.Join(parts, " "))
		}
		slices.Sort(lines)
		out[tbl] = lines
	}
	return out
}

// firstOf is the index of the first row before or at i with row i's value
// in column col (rows of one run are adjacent in rowid order here).
func firstOf(rows [][]any, i, col int) int {
	j := i
	for j > 0 && rows[j-1][col] == rows[i][col] {
		j--
	}
	return j
}

// union is the lines of dumps a and b, sorted.
func union(a, b map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range a {
		out[k] = slices.Sorted(slices.Values(append(slices.Clone(v), b[k]...)))
	}
	return out
}

func TestMergeUnionAndIdempotent(t *testing.T) {
	dir := t.TempDir()
	a := makeDB(t, dir, "a.db", migrations,
		mergeRun{seed: 0, status: StatusFinished, acc: 0.5, curves: 3},
		mergeRun{seed: 1, status: StatusFinished, acc: 0.6, curves: 0},
		mergeRun{seed: 2, status: StatusFailed, curves: 2})
	b := makeDB(t, dir, "b.db", migrations,
		mergeRun{seed: 3, status: StatusFinished, acc: 0.7, curves: 4},
		mergeRun{seed: 4, status: StatusInterrupted},
		mergeRun{seed: 5, status: StatusRunning})
	out := filepath.Join(dir, "out.db")
	aBytes, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Merge(out, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(a); err != nil || !slices.Equal(aBytes, after) {
		t.Errorf("merging changed the input %s (%v)", a, err)
	}
	want := []MergeInput{{Path: a, Runs: 3, Added: 3}, {Path: b, Runs: 3, Added: 3, Running: 1}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("Merge = %+v, want %+v", res, want)
	}
	if got, w := dump(t, out, false), union(dump(t, a, false), dump(t, b, false)); !reflect.DeepEqual(got, w) {
		t.Errorf("merged tables differ from the union of the inputs:\n got %v\nwant %v", got, w)
	}
	// The store reads the merged runs as any other.
	s, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.List(Filter{Status: []Status{StatusFinished}})
	if err != nil {
		t.Fatal(err)
	}
	accs := map[int64]float64{}
	for _, r := range all {
		accs[r.Spec.Seed] = r.Metrics["accuracy"]
		if r.Provenance.GitCommit != testProv.GitCommit {
			t.Errorf("seed %d: git commit %q, want %q", r.Spec.Seed, r.Provenance.GitCommit, testProv.GitCommit)
		}
		if e, err := s.Embeddings(r.ID); err != nil {
			t.Errorf("seed %d: embeddings after merge: %v", r.Spec.Seed, err)
		} else if want := mergeEmbeddings(mergeRun{seed: r.Spec.Seed, acc: r.Metrics["accuracy"]}); !reflect.DeepEqual(e, want) {
			t.Errorf("seed %d: embeddings after merge %+v, want %+v", r.Spec.Seed, e, want)
		}
		if r.Spec.Seed == 3 {
			cs, err := s.Curves(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			p := func(e int, v float64) suite.CurvePoint { return suite.CurvePoint{Epoch: e, Name: "loss", Value: v} }
			wantC := []suite.CurvePoint{p(0, 0.7), p(1, math.NaN()), p(2, 2.7), p(3, 3.7)}
			if !sameCurves(cs, wantC) {
				t.Errorf("curves of seed 3 = %v, want %v", cs, wantC)
			}
		}
	}
	s.Close()
	if w := map[int64]float64{0: 0.5, 1: 0.6, 3: 0.7}; !reflect.DeepEqual(accs, w) {
		t.Errorf("finished accuracies %v, want %v", accs, w)
	}

	// Merging again, in any order, changes nothing, ids included.
	before := dump(t, out, true)
	for _, ins := range [][]string{{a, b}, {b, a}, {a}} {
		res, err := Merge(out, ins)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Added != 0 || r.Replaced != 0 || r.Kept != r.Runs {
				t.Errorf("merging %v again: %+v, want every run kept", ins, r)
			}
		}
		if after := dump(t, out, true); !reflect.DeepEqual(before, after) {
			t.Errorf("merging %v again changed the output:\nbefore %v\n after %v", ins, before, after)
		}
	}
}

func TestMergeConflictingStates(t *testing.T) {
	cases := []struct {
		name       string
		first, sec mergeRun
		want       string // the file whose run must be in the output
		replaced   int    // runs of the second file that replaced the first's
	}{
		{"failed then finished", mergeRun{status: StatusFailed, curves: 5}, mergeRun{status: StatusFinished, acc: 0.9, curves: 2}, "second", 1},
		{"finished then failed", mergeRun{status: StatusFinished, acc: 0.9, curves: 2}, mergeRun{status: StatusFailed, curves: 5}, "first", 0},
		{"running then finished", mergeRun{status: StatusRunning}, mergeRun{status: StatusFinished, acc: 0.4}, "second", 1},
		{"finished then interrupted", mergeRun{status: StatusFinished, acc: 0.4}, mergeRun{status: StatusInterrupted, curves: 1}, "first", 0},
		{"running then interrupted", mergeRun{status: StatusRunning}, mergeRun{status: StatusInterrupted, curves: 1}, "second", 1},
		{"interrupted then failed", mergeRun{status: StatusInterrupted, curves: 3}, mergeRun{status: StatusFailed, curves: 1}, "second", 1},
		// Duplicates: one hash finished in both files. The first merged stays.
		{"finished twice", mergeRun{status: StatusFinished, acc: 0.1, curves: 1}, mergeRun{status: StatusFinished, acc: 0.2, curves: 2}, "first", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			other := mergeRun{seed: 9, status: StatusFinished, acc: 0.3, curves: 2}
			first := makeDB(t, dir, "first.db", migrations, c.first, other)
			second := makeDB(t, dir, "second.db", migrations, c.sec)
			out := filepath.Join(dir, "out.db")
			res, err := Merge(out, []string{first, second})
			if err != nil {
				t.Fatal(err)
			}
			if res[1].Replaced != c.replaced || res[1].Kept != 1-c.replaced {
				t.Errorf("second file: %+v, want %d replaced", res[1], c.replaced)
			}
			winner := first
			if c.want == "second" {
				winner = second
			}
			got := dump(t, out, false)
			w := dump(t, winner, false)
			if c.want == "second" {
				// The other run of the first file stays beside it.
				w = union(w, without(dump(t, first, false), testSpec("m", "d", 0).Hash()))
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("output holds\n %v\nwant\n %v", got, w)
			}
		})
	}
}

func TestMergeRefusesOtherSchemaVersions(t *testing.T) {
	dir := t.TempDir()
	good := makeDB(t, dir, "good.db", migrations, mergeRun{seed: 0, status: StatusFinished, acc: 0.5})
	old := makeDB(t, dir, "old.db", migrations[:3]) // a version 3 file (Start needs version 4)
	newer := makeDB(t, dir, "newer.db", migrations, mergeRun{seed: 2, status: StatusFinished, acc: 0.5})
	db, err := sql.Open("sqlite3", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_version SET version = ?`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cases := []struct {
		inputs  []string
		wantErr string
	}{
		{[]string{good, old}, fmt.Sprintf("old.db has schema version 3, this ugbench writes version %d", len(migrations))},
		{[]string{newer}, fmt.Sprintf("newer.db has schema version %d, this ugbench writes version %d", len(migrations)+1, len(migrations))},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out.db")
		_, err := Merge(out, c.inputs)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Merge(%v): %v, want an error containing %q", c.inputs, err, c.wantErr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("Merge(%v) failed but created %s", c.inputs, out)
		}
	}
	// An existing output of another version is refused too, and left alone.
	oldBefore := dump(t, old, true)
	if _, err := Merge(old, []string{good}); err == nil || !strings.Contains(err.Error(), "old.db has schema version 3") {
		t.Errorf("merging into an old output: %v, want a schema version error", err)
	}
	if !reflect.DeepEqual(oldBefore, dump(t, old, true)) {
		t.Errorf("a refused merge changed the output")
	}
}

func TestMergeTruncatedInput(t *testing.T) {
	dir := t.TempDir()
	var rs []mergeRun
	for seed := int64(0); seed < 60; seed++ {
		rs = append(rs, mergeRun{seed: seed, status: StatusFinished, acc: float64(seed) / 100, curves: 40})
	}
	good := makeDB(t, dir, "good.db", migrations, mergeRun{seed: 100, status: StatusFinished, acc: 0.5, curves: 2})
	full := makeDB(t, dir, "full.db", migrations, rs...)
	info, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() < 16*4096 {
		t.Fatalf("test database is only %d bytes; truncating it tests little", info.Size())
	}
	for _, size := range []int64{info.Size() / 2, info.Size() - 4096, 50} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			cut := filepath.Join(t.TempDir(), "cut.db")
			data, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cut, data[:size], 0o644); err != nil {
				t.Fatal(err)
			}
			// Into a new output: error, no file.
			out := filepath.Join(t.TempDir(), "out.db")
			if _, err := Merge(out, []string{good, cut}); err == nil || !strings.Contains(err.Error(), "cut.db") {
				t.Errorf("Merge with %s cut to %d bytes: %v, want an error naming it", cut, size, err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a failed merge created %s", out)
			}
			// Into an existing output: error, output unchanged.
			existing := makeDB(t, t.TempDir(), "existing.db", migrations, mergeRun{seed: 200, status: StatusFailed})
			before := dump(t, existing, true)
			if _, err := Merge(existing, []string{good, cut}); err == nil {
				t.Errorf("Merge into an existing output with a truncated input succeeded")
			}
			if !reflect.DeepEqual(before, dump(t, existing, true)) {
				t.Errorf("a failed merge changed the output")
			}
		})
	}
}

func TestMergeBadArguments(t *testing.T) {
	dir := t.TempDir()
	a := makeDB(t, dir, "a.db", migrations, mergeRun{seed: 0, status: StatusFinished, acc: 0.5})
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		out     string
		inputs  []string
		wantErr string
	}{
		{filepath.Join(dir, "o.db"), nil, "no input databases"},
		{a, []string{a}, "is the output file"},
		{filepath.Join(dir, "o.db"), []string{a, a}, "given twice"},
		{filepath.Join(dir, "o.db"), []string{filepath.Join(dir, "missing.db")}, "missing.db"},
		{filepath.Join(dir, "o.db"), []string{notDB}, "notes.txt"},
	}
	for _, c := range cases {
		_, err := Merge(c.out, c.inputs)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Merge(%s, %v): %v, want an error containing %q", c.out, c.inputs, err, c.wantErr)
		}
	}
	// Names SQLite URIs would misread are fine.
	odd := makeDB(t, dir, "50% #1.db", migrations, mergeRun{seed: 1, status: StatusFinished, acc: 0.5})
	res, err := Merge(filepath.Join(dir, "o.db"), []string{odd})
	if err != nil || res[0].Added != 1 {
		t.Errorf("Merge of %s: %+v, %v; want its run added", odd, res, err)
	}
}

// TestMergeFutureSchema merges a schema with a later migration's new
// column (like a split seed), a table keyed by run (like artifacts) and a
// free table: Merge carries them without knowing them. The names are
// the test's own, so that a real later migration does not clash with them.
func TestMergeFutureSchema(t *testing.T) {
	future := append(slices.Clone(migrations),
		`ALTER TABLE runs ADD COLUMN test_extra_seed INTEGER NOT NULL DEFAULT 0;
		CREATE TABLE test_artifacts (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, data BLOB);
		CREATE TABLE test_notes (k TEXT, v TEXT);`)
	dir := t.TempDir()
	a := makeDB(t, dir, "a.db", future, mergeRun{seed: 0, status: StatusFailed}, mergeRun{seed: 1, status: StatusFinished, acc: 0.5})
	b := makeDB(t, dir, "b.db", future, mergeRun{seed: 0, status: StatusFinished, acc: 0.8}, mergeRun{seed: 2, status: StatusFinished, acc: 0.6})
	for i, path := range []string{a, b} {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`UPDATE runs SET test_extra_seed = seed + 10 * ?`,
			`INSERT INTO test_artifacts (run_id, name, data) SELECT id, 'model', CAST(hash || ? AS BLOB) FROM runs`,
			`INSERT INTO test_notes VALUES ('shared', NULL), ('file', ?)`,
		} {
			if _, err := db.Exec(q, i+1); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
	}
	out := filepath.Join(dir, "out.db")
	if _, err := mergeWith(out, []string{a, b}, future, ConflictFirst); err != nil {
		t.Fatal(err)
	}
	got := dump(t, out, false)
	da, db := dump(t, a, false), dump(t, b, false)
	// Seed 0 comes from b (finished beats failed): its test_extra_seed and
	// artifact are b's.
	wantRuns := slices.Sorted(slices.Values([]string{da["runs"][rowWith(t, da["runs"], "seed=1")], db["runs"][rowWith(t, db["runs"], "seed=0")], db["runs"][rowWith(t, db["runs"], "seed=2")]}))
	if !reflect.DeepEqual(got["runs"], wantRuns) {
		t.Errorf("runs:\n got %v\nwant %v", got["runs"], wantRuns)
	}
	for _, line := range got["runs"] {
		if !strings.Contains(line, "test_extra_seed=") {
			t.Errorf("merged run lost its test_extra_seed column: %s", line)
		}
	}
	h1 := testSpec("m", "d", 1).Hash()
	wantArt := union(db, without(da, testSpec("m", "d", 0).Hash()))["test_artifacts"]
	if len(wantArt) != 3 || !reflect.DeepEqual(got["test_artifacts"], wantArt) || !strings.Contains(strings.Join(wantArt, "\n"), h1) {
		t.Errorf("test_artifacts:\n got %v\nwant %v (a's seed 1, b's seeds 0 and 2)", got["test_artifacts"], wantArt)
	}
	wantNotes := []string{"k=file v=1", "k=file v=2", "k=shared v=<nil>"}
	if !reflect.DeepEqual(got["test_notes"], wantNotes) {
		t.Errorf("test_notes: %v, want %v", got["test_notes"], wantNotes)
	}
	// Idempotent for the free table too.
	if _, err := mergeWith(out, []string{a, b}, future, ConflictFirst); err != nil {
		t.Fatal(err)
	}
	if again := dump(t, out, false); !reflect.DeepEqual(again, got) {
		t.Errorf("second merge changed the output:\n%v\n%v", got, again)
	}
	// The current schema cannot take these files.
	if _, err := Merge(filepath.Join(dir, "cur.db"), []string{a}); err == nil {
		t.Errorf("Merge with the current schema accepted a newer file")
	}
}

// without is d without the lines that contain s.
func without(d map[string][]string, s string) map[string][]string {
	out := map[string][]string{}
	for k, lines := range d {
		out[k] = []string{}
		for _, l := range lines {
			if !strings.Contains(l, s) {
				out[k] = append(out[k], l)
			}
		}
	}
	return out
}

// rowWith is the index of the one line of lines containing s.
func rowWith(t *testing.T, lines []string, s string) int {
	t.Helper()
	idx := -1
	for i, l := range lines {
		if strings.Contains(l, " "+s+" ") {
			if idx >= 0 {
				t.Fatalf("two lines contain %q", s)
			}
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no line contains %q in %v", s, lines)
	}
	return idx
}

// TestMergeConflictRules: two finished runs of one hash with different
// metrics are reported with both values and files under every rule; first
// keeps the earlier file's run, newest the one that finished last (the
// second file here), fail writes nothing and names the hash and both
// values. Two finished runs that differ only in epoch times are no
// conflict.
func TestMergeConflictRules(t *testing.T) {
	dir := t.TempDir()
	first := makeDB(t, dir, "first.db", migrations, mergeRun{status: StatusFinished, acc: 0.393, curves: 1})
	second := makeDB(t, dir, "second.db", migrations, mergeRun{status: StatusFinished, acc: 0.416, curves: 1},
		mergeRun{seed: 4, status: StatusFinished, acc: 0.5})
	hash := testSpec("m", "d", 0).Hash()
	for _, c := range []struct {
		rule     OnConflict
		keptAcc  float64
		keptFrom string
	}{{ConflictFirst, 0.393, first}, {ConflictNewest, 0.416, second}} {
		out := filepath.Join(t.TempDir(), "out.db")
		res, err := MergeWithRule(out, []string{first, second}, c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		cs := res[1].Conflicts
		if len(cs) != 1 || cs[0].Hash != hash || cs[0].Metric != "accuracy" || cs[0].Kept != c.keptAcc || cs[0].KeptFrom != c.keptFrom {
			t.Fatalf("%s: conflicts %+v, want hash %s, accuracy %v kept from %s", c.rule, cs, hash, c.keptAcc, c.keptFrom)
		}
		line := cs[0].String()
		for _, want := range []string{hash, "0.393", "0.416", first, second, "kept " + c.keptFrom} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: %q lacks %q", c.rule, line, want)
			}
		}
		s, err := Open(out)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := s.List(Filter{})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Hash == hash && r.Metrics["accuracy"] != c.keptAcc {
				t.Errorf("%s: stored accuracy %v, want %v", c.rule, r.Metrics["accuracy"], c.keptAcc)
			}
		}
	}
	out := filepath.Join(dir, "fail.db")
	_, err := MergeWithRule(out, []string{first, second}, ConflictFail)
	if err == nil || !strings.Contains(err.Error(), hash) || !strings.Contains(err.Error(), "0.393") || !strings.Contains(err.Error(), "0.416") {
		t.Errorf("fail rule: %v, want an error naming %s and both accuracies", err, hash)
	}
	if _, statErr := os.Stat(out); statErr == nil {
		t.Error("fail rule wrote the output")
	}
	if _, err := MergeWithRule(out, []string{first}, "latest"); err == nil {
		t.Error("unknown rule accepted")
	}
	// The same result finished twice (only wall times differ): no conflict.
	same := makeDB(t, dir, "same.db", migrations, mergeRun{status: StatusFinished, acc: 0.393, curves: 1})
	res, err := MergeWithRule(filepath.Join(dir, "same-out.db"), []string{first, same}, ConflictFail)
	if err != nil || len(res[1].Conflicts) != 0 || res[1].Kept != 1 {
		t.Errorf("equal results: %+v, %v; want kept without conflict", res, err)
	}
}
