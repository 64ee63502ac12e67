package runs

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ugbench/ugbench/suite"
)

// MergeInput is what Merge did with one input file.
type MergeInput struct {
	// Path is the input file.
	Path string
	// Runs is the number of runs in the file.
	Runs int
	// Added are runs whose config hash was not in the output yet.
	Added int
	// Replaced are runs that replaced the output's run of the same hash,
	// being in a better state (see Merge).
	Replaced int
	// Kept are runs whose hash the output already held in an equal or
	// better state (the output's run was kept).
	Kept int
	// Running are runs of the file still marked running (its grid had not
	// ended, or was killed).
	Running int
	// Conflicts are the runs of the file that were finished with other
	// results than the finished run of the same hash already in the
	// output (counted in Replaced or Kept, as the rule decided).
	Conflicts []MergeConflict
}

// ErrMergeConflict is wrapped by MergeWithRule's error under ConflictFail.
var ErrMergeConflict = errors.New("conflicting finished runs")

// OnConflict is Merge's rule for two finished runs of one config hash
// whose results differ (MergeConflict).
type OnConflict string

// The rules of OnConflict.
const (
	// ConflictFirst keeps the run merged first (the output's own run, else
	// that of the earliest input holding the hash): Merge's behaviour
	// before the rule existed, and the default.
	ConflictFirst OnConflict = "first"
	// ConflictNewest keeps the run that finished last.
	ConflictNewest OnConflict = "newest"
	// ConflictFail fails the merge, which then writes nothing.
	ConflictFail OnConflict = "fail"
)

// ParseOnConflict parses "first", "newest" or "fail"; "" is ConflictFirst.
func ParseOnConflict(s string) (OnConflict, error) {
	switch r := OnConflict(s); r {
	case "":
		return ConflictFirst, nil
	case ConflictFirst, ConflictNewest, ConflictFail:
		return r, nil
	}
	return "", fmt.Errorf("conflict rule %q: want first, newest or fail", s)
}

// MergeConflict is one config hash finished in two merged files with
// different results: a metric (epoch times and the resume count aside,
// which differ between two computations of one run) that differs.
type MergeConflict struct {
	// Hash is the config hash; Spec the run's method/dataset/ratio/seeds.
	Hash, Spec string
	// Metric is the first differing metric (accuracy when it differs);
	// Kept and Dropped are its values in the run kept and the run dropped
	// (NaN for a missing or NaN value).
	Metric        string
	Kept, Dropped float64
	// KeptFrom and DroppedFrom are the files the two runs came from (the
	// output's path for a run it held before the merge).
	KeptFrom, DroppedFrom string
}

// String describes the conflict in one line.
func (c MergeConflict) String() string {
	return fmt.Sprintf("hash %s (%s): %s %v in %s, %v in %s; kept %s's", c.Hash, c.Spec, c.Metric,
		c.Kept, c.KeptFrom, c.Dropped, c.DroppedFrom, c.KeptFrom)
}

// mergeRank orders run states for Merge: of two runs with one config hash
// the one with the higher rank is kept. A finished run beats all; a failed
// run says more than an interrupted one; a running row in a file that is
// being merged is one whose process will never update this copy.
var mergeRank = map[Status]int{
	StatusFinished:    3,
	StatusFailed:      2,
	StatusInterrupted: 1,
	StatusRunning:     0,
}

// Merge combines the run databases inputs (e.g. the shards of a grid run
// on several machines) into the database out, creating it if needed. Every
// table of the schema is merged, not only runs, so a later migration's
// tables and columns come along without changes here:
//
//   - runs (with its provenance columns) are matched by config hash. A hash
//     new to out is inserted under a new id. A hash out already has is
//     replaced by the input's run only if that one is in a better state:
//     finished > failed > interrupted > running; otherwise out's run stays
//     (so of two finished runs of one hash the first merged stays). Two
//     finished runs whose metrics differ are a conflict: it is reported
//     in MergeInput.Conflicts and settled by MergeOptions' rule (Merge:
//     ConflictFirst).
//   - tables with a foreign key to runs(id) (metrics, curves) follow their
//     run: copied with the new id, in their stored (rowid) order, and a
//     replaced run's rows are replaced.
//   - any other table gets the input's rows it does not already hold
//     identically.
//
// Merging is idempotent: merging the same files again changes nothing. The
// inputs are only read. Before anything is written every input is checked:
// it must exist, pass SQLite's integrity check (a truncated or damaged file
// fails it), have exactly this package's schema version (SchemaVersion; a
// file of an older or newer ugbench is refused, since its rows would need
// migrating), and the same tables and columns as out. An existing out must
// pass the same checks. All inputs are merged in one transaction: on any
// error nothing is written, and an out that Merge created is removed.
func Merge(out string, inputs []string) ([]MergeInput, error) {
	return mergeWith(out, inputs, migrations, ConflictFirst)
}

