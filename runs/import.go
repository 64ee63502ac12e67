package runs

import (
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ugbench/ugbench/suite"
)

// ImportOutcome is what Import did with one run.
type ImportOutcome string

const (
	// ImportAdded: the hash was new to the store; the run was inserted.
	ImportAdded ImportOutcome = "added"
	// ImportReplaced: the store held the hash in a worse state (failed,
	// interrupted, or running without a live owner); the imported finished
	// run replaced it under the same id.
	ImportReplaced ImportOutcome = "replaced"
	// ImportKept: the store already held the hash finished with the same
	// results (measurements aside); nothing changed.
	ImportKept ImportOutcome = "kept"
	// ImportConflict: the store already held the hash finished with other
	// results; the store's run was kept (Merge's ConflictFirst rule).
	ImportConflict ImportOutcome = "conflict"
	// ImportBusy: another live process is running the hash; nothing
	// changed (a grid that finishes it stores its own result).
	ImportBusy ImportOutcome = "running elsewhere"
)

// Import adds r, a finished run read back from an archive of runs (e.g. the
// JSON of `bench export`), to the store under its config hash, with its
// spec, provenance, start and finish times, wall time (Seconds, s),
// attempts and metrics (NaN stored as NULL). Its curves, embeddings,
// outputs and scorer records are not part of such an archive: an imported
// run has none, so `bench rescore` and `bench plot tsne` pass it by, while
// every table, `compare`, `check` and `grid`'s resume read it like a run
// computed here. A grid skips an imported hash as finished.
//
// A hash the store lacks is inserted under a new id; one it holds failed,
// interrupted or stale running is replaced under its id; one another live
// process is running is left alone (ImportBusy); one it holds finished is
// kept, as ImportKept when the metrics agree (measurements and the resume
// count aside, as in Merge) and as ImportConflict, with the first differing
// metric, when they do not.
//
// Errors: a run that is not finished, and one whose Hash is not its
// Spec.Hash() (an edited or damaged archive), are refused with nothing
// written.
func (s *Store) Import(r Run) (ImportOutcome, MergeConflict, error) {
	if r.Status != StatusFinished {
		return "", MergeConflict{}, fmt.Errorf("runs: import %s (hash %s): status %q, only finished runs are imported", r.Spec, r.Hash, r.Status)
	}
	if h := r.Spec.Hash(); h != r.Hash {
		return "", MergeConflict{}, fmt.Errorf("runs: import %s: hash %s is not its spec's config hash %s (edited or damaged archive?)", r.Spec, r.Hash, h)
	}
	specJSON, paramsJSON, protocolJSON, err := encodeSpec(r.Spec)
	if err != nil {
		return "", MergeConflict{}, err
	}
	attempts := max(r.Attempts, 1)
	p, sp := r.Provenance, r.Spec
	var outcome ImportOutcome
	var conflict MergeConflict
	err = s.tx(func(tx *sql.Tx) error {
		var id int64
		var status Status
		var o owner
		err := tx.QueryRow(`SELECT id, status, host, pidns, pid, pid_start, heartbeat FROM runs WHERE hash = ?`, r.Hash).
			Scan(&id, &status, &o.host, &o.ns, &o.pid, &o.start, &o.heartbeat)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res, err := tx.Exec(`INSERT INTO runs (hash, method, dataset, ratio_name, ratio, split_seed, seed,
					params, protocol, spec, status, error, started, finished, seconds,
					git_commit, git_dirty, go_version, gomlx_version, backend, kernels, device, host, attempts)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				r.Hash, sp.Method, sp.Dataset, sp.RatioName, sp.Ratio, sp.SplitSeed, sp.Seed,
				paramsJSON, protocolJSON, specJSON, StatusFinished,
				formatTime(r.Started), formatTime(r.Finished), floatArg(r.Seconds),
				p.GitCommit, p.GitDirty, p.GoVersion, p.GoMLXVersion, p.Backend, p.Kernels, p.Device, p.Host, attempts)
			if err != nil {
				return err
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
			outcome = ImportAdded
			return insertMetrics(tx, id, r.Metrics)
		case err != nil:
			return err
		case status == StatusFinished:
			stored, err := metricsOf(tx, id)
			if err != nil {
				return err
			}
			if c, differ := metricsConflict(stored, r.Metrics); differ {
				outcome, conflict = ImportConflict, c
				conflict.Hash, conflict.Spec = r.Hash, fmt.Sprintf("%s/%s/%s/split=%d/seed=%d", sp.Method, sp.Dataset, sp.RatioLabel(), sp.SplitSeed, sp.Seed)
				return nil
			}
			outcome = ImportKept
			return nil
		case status == StatusRunning && s.live(o):
			outcome = ImportBusy
			return nil
		}
		for _, t := range []string{"metrics", "curves"} {
			if _, err := tx.Exec(`DELETE FROM `+t+` WHERE run_id = ?`, id); err != nil {
				return err
			}
		}
		if err := clearArtifacts(tx, id); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE runs SET method = ?, dataset = ?, ratio_name = ?, ratio = ?, split_seed = ?, seed = ?,
				params = ?, protocol = ?, spec = ?, status = ?, error = '', started = ?, finished = ?,
				seconds = ?, git_commit = ?, git_dirty = ?, go_version = ?, gomlx_version = ?,
				backend = ?, kernels = ?, device = ?, host = ?, attempts = ?,
				pid = 0, pidns = '', pid_start = 0, heartbeat = NULL, epoch = 0, epochs = 0
			WHERE id = ?`,
			sp.Method, sp.Dataset, sp.RatioName, sp.Ratio, sp.SplitSeed, sp.Seed,
			paramsJSON, protocolJSON, specJSON, StatusFinished,
			formatTime(r.Started), formatTime(r.Finished), floatArg(r.Seconds),
			p.GitCommit, p.GitDirty, p.GoVersion, p.GoMLXVersion, p.Backend, p.Kernels, p.Device, p.Host, attempts, id)
		if err != nil {
			return err
		}
		outcome = ImportReplaced
		return insertMetrics(tx, id, r.Metrics)
	})
	if err != nil {
		return "", MergeConflict{}, fmt.Errorf("runs: %s: import %s: %w", s.path, r.Spec, err)
	}
	return outcome, conflict, nil
}

