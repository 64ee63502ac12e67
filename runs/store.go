package runs

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver

	"github.com/ugbench/ugbench/suite"
)

// Storage conventions (for anyone reading the database with other tools):
//
//   - Timestamps (runs.started, runs.finished) are TEXT in UTC with a fixed
//     width, "2006-01-02T15:04:05.000000000Z", so they sort as strings.
//     runs.finished is NULL while a run is running; for failed and
//     interrupted runs it is the time of the failure.
//   - runs.seconds is the wall time of Fit, NULL unless finished.
//   - metrics.value and curves.value are REAL; NaN is stored as NULL (SQLite
//     has no NaN) and read back as NaN. ±Inf are stored as such.
//   - runs.params, runs.protocol and runs.spec are JSON; runs.spec is the
//     full suite.RunSpec and is what List decodes.
//   - runs.git_dirty is 0 or 1.

// timeLayout is the fixed-width UTC layout of the timestamp columns.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// busyTimeout is how long a connection waits for another writer (another
// process on the same file) before failing with "database is locked".
const busyTimeout = 10 * time.Second

// migrations are the schema steps in order: migrations[i] takes the schema
// from version i to version i+1. Never edit a released step; append a new
// one. The schema version of a database is the number of steps applied.
var migrations = []string{
	// 1: tables.
	`CREATE TABLE runs (
		id            INTEGER PRIMARY KEY,
		hash          TEXT    NOT NULL UNIQUE,
		method        TEXT    NOT NULL,
		dataset       TEXT    NOT NULL,
		ratio_name    TEXT    NOT NULL,
		ratio         REAL    NOT NULL,
		seed          INTEGER NOT NULL,
		params        TEXT    NOT NULL, -- JSON object
		protocol      TEXT    NOT NULL, -- JSON object
		spec          TEXT    NOT NULL, -- JSON of the full suite.RunSpec
		status        TEXT    NOT NULL
			CHECK (status IN ('running', 'finished', 'failed', 'interrupted')),
		error         TEXT    NOT NULL DEFAULT '',
		started       TEXT    NOT NULL, -- UTC, timeLayout
		finished      TEXT,             -- UTC, timeLayout; NULL while running
		seconds       REAL,             -- wall time of Fit; NULL unless finished
		git_commit    TEXT    NOT NULL DEFAULT '',
		git_dirty     INTEGER NOT NULL DEFAULT 0 CHECK (git_dirty IN (0, 1)),
		go_version    TEXT    NOT NULL DEFAULT '',
		gomlx_version TEXT    NOT NULL DEFAULT '',
		backend       TEXT    NOT NULL DEFAULT '',
		device        TEXT    NOT NULL DEFAULT '',
		host          TEXT    NOT NULL DEFAULT '',
		attempts      INTEGER NOT NULL DEFAULT 1
	);
	CREATE TABLE metrics (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name   TEXT    NOT NULL,
		value  REAL,   -- NULL means NaN
		PRIMARY KEY (run_id, name)
	);
	CREATE TABLE curves (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		epoch  INTEGER NOT NULL,
		name   TEXT    NOT NULL,
		value  REAL    -- NULL means NaN
	);`,
	// 2: indexes for the report queries and for Curves.
	`CREATE INDEX runs_method_dataset ON runs(method, dataset);
	CREATE INDEX runs_dataset ON runs(dataset);
	CREATE INDEX runs_status ON runs(status);
	CREATE INDEX curves_run ON curves(run_id, epoch);`,
	// 3: the owner of a running run (process id on runs.host) and its last
	// heartbeat, so grids in several processes can share one database.
	`ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN heartbeat TEXT; -- UTC, timeLayout; NULL before schema 3`,
	// 4: the rest of the owner's identity: its pid namespace (containers on
	// one host) and start time (pid reuse); see process.
	`ALTER TABLE runs ADD COLUMN pidns TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN pid_start INTEGER NOT NULL DEFAULT 0;`,
	// 5: protocol v2's split seed, apart from the run seed. Runs stored
	// before it drew their split with the run seed (protocol v1), so that
	// is their split seed.
	`ALTER TABLE runs ADD COLUMN split_seed INTEGER NOT NULL DEFAULT 0;
	UPDATE runs SET split_seed = seed;
	CREATE INDEX runs_split_seed ON runs(split_seed);`,
	// 6: per-run artifacts that are neither metrics nor curves: arrays
	// stored as little-endian blobs (see artifacts.go). Runs stored before
	// it have none.
	`CREATE TABLE artifacts (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name   TEXT    NOT NULL,
		dtype  TEXT    NOT NULL CHECK (dtype IN ('float32', 'int32')),
		shape  TEXT    NOT NULL, -- JSON array of the dimensions, e.g. [450,256]
		data   BLOB    NOT NULL, -- row-major, little-endian
		PRIMARY KEY (run_id, name)
	);`,
	// 7: the progress of the current attempt: the last epoch a running run
	// logged and its total (Run.Epoch, Run.Epochs), written with the
	// heartbeat. 0 for runs stored before it and before a run's first epoch.
	`ALTER TABLE runs ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN epochs INTEGER NOT NULL DEFAULT 0;`,
	// 8: the post-hoc unknown scorers applied to a run (their metrics are
	// in metrics as "<label>:<metric>") and the outputs they read, kept
	// for rescoring (see outputs.go). Runs stored before it have neither.
	`CREATE TABLE scorers (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		label  TEXT    NOT NULL, -- the metric prefix, e.g. knn_k10
		name   TEXT    NOT NULL, -- the registry name, e.g. knn
		params TEXT    NOT NULL, -- JSON object of the parameters in effect
		error  TEXT    NOT NULL DEFAULT '', -- why it has no metrics, '' if it has
		PRIMARY KEY (run_id, label)
	);
	CREATE TABLE outputs (
		run_id INTEGER NOT NULL PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
		format TEXT    NOT NULL, -- outputsFormat
		data   BLOB    NOT NULL  -- gzip of the encoding (outputs.go)
	);`,
	// 9: the CPU vector kernels of GoMLX's pure-Go backend that computed
	// the run (Provenance.Kernels); '' for runs stored before it and for
	// other backends.
	`ALTER TABLE runs ADD COLUMN kernels TEXT NOT NULL DEFAULT '';`,
}