// MergeWithRule is Merge with rule settling conflicts between two finished
// runs of one hash with different results (ConflictFail: an error naming
// the hash, both values and both files, and nothing written).
func MergeWithRule(out string, inputs []string, rule OnConflict) ([]MergeInput, error) {
	if _, err := ParseOnConflict(string(rule)); err != nil {
		return nil, fmt.Errorf("runs: merge: %w", err)
	}
	return mergeWith(out, inputs, migrations, rule)
}

// mergeWith is Merge for the schema of migs (tests merge future schemas).
func mergeWith(out string, inputs []string, migs []string, rule OnConflict) ([]MergeInput, error) {
	if len(inputs) == 0 {
		return nil, errors.New("runs: merge: no input databases")
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s: %w", out, err)
	}
	seen := map[string]bool{}
	var schema *dbSchema
	for _, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			return nil, fmt.Errorf("runs: merge: %s: %w", in, err)
		}
		if abs == outAbs || sameFile(abs, outAbs) {
			return nil, fmt.Errorf("runs: merge: input %s is the output file", in)
		}
		if seen[abs] {
			return nil, fmt.Errorf("runs: merge: input %s given twice", in)
		}
		seen[abs] = true
		sc, err := checkMergeFile(in, len(migs))
		if err != nil {
			return nil, err
		}
		if schema == nil {
			schema = sc
		} else if err := schema.sameAs(sc, inputs[0], in); err != nil {
			return nil, err
		}
	}
	_, statErr := os.Stat(out)
	created := errors.Is(statErr, os.ErrNotExist)
	if !created {
		sc, err := checkMergeFile(out, len(migs))
		if err != nil {
			return nil, err
		}
		if err := schema.sameAs(sc, inputs[0], out); err != nil {
			return nil, err
		}
	}
	res, err := mergeInto(out, inputs, schema, migs, rule)
	if err != nil && created {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(out + suffix)
		}
	}
	return res, err
}