// insertMetrics stores metrics of run id inside tx, in name order.
func insertMetrics(tx *sql.Tx, id int64, metrics map[string]float64) error {
	if len(metrics) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`INSERT INTO metrics (run_id, name, value) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, name := range slices.Sorted(maps.Keys(metrics)) {
		if name == "" {
			return errors.New("empty metric name")
		}
		if _, err := stmt.Exec(id, name, floatArg(metrics[name])); err != nil {
			return fmt.Errorf("metric %s: %w", name, err)
		}
	}
	return nil
}

// metricsOf reads the metrics of run id through q (a *sql.Tx or *sql.DB),
// NULL as NaN.
func metricsOf(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, id any) (map[string]float64, error) {
	rows, err := q.Query(`SELECT name, value FROM metrics WHERE run_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]float64{}
	for rows.Next() {
		var name string
		var v sql.NullFloat64
		if err := rows.Scan(&name, &v); err != nil {
			return nil, err
		}
		m[name] = floatOf(v)
	}
	return m, rows.Err()
}

// metricsConflict compares two finished runs' metrics of one hash, kept
// (the store's) and dropped (the archive's), as Merge does: the first
// metric that differs (accuracy first, then by name; measurements and the
// resume count ignored; NaN equals NaN; a missing value is NaN).
func metricsConflict(kept, dropped map[string]float64) (MergeConflict, bool) {
	names := map[string]bool{}
	for k := range kept {
		names[k] = true
	}
	for k := range dropped {
		names[k] = true
	}
	order := slices.Sorted(maps.Keys(names))
	if i := slices.Index(order, suite.MetricAccuracy); i > 0 {
		order = append([]string{suite.MetricAccuracy}, slices.Delete(order, i, i+1)...)
	}
	get := func(m map[string]float64, k string) float64 {
		if v, ok := m[k]; ok {
			return v
		}
		return math.NaN()
	}
	for _, k := range order {
		if conflictIgnored(k) {
			continue
		}
		a, b := get(kept, k), get(dropped, k)
		if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			return MergeConflict{Metric: k, Kept: a, Dropped: b}, true
		}
	}
	return MergeConflict{}, false
}