// SchemaVersion is the schema version this package creates and expects.
// Open migrates older databases up to it and refuses newer ones.
func SchemaVersion() int { return len(migrations) }

// ErrNotFound is returned (wrapped) for a run id that is not in the store.
var ErrNotFound = errors.New("run not found")

// ErrAlreadyFinished is returned (wrapped) by Start, Finish and Fail for a
// run that is already finished: a finished run is never overwritten. It is
// suite.ErrAlreadyFinished, which the scheduler skips.
var ErrAlreadyFinished = suite.ErrAlreadyFinished

// ErrRunningElsewhere is returned (wrapped) by Start for a run that another
// live process is running (see Start). It is suite.ErrRunningElsewhere,
// which the scheduler skips.
var ErrRunningElsewhere = suite.ErrRunningElsewhere

// Store is the SQLite run store. It is safe for concurrent use by several
// goroutines, and several processes of one machine may open the same file
// (SQLite's WAL mode needs shared memory: no network file systems): WAL and
// a busy timeout serialise their writes, and every running run carries its
// owning process and a heartbeat, so that one process neither restarts nor
// marks interrupted a run another process is computing.
type Store struct {
	db   *sql.DB
	path string

	self      process          // this process, the owner of the runs it starts
	probe     probe            // what exists in this pid namespace
	now       func() time.Time // the clock (tests replace it)
	beat      sync.Once        // starts the heartbeat loop on the first Start
	mu        sync.Mutex       // guards progress
	progress  map[int64][2]int // run id → (epoch, total) not yet written
	stop      chan struct{}    // closed by Close to end the loop
	ended     chan struct{}    // closed when the loop has ended
	closeOnce sync.Once
}

// Open opens the store at path, creating the file if needed, in WAL journal
// mode with foreign keys on and a 10 s busy timeout. It applies any missing
// schema migrations in one transaction and refuses a database written by a
// newer ugbench (schema version above SchemaVersion()). path must not contain
// '?'.
func Open(path string) (*Store, error) { return openWith(path, migrations) }