// mergeInto opens out and merges inputs into it in one transaction.
func mergeInto(out string, inputs []string, schema *dbSchema, migs []string, rule OnConflict) ([]MergeInput, error) {
	s, err := openWith(out, migs)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// A file Merge creates has the schema Open gives it; check it too, so
	// that a schema that differs from the inputs' is an error, not a
	// failed INSERT.
	outSchema, err := readSchema(s.db)
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s: %w", out, err)
	}
	if err := schema.sameAs(outSchema, inputs[0], out); err != nil {
		return nil, err
	}
	var res []MergeInput
	from := map[string]string{} // hash → the input its output run came from
	err = s.tx(func(tx *sql.Tx) error {
		for _, in := range inputs {
			r, err := mergeOne(tx, in, schema, mergeCtx{out: out, rule: rule, from: from})
			if err != nil {
				return fmt.Errorf("runs: merge %s into %s: %w", in, out, err)
			}
			res = append(res, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// sameFile reports whether paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// openReadOnly opens the SQLite file path read-only (it must exist).
func openReadOnly(path string) (*sql.DB, error) {
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("runs: database path %q contains '?', which the SQLite driver reserves for options", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("runs: merge: %w", err)
	}
	// A URI filename: '%' and '#' would be read as an escape and a
	// fragment.
	uri := strings.NewReplacer("%", "%25", "#", "%23").Replace(path)
	db, err := sql.Open("sqlite3", "file:"+uri+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return nil, fmt.Errorf("runs: merge: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkMergeFile checks that path is an intact run database of schema
// version want and returns its schema.
func checkMergeFile(path string, want int) (*dbSchema, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s is damaged or not a SQLite database (truncated copy?): %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return nil, fmt.Errorf("runs: merge: %s is damaged (truncated copy?): %w", path, err)
		}
		if msg != "ok" {
			problems = append(problems, msg)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s is damaged (truncated copy?): %w", path, err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return nil, fmt.Errorf("runs: merge: %s is damaged (truncated copy?): integrity check: %s", path, strings.Join(problems, "; "))
	}
	var version int
	err = db.QueryRow(`SELECT version FROM schema_version`).Scan(&version)
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s is not a ugbench run database (no schema version: %v)", path, err)
	}
	if version != want {
		return nil, fmt.Errorf("runs: merge: %s has schema version %d, this ugbench writes version %d; merge only files of one version: open an older file once with this ugbench to migrate it (e.g. `bench runs --db %s`), or merge with the ugbench that wrote it",
			path, version, want, path)
	}
	sc, err := readSchema(db)
	if err != nil {
		return nil, fmt.Errorf("runs: merge: %s: %w", path, err)
	}
	return sc, nil
}

// dbSchema is what Merge needs to know of a database's tables.
type dbSchema struct {
	tables []string            // sorted; runs, its children and others
	cols   map[string][]string // table → columns in declaration order
	// parent maps a table with a foreign key to runs(id) to its column.
	parent map[string]string
}

// readSchema reads the tables (but schema_version and SQLite's own), their
// columns and their foreign keys to runs(id). A foreign key to another
// table is an error: Merge would not know how to remap it.
func readSchema(db *sql.DB) (*dbSchema, error) {
	sc := &dbSchema{cols: map[string][]string{}, parent: map[string]string{}}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name != 'schema_version' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		sc.tables = append(sc.tables, name)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(sc.tables, "runs") {
		return nil, errors.New("no runs table")
	}
	for _, t := range sc.tables {
		cols, err := queryStrings(db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, t)
		if err != nil {
			return nil, fmt.Errorf("columns of %s: %w", t, err)
		}
		sc.cols[t] = cols
		fks, err := db.Query(`SELECT "table", "from", coalesce("to", '') FROM pragma_foreign_key_list(?)`, t)
		if err != nil {
			return nil, fmt.Errorf("foreign keys of %s: %w", t, err)
		}
		for fks.Next() {
			var target, from, to string
			if err := fks.Scan(&target, &from, &to); err != nil {
				fks.Close()
				return nil, err
			}
			if target != "runs" || (to != "id" && to != "") {
				fks.Close()
				return nil, fmt.Errorf("table %s has a foreign key %s → %s(%s); merge knows only keys to runs(id): extend runs.Merge", t, from, target, to)
			}
			if _, dup := sc.parent[t]; dup {
				fks.Close()
				return nil, fmt.Errorf("table %s has two foreign keys to runs; extend runs.Merge", t)
			}
			sc.parent[t] = from
		}
		err = fks.Err()
		fks.Close()
		if err != nil {
			return nil, err
		}
	}
	for _, c := range []string{"id", "hash", "status"} {
		if !slices.Contains(sc.cols["runs"], c) {
			return nil, fmt.Errorf("runs table has no %s column", c)
		}
	}
	return sc, nil
}

// sameAs checks that other (of file b) has the tables and columns of sc
// (of file a).
func (sc *dbSchema) sameAs(other *dbSchema, a, b string) error {
	if !slices.Equal(sc.tables, other.tables) {
		return fmt.Errorf("runs: merge: %s has tables %s, %s has %s", a, strings.Join(sc.tables, ", "), b, strings.Join(other.tables, ", "))
	}
	for _, t := range sc.tables {
		if !slices.Equal(sc.cols[t], other.cols[t]) {
			return fmt.Errorf("runs: merge: table %s: %s has columns %s, %s has %s", t, a, strings.Join(sc.cols[t], ", "), b, strings.Join(other.cols[t], ", "))
		}
	}
	return nil
}

// queryStrings returns the single string column of a query.
func queryStrings(db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// quoted is the SQL identifier form of name.
func quoted(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// quotedList is "c1", "c2", ... of cols.
func quotedList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoted(c)
	}
	return strings.Join(q, ", ")
}

// readRows returns every row of query as values (int64, float64, string,
// []byte or nil).
func readRows(db *sql.DB, ncols int, query string, args ...any) ([][]any, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, ncols)
		ptrs := make([]any, ncols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// mergeCtx is what mergeOne needs beside the files: the output's path,
// the conflict rule and, per hash, the input its output run came from.
type mergeCtx struct {
	out  string
	rule OnConflict
	from map[string]string
}

// mergeOne merges the input file in into the output inside tx.
func mergeOne(tx *sql.Tx, in string, sc *dbSchema, mc mergeCtx) (MergeInput, error) {
	res := MergeInput{Path: in}
	db, err := openReadOnly(in)
	if err != nil {
		return res, err
	}
	defer db.Close()

	runCols := sc.cols["runs"]
	idIdx := slices.Index(runCols, "id")
	hashIdx := slices.Index(runCols, "hash")
	statusIdx := slices.Index(runCols, "status")
	var dataCols []string // every runs column but id
	for _, c := range runCols {
		if c != "id" {
			dataCols = append(dataCols, c)
		}
	}
	without := func(vals []any, skip int) []any {
		out := make([]any, 0, len(vals)-1)
		for i, v := range vals {
			if i != skip {
				out = append(out, v)
			}
		}
		return out
	}
	insertRun := `INSERT INTO runs (` + quotedList(dataCols) + `) VALUES (` + placeholders(len(dataCols)) + `)`
	sets := make([]string, len(dataCols))
	for i, c := range dataCols {
		sets[i] = quoted(c) + " = ?"
	}
	updateRun := `UPDATE runs SET ` + strings.Join(sets, ", ") + ` WHERE id = ?`

	var children []string
	for _, t := range sc.tables {
		if _, ok := sc.parent[t]; ok {
			children = append(children, t)
		}
	}

	runs, err := readRows(db, len(runCols), `SELECT `+quotedList(runCols)+` FROM runs ORDER BY id`)
	if err != nil {
		return res, fmt.Errorf("read runs: %w", err)
	}
	for _, row := range runs {
		res.Runs++
		hash, _ := row[hashIdx].(string)
		status := Status(fmt.Sprint(row[statusIdx]))
		if status == StatusRunning {
			res.Running++
		}
		var outID int64
		var outStatus Status
		err := tx.QueryRow(`SELECT id, status FROM runs WHERE hash = ?`, hash).Scan(&outID, &outStatus)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			r, err := tx.Exec(insertRun, without(row, idIdx)...)
			if err != nil {
				return res, fmt.Errorf("run %v (hash %s): %w", row[idIdx], hash, err)
			}
			if outID, err = r.LastInsertId(); err != nil {
				return res, err
			}
			res.Added++
			mc.from[hash] = in
		case err != nil:
			return res, err
		case status == StatusFinished && outStatus == StatusFinished:
			c, differ, err := finishedConflict(tx, db, row[idIdx], outID)
			if err != nil {
				return res, fmt.Errorf("run %v (hash %s): %w", row[idIdx], hash, err)
			}
			if !differ {
				res.Kept++
				continue
			}
			c.Hash, c.Spec = hash, specLabel(runCols, row)
			c.KeptFrom, c.DroppedFrom = mc.out, in
			if f, ok := mc.from[hash]; ok {
				c.KeptFrom = f
			}
			replace := false
			switch mc.rule {
			case ConflictFail:
				return res, fmt.Errorf("%w: hash %s (%s): %s %v in %s, %v in %s",
					ErrMergeConflict, hash, c.Spec, c.Metric, c.Kept, c.KeptFrom, c.Dropped, in)
			case ConflictNewest:
				var outFinished string
				if err := tx.QueryRow(`SELECT COALESCE(finished, '') FROM runs WHERE id = ?`, outID).Scan(&outFinished); err != nil {
					return res, err
				}
				inFinished, _ := row[slices.Index(runCols, "finished")].(string)
				replace = inFinished > outFinished // timeLayout sorts as text
			}
			if !replace {
				res.Conflicts = append(res.Conflicts, c)
				res.Kept++
				continue
			}
			c.Kept, c.Dropped, c.KeptFrom, c.DroppedFrom = c.Dropped, c.Kept, c.DroppedFrom, c.KeptFrom
			res.Conflicts = append(res.Conflicts, c)
			if err := replaceRun(tx, sc, children, updateRun, append(without(row, idIdx), outID), outID); err != nil {
				return res, fmt.Errorf("run %v (hash %s): %w", row[idIdx], hash, err)
			}
			mc.from[hash] = in
			res.Replaced++
		case mergeRank[status] > mergeRank[outStatus]:
			for _, t := range children {
				if _, err := tx.Exec(`DELETE FROM `+quoted(t)+` WHERE `+quoted(sc.parent[t])+` = ?`, outID); err != nil {
					return res, fmt.Errorf("replace run %d's %s: %w", outID, t, err)
				}
			}
			if _, err := tx.Exec(updateRun, append(without(row, idIdx), outID)...); err != nil {
				return res, fmt.Errorf("run %v (hash %s): %w", row[idIdx], hash, err)
			}
			mc.from[hash] = in
			res.Replaced++
		default:
			res.Kept++
			continue
		}
		for _, t := range children {
			if err := copyChildren(tx, db, t, sc.cols[t], sc.parent[t], row[idIdx], outID); err != nil {
				return res, fmt.Errorf("run %v (hash %s): %s: %w", row[idIdx], hash, t, err)
			}
		}
	}
	for _, t := range sc.tables {
		if _, ok := sc.parent[t]; ok || t == "runs" {
			continue
		}
		if err := unionTable(tx, db, t, sc.cols[t]); err != nil {
			return res, fmt.Errorf("table %s: %w", t, err)
		}
	}
	return res, nil
}

// replaceRun replaces the output's run outID (its children deleted, its
// columns updated with args, which end with outID).
func replaceRun(tx *sql.Tx, sc *dbSchema, children []string, updateRun string, args []any, outID int64) error {
	for _, t := range children {
		if _, err := tx.Exec(`DELETE FROM `+quoted(t)+` WHERE `+quoted(sc.parent[t])+` = ?`, outID); err != nil {
			return fmt.Errorf("replace run %d's %s: %w", outID, t, err)
		}
	}
	_, err := tx.Exec(updateRun, args...)
	return err
}

// conflictIgnored reports whether metric name may differ between two
// computations of one run: the measurements (wall times, peak memory;
// suite.IsMeasurement) and the resume count.
func conflictIgnored(name string) bool {
	return suite.IsMeasurement(name) || name == suite.ResumedMetric
}

// finishedConflict compares the metrics of the input's run inID (in db)
// and the output's run outID (in tx) and reports the first that differs
// (accuracy first, then by name; NaN equals NaN, a missing value is NaN),
// with the output's value as Kept and the input's as Dropped.
func finishedConflict(tx *sql.Tx, db *sql.DB, inID any, outID int64) (MergeConflict, bool, error) {
	in, err := metricsOf(db, inID)
	if err != nil {
		return MergeConflict{}, false, err
	}
	out, err := metricsOf(tx, outID)
	if err != nil {
		return MergeConflict{}, false, err
	}
	c, differ := metricsConflict(out, in)
	return c, differ, nil
}

// specLabel is method/dataset/ratio/split=S/seed=N of a runs row.
func specLabel(cols []string, row []any) string {
	get := func(c string) any {
		if i := slices.Index(cols, c); i >= 0 {
			return row[i]
		}
		return "?"
	}
	return fmt.Sprintf("%v/%v/%v/split=%v/seed=%v", get("method"), get("dataset"), get("ratio_name"), get("split_seed"), get("seed"))
}

// copyChildren copies the rows of table whose column fk is inID in the
// input db, in rowid order, into tx with fk set to outID.
func copyChildren(tx *sql.Tx, db *sql.DB, table string, cols []string, fk string, inID any, outID int64) error {
	fkIdx := slices.Index(cols, fk)
	rows, err := readRows(db, len(cols), `SELECT `+quotedList(cols)+` FROM `+quoted(table)+` WHERE `+quoted(fk)+` = ? ORDER BY rowid`, inID)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`INSERT INTO ` + quoted(table) + ` (` + quotedList(cols) + `) VALUES (` + placeholders(len(cols)) + `)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rows {
		r[fkIdx] = outID
		if _, err := stmt.Exec(r...); err != nil {
			return err
		}
	}
	return nil
}

// unionTable inserts the rows of table in the input db that tx's table
// does not hold identically (NULLs equal), in rowid order.
func unionTable(tx *sql.Tx, db *sql.DB, table string, cols []string) error {
	rows, err := readRows(db, len(cols), `SELECT `+quotedList(cols)+` FROM `+quoted(table)+` ORDER BY rowid`)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = quoted(c) + " IS ?"
	}
	stmt, err := tx.Prepare(`INSERT INTO ` + quoted(table) + ` (` + quotedList(cols) + `) SELECT ` + placeholders(len(cols)) +
		` WHERE NOT EXISTS (SELECT 1 FROM ` + quoted(table) + ` WHERE ` + strings.Join(conds, " AND ") + `)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.Exec(append(slices.Clone(r), r...)...); err != nil {
			return err
		}
	}
	return nil
}