// openWith is Open with an explicit migration list, so tests can create
// databases of older schema versions.
func openWith(path string, migs []string) (*Store, error) {
	if path == "" {
		return nil, errors.New("runs: empty database path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("runs: database path %q contains '?', which the SQLite driver reserves for options", path)
	}
	// _txlock=immediate: every transaction takes the write lock at BEGIN,
	// so two writers never deadlock upgrading read locks (which the busy
	// timeout cannot resolve).
	dsn := fmt.Sprintf("%s?_journal_mode=WAL&_busy_timeout=%d&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate",
		path, busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("runs: open %s: %w", path, err)
	}
	// One connection: the goroutines of a process take turns, so they never
	// see SQLITE_BUSY from each other (SQLite allows one writer anyway), and
	// the connection-level pragmas hold for every statement.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("runs: open %s: %w", path, err)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("runs: open %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("runs: open %s: journal mode is %q, not WAL (file system without shared memory?)", path, mode)
	}
	s := &Store{db: db, path: path, self: thisProcess(), probe: probeProcess, now: time.Now,
		stop: make(chan struct{}), ended: make(chan struct{})}
	if err := s.migrate(migs); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate brings the schema up to len(migs), in one transaction.
func (s *Store) migrate(migs []string) error {
	return s.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("runs: %s: create schema_version: %w", s.path, err)
		}
		var version int
		err := tx.QueryRow(`SELECT version FROM schema_version`).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			if _, err := tx.Exec(`INSERT INTO schema_version (version) VALUES (0)`); err != nil {
				return fmt.Errorf("runs: %s: init schema_version: %w", s.path, err)
			}
			version = 0
		} else if err != nil {
			return fmt.Errorf("runs: %s: read schema version: %w", s.path, err)
		}
		if version > len(migs) {
			return fmt.Errorf("runs: %s has schema version %d, newer than the version %d this ugbench supports; use a newer ugbench or another database file",
				s.path, version, len(migs))
		}
		for v := version; v < len(migs); v++ {
			if _, err := tx.Exec(migs[v]); err != nil {
				return fmt.Errorf("runs: %s: migrate schema from version %d to %d: %w", s.path, v, v+1, err)
			}
		}
		if version < len(migs) {
			if _, err := tx.Exec(`UPDATE schema_version SET version = ?`, len(migs)); err != nil {
				return fmt.Errorf("runs: %s: record schema version: %w", s.path, err)
			}
		}
		return nil
	})
}

// QuickCheck runs SQLite's PRAGMA quick_check (integrity_check without the
// index-content checks: O(N) in the file's size) and returns an error
// naming the file and up to three of the problems it found, so a command
// refuses a damaged database instead of reading part of it (e.g. a grid
// that sees no finished runs on an overwritten page and recomputes them).
func (s *Store) QuickCheck() error {
	rows, err := s.db.Query(`PRAGMA quick_check`)
	if err != nil {
		return fmt.Errorf("runs: %s is damaged or not a SQLite database: %w", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return fmt.Errorf("runs: %s is damaged: %w", s.path, err)
		}
		if msg != "ok" {
			problems = append(problems, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("runs: %s is damaged: %w", s.path, err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return fmt.Errorf("runs: %s is damaged (SQLite quick_check: %s); restore it from a copy, or recover its rows with `sqlite3 %s .recover`",
			s.path, strings.Join(problems, "; "), s.path)
	}
	return nil
}

// Close stops the heartbeat and closes the database. The Store must not be
// used afterwards.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.beat.Do(func() { close(s.ended) }) // no loop was started
		<-s.ended
	})
	return s.db.Close()
}

// Path is the file the store was opened from.
func (s *Store) Path() string { return s.path }

// tx runs f in a write transaction, committing if f returns nil.
func (s *Store) tx(f func(tx *sql.Tx) error) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("runs: %s: begin: %w", s.path, err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("runs: %s: commit: %w", s.path, err)
	}
	return nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(timeLayout, s) }

// floatArg is the SQL value of v: NULL for NaN, v otherwise.
func floatArg(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// floatOf is the inverse of floatArg.
func floatOf(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// Start records spec as running, owned by this process (runs.pid, pidns,
// pid_start; runs.host is prov.Host, this host's name), and returns its run
// id. A new hash is inserted with attempts = 1. A hash already stored as
// failed, interrupted or stale running (its owner is gone: no heartbeat for
// StaleAfter, or, seen from the owner's pid namespace, no such process) is
// restarted under the same id: its error, metrics and curves are cleared,
// attempts is incremented, and spec, provenance, owner and the start time
// are replaced. A hash that another live process is running returns an
// error wrapping ErrRunningElsewhere; a finished hash one wrapping
// ErrAlreadyFinished. Callers must not Start the same hash twice
// concurrently within one process (a grid deduplicates hashes). The first
// Start starts the heartbeat of this process's running runs (every
// HeartbeatInterval, until Close).
func (s *Store) Start(spec suite.RunSpec, prov Provenance) (int64, error) {
	specJSON, paramsJSON, protocolJSON, err := encodeSpec(spec)
	if err != nil {
		return 0, err
	}
	hash := spec.Hash()
	now := formatTime(s.now())
	var id int64
	err = s.tx(func(tx *sql.Tx) error {
		var status Status
		var o owner
		err := tx.QueryRow(`SELECT id, status, host, pidns, pid, pid_start, heartbeat FROM runs WHERE hash = ?`, hash).
			Scan(&id, &status, &o.host, &o.ns, &o.pid, &o.start, &o.heartbeat)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res, err := tx.Exec(`INSERT INTO runs (hash, method, dataset, ratio_name, ratio, split_seed, seed,
					params, protocol, spec, status, error, started, finished, seconds,
					git_commit, git_dirty, go_version, gomlx_version, backend, kernels, device, host, attempts,
					pid, pidns, pid_start, heartbeat)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
				hash, spec.Method, spec.Dataset, spec.RatioName, spec.Ratio, spec.SplitSeed, spec.Seed,
				paramsJSON, protocolJSON, specJSON, StatusRunning, now,
				prov.GitCommit, prov.GitDirty, prov.GoVersion, prov.GoMLXVersion, prov.Backend, prov.Kernels, prov.Device, prov.Host,
				s.self.pid, s.self.ns, s.self.start, now)
			if err != nil {
				return err
			}
			id, err = res.LastInsertId()
			return err
		case err != nil:
			return err
		case status == StatusFinished:
			return fmt.Errorf("runs: start %s (hash %s): run %d: %w", spec, hash, id, ErrAlreadyFinished)
		case status == StatusRunning && s.live(o):
			return fmt.Errorf("runs: start %s (hash %s): run %d, process %d on %s: %w", spec, hash, id, o.pid, o.host, ErrRunningElsewhere)
		}
		if _, err := tx.Exec(`DELETE FROM metrics WHERE run_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM curves WHERE run_id = ?`, id); err != nil {
			return err
		}
		if err := clearArtifacts(tx, id); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE runs SET method = ?, dataset = ?, ratio_name = ?, ratio = ?, split_seed = ?, seed = ?,
				params = ?, protocol = ?, spec = ?, status = ?, error = '', started = ?, finished = NULL,
				seconds = NULL, git_commit = ?, git_dirty = ?, go_version = ?, gomlx_version = ?,
				backend = ?, kernels = ?, device = ?, host = ?, attempts = attempts + 1,
				pid = ?, pidns = ?, pid_start = ?, heartbeat = ?, epoch = 0, epochs = 0
			WHERE id = ?`,
			spec.Method, spec.Dataset, spec.RatioName, spec.Ratio, spec.SplitSeed, spec.Seed,
			paramsJSON, protocolJSON, specJSON, StatusRunning, now,
			prov.GitCommit, prov.GitDirty, prov.GoVersion, prov.GoMLXVersion, prov.Backend, prov.Kernels, prov.Device, prov.Host,
			s.self.pid, s.self.ns, s.self.start, now, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrAlreadyFinished) || errors.Is(err, ErrRunningElsewhere) {
			return 0, err
		}
		return 0, fmt.Errorf("runs: %s: start %s: %w", s.path, spec, err)
	}
	s.startHeartbeat()
	return id, nil
}

// encodeSpec returns the JSON of spec, of its params ({} when nil) and of
// its protocol, as the runs columns spec, params and protocol hold them.
func encodeSpec(spec suite.RunSpec) (specJSON, paramsJSON, protocolJSON string, err error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", "", "", fmt.Errorf("runs: encode spec %s: %w", spec, err)
	}
	params := spec.Params
	if params == nil {
		params = suite.Params{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return "", "", "", fmt.Errorf("runs: encode params of %s: %w", spec, err)
	}
	q, err := json.Marshal(spec.Protocol)
	if err != nil {
		return "", "", "", fmt.Errorf("runs: encode protocol of %s: %w", spec, err)
	}
	return string(b), string(p), string(q), nil
}

// statusOf reads the status of run id inside tx; ErrNotFound if absent.
func statusOf(tx *sql.Tx, id int64) (Status, error) {
	var status Status
	err := tx.QueryRow(`SELECT status FROM runs WHERE id = ?`, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	return status, err
}

// Finish stores res for run id and marks it finished, all in one
// transaction: metrics (replacing any), curves (in the given order), the
// test embeddings res.Embeddings if any (artifacts, see Embeddings), the
// scorers applied and the outputs they read (Outputs), the
// finish time and res.Seconds. Metric and curve values may be NaN (stored as
// NULL, read back as NaN) or ±Inf. A run that is not running (e.g. marked
// interrupted, or restarted by another process that judged it abandoned) is
// still finished: its result is valid. An unknown id wraps ErrNotFound; an
// already finished run (e.g. by that other process) wraps
// ErrAlreadyFinished, which the scheduler takes as "finished elsewhere".
func (s *Store) Finish(id int64, res suite.Result) error {
	if _, ok := res.Metrics[""]; ok {
		return fmt.Errorf("runs: finish run %d: empty metric name", id)
	}
	now := formatTime(s.now())
	err := s.tx(func(tx *sql.Tx) error {
		status, err := statusOf(tx, id)
		if err != nil {
			return err
		}
		if status == StatusFinished {
			return fmt.Errorf("run %d: %w", id, ErrAlreadyFinished)
		}
		if _, err := tx.Exec(`DELETE FROM metrics WHERE run_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM curves WHERE run_id = ?`, id); err != nil {
			return err
		}
		if err := clearArtifacts(tx, id); err != nil {
			return err
		}
		if err := insertMetrics(tx, id, res.Metrics); err != nil {
			return err
		}
		if err := insertCurves(tx, id, res.Curves); err != nil {
			return err
		}
		if err := insertEmbeddings(tx, id, res.Embeddings); err != nil {
			return err
		}
		if err := insertScorers(tx, id, res.Scorers); err != nil {
			return err
		}
		if err := insertOutputs(tx, id, res.Outputs); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE runs SET status = ?, error = '', finished = ?, seconds = ? WHERE id = ?`,
			StatusFinished, now, floatArg(res.Seconds), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("runs: %s: finish: %w", s.path, err)
	}
	return nil
}

// insertCurves appends curve points of run id inside tx.
func insertCurves(tx *sql.Tx, id int64, curves []suite.CurvePoint) error {
	if len(curves) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`INSERT INTO curves (run_id, epoch, name, value) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, p := range curves {
		if _, err := stmt.Exec(id, p.Epoch, p.Name, floatArg(p.Value)); err != nil {
			return fmt.Errorf("curve %s epoch %d: %w", p.Name, p.Epoch, err)
		}
	}
	return nil
}

// Fail marks run id as status (StatusFailed or StatusInterrupted) with the
// message msg and the curves logged before the failure (e.g. the loss up to
// a NaN), and records the time of the failure as its finish time. A run
// that another process has restarted since (it is running under another
// owner) is left alone: nil. An unknown id wraps ErrNotFound; a finished run
// is left alone and wraps ErrAlreadyFinished.
func (s *Store) Fail(id int64, status Status, msg string, curves []suite.CurvePoint) error {
	if status != StatusFailed && status != StatusInterrupted {
		return fmt.Errorf("runs: fail run %d: status %q is neither %q nor %q", id, status, StatusFailed, StatusInterrupted)
	}
	now := formatTime(s.now())
	err := s.tx(func(tx *sql.Tx) error {
		var old Status
		var o process
		err := tx.QueryRow(`SELECT status, pid, pidns, pid_start FROM runs WHERE id = ?`, id).Scan(&old, &o.pid, &o.ns, &o.start)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if old == StatusFinished {
			return fmt.Errorf("run %d: %w", id, ErrAlreadyFinished)
		}
		if old == StatusRunning && (o.pid != s.self.pid || o.ns != s.self.ns || o.start != s.self.start) {
			return nil // another process restarted it and owns it now
		}
		if _, err := tx.Exec(`DELETE FROM curves WHERE run_id = ?`, id); err != nil {
			return err
		}
		if err := clearArtifacts(tx, id); err != nil {
			return err
		}
		if err := insertCurves(tx, id, curves); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE runs SET status = ?, error = ?, finished = ?, seconds = NULL WHERE id = ?`,
			status, msg, now, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("runs: %s: fail: %w", s.path, err)
	}
	return nil
}

// finishedChunk bounds the number of SQL variables per query of Finished
// and RunningElsewhere.
const finishedChunk = 500

// Finished reports which of hashes are stored as finished: the map has every
// given hash as a key, true if finished. A grid skips those on a rerun.
func (s *Store) Finished(hashes []string) (map[string]bool, error) {
	m, err := s.hashesWith(StatusFinished, hashes, false)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: finished: %w", s.path, err)
	}
	return m, nil
}

// NotFinishedIn returns the runs of rs, in order, whose config hash is not
// stored as finished in other: what a session adds to an archive database
// (bench export --not-in). Errors are other's, naming its file.
func NotFinishedIn(rs []Run, other *Store) ([]Run, error) {
	hashes := make([]string, len(rs))
	for i, r := range rs {
		hashes[i] = r.Hash
	}
	done, err := other.Finished(hashes)
	if err != nil {
		return nil, err
	}
	out := []Run{}
	for _, r := range rs {
		if !done[r.Hash] {
			out = append(out, r)
		}
	}
	return out, nil
}

// RunningElsewhere reports which of hashes another live process is running
// (see Start): the map has every given hash as a key, true if so. Runs of
// this process, and running rows whose owner is gone, are false. `bench grid
// --dry-run` shows them as running rather than to do. The error, if any, is
// a failed database read.
func (s *Store) RunningElsewhere(hashes []string) (map[string]bool, error) {
	m, err := s.hashesWith(StatusRunning, hashes, true)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: running elsewhere: %w", s.path, err)
	}
	return m, nil
}

// hashesWith maps every hash of hashes to whether its run has status and,
// if liveOnly, a live owner (Store.live).
func (s *Store) hashesWith(status Status, hashes []string, liveOnly bool) (map[string]bool, error) {
	m := make(map[string]bool, len(hashes))
	for _, h := range hashes {
		m[h] = false
	}
	for lo := 0; lo < len(hashes); lo += finishedChunk {
		chunk := hashes[lo:min(lo+finishedChunk, len(hashes))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, status)
		for _, h := range chunk {
			args = append(args, h)
		}
		if err := s.markHashes(m, liveOnly, `SELECT hash, host, pidns, pid, pid_start, heartbeat FROM runs
			WHERE status = ? AND hash IN (`+placeholders(len(chunk))+`)`, args); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// markHashes sets m[hash] for each row of query (hash and owner columns),
// only those with a live owner if liveOnly.
func (s *Store) markHashes(m map[string]bool, liveOnly bool, query string, args []any) error {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var o owner
		if err := rows.Scan(&h, &o.host, &o.ns, &o.pid, &o.start, &o.heartbeat); err != nil {
			return err
		}
		if !liveOnly || s.live(o) {
			m[h] = true
		}
	}
	return rows.Err()
}

// interruptedMsg is the error MarkRunningInterrupted records.
const interruptedMsg = "still marked running when a new grid started: its process ended without finishing it"

// MarkRunningInterrupted marks every stale running run (its owner is gone,
// see Start) as interrupted and returns how many it marked. Runs that other
// live processes are computing are left alone. Call it at grid start.
func (s *Store) MarkRunningInterrupted() (int64, error) {
	now := formatTime(s.now())
	var n int64
	err := s.tx(func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT id, host, pidns, pid, pid_start, heartbeat FROM runs WHERE status = ?`, StatusRunning)
		if err != nil {
			return err
		}
		var stale []int64
		for rows.Next() {
			var id int64
			var o owner
			if err := rows.Scan(&id, &o.host, &o.ns, &o.pid, &o.start, &o.heartbeat); err != nil {
				rows.Close()
				return err
			}
			if !s.live(o) {
				stale = append(stale, id)
			}
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, id := range stale {
			if _, err := tx.Exec(`UPDATE runs SET status = ?, error = ?, finished = ? WHERE id = ?`,
				StatusInterrupted, interruptedMsg, now, id); err != nil {
				return err
			}
		}
		n = int64(len(stale))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("runs: %s: mark running interrupted: %w", s.path, err)
	}
	return n, nil
}

// RerunMsg starts the error MarkForRerun records.
const RerunMsg = "marked for rerun"

// MarkForRerun marks the runs ids that are finished as interrupted, with the
// error "marked for rerun: <reason>", so that the next grid that includes
// them computes them again (their metrics and curves stay until that
// restart clears them, but reports leave them out at once). Other runs
// among ids (running, failed, interrupted, or unknown ids) are left alone:
// a grid already reruns failed and interrupted ones. It returns the ids it
// marked, in increasing order. A grid already under way on the same
// database does not pick them up (it read which runs were finished when it
// started); a new one does.
func (s *Store) MarkForRerun(ids []int64, reason string) ([]int64, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	var marked []int64
	err = s.tx(func(tx *sql.Tx) error {
		rows, err := tx.Query(`UPDATE runs SET status = ?, error = ?
			WHERE status = ? AND id IN (SELECT value FROM json_each(?)) RETURNING id`,
			StatusInterrupted, RerunMsg+": "+reason, StatusFinished, string(list))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			marked = append(marked, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("runs: %s: mark for rerun: %w", s.path, err)
	}
	slices.Sort(marked)
	return marked, nil
}

// Filter selects runs for List. Each non-empty field restricts the runs to
// those whose value is in it; empty fields select all. Lists of any length
// work (each is one JSON argument, not one SQL variable per value).
type Filter struct {
	// Methods are method names (RunSpec.Method).
	Methods []string
	// Datasets are dataset names (RunSpec.Dataset).
	Datasets []string
	// Status are run statuses.
	Status []Status
	// Ratios are ratio names ("low", "high"); one that parses as a number
	// also selects the runs of that labelled ratio, named or not.
	Ratios []string
	// Seeds are run seeds.
	Seeds []int64
	// SplitSeeds are split seeds.
	SplitSeeds []int64
}

// where renders f as an SQL condition on the table alias r (" WHERE ..." or
// "") and its arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	// add restricts col to vals, passed as one JSON array.
	add := func(col string, vals []any) {
		if len(vals) == 0 {
			return
		}
		list, _ := json.Marshal(vals) // strings and numbers only
		conds = append(conds, col+" IN (SELECT value FROM json_each(?))")
		args = append(args, string(list))
	}
	add("r.method", anys(f.Methods))
	add("r.dataset", anys(f.Datasets))
	add("r.status", anys(f.Status))
	add("r.seed", anys(f.Seeds))
	add("r.split_seed", anys(f.SplitSeeds))
	if len(f.Ratios) > 0 {
		// A name matches ratio_name; a number also matches the value.
		var nums []float64
		for _, r := range f.Ratios {
			if v, err := strconv.ParseFloat(r, 64); err == nil {
				nums = append(nums, v)
			}
		}
		names, _ := json.Marshal(f.Ratios)
		c := "r.ratio_name IN (SELECT value FROM json_each(?))"
		args = append(args, string(names))
		if len(nums) > 0 {
			values, _ := json.Marshal(nums)
			c = "(" + c + " OR r.ratio IN (SELECT value FROM json_each(?)))"
			args = append(args, string(values))
		}
		conds = append(conds, c)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// anys converts vals to SQL arguments.
func anys[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// placeholders returns "?, ?, ..." with n question marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// List returns the runs selected by f, ordered by id, with Metrics filled
// for finished runs. It reads runs and metrics in one query (a consistent
// snapshot). Spec.Params numbers come back as float64; see Run.Spec.
func (s *Store) List(f Filter) ([]Run, error) {
	where, args := f.where()
	rows, err := s.db.Query(`SELECT r.id, r.hash, r.spec, r.status, r.error, r.started, r.finished,
			r.seconds, r.git_commit, r.git_dirty, r.go_version, r.gomlx_version, r.backend,
			r.kernels, r.device, r.host, r.attempts, r.epoch, r.epochs, m.name, m.value
		FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND r.status = 'finished'`+
		where+` ORDER BY r.id, m.name`, args...)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: list: %w", s.path, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var (
			r          Run
			specJSON   string
			started    string
			finished   sql.NullString
			seconds    sql.NullFloat64
			metricName sql.NullString
			metricVal  sql.NullFloat64
		)
		err := rows.Scan(&r.ID, &r.Hash, &specJSON, &r.Status, &r.Error, &started, &finished,
			&seconds, &r.Provenance.GitCommit, &r.Provenance.GitDirty, &r.Provenance.GoVersion,
			&r.Provenance.GoMLXVersion, &r.Provenance.Backend, &r.Provenance.Kernels, &r.Provenance.Device,
			&r.Provenance.Host, &r.Attempts, &r.Epoch, &r.Epochs, &metricName, &metricVal)
		if err != nil {
			return nil, fmt.Errorf("runs: %s: list: %w", s.path, err)
		}
		if n := len(out); n > 0 && out[n-1].ID == r.ID {
			// Another metric row of the same run.
			if metricName.Valid {
				out[n-1].Metrics[metricName.String] = floatOf(metricVal)
			}
			continue
		}
		if err := json.Unmarshal([]byte(specJSON), &r.Spec); err != nil {
			return nil, fmt.Errorf("runs: %s: list: run %d: decode spec: %w", s.path, r.ID, err)
		}
		if r.Started, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("runs: %s: list: run %d: started: %w", s.path, r.ID, err)
		}
		if finished.Valid {
			if r.Finished, err = parseTime(finished.String); err != nil {
				return nil, fmt.Errorf("runs: %s: list: run %d: finished: %w", s.path, r.ID, err)
			}
		}
		if seconds.Valid {
			r.Seconds = seconds.Float64
		}
		if r.Status == StatusFinished {
			r.Metrics = map[string]float64{}
			if metricName.Valid {
				r.Metrics[metricName.String] = floatOf(metricVal)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs: %s: list: %w", s.path, err)
	}
	return out, nil
}

// Curves returns the curve points of run id in the order Finish stored them
// (NaN values included). A run without curves gives an empty slice; an
// unknown id wraps ErrNotFound.
func (s *Store) Curves(runID int64) ([]suite.CurvePoint, error) {
	rows, err := s.db.Query(`SELECT epoch, name, value FROM curves WHERE run_id = ? ORDER BY rowid`, runID)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: curves of run %d: %w", s.path, runID, err)
	}
	var out []suite.CurvePoint
	for rows.Next() {
		var p suite.CurvePoint
		var v sql.NullFloat64
		if err := rows.Scan(&p.Epoch, &p.Name, &v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("runs: %s: curves of run %d: %w", s.path, runID, err)
		}
		p.Value = floatOf(v)
		out = append(out, p)
	}
	err = rows.Err()
	rows.Close() // before the next query: the store has one connection
	if err != nil {
		return nil, fmt.Errorf("runs: %s: curves of run %d: %w", s.path, runID, err)
	}
	if len(out) == 0 {
		var one int
		err := s.db.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("runs: %s: curves of run %d: %w", s.path, runID, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("runs: %s: curves of run %d: %w", s.path, runID, err)
		}
		return []suite.CurvePoint{}, nil
	}
	return out, nil
}
