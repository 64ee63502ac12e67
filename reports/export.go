package reports

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// ExportFormats returns the formats Export writes.
func ExportFormats() []string { return []string{"json", "csv"} }

// ExportFormat and ExportVersion head the JSON export.
const (
	ExportFormat  = "ugbench-runs"
	ExportVersion = 1
)

// ExportRun is one run in the JSON export (see testdata/export.json.golden).
type ExportRun struct {
	ID     int64  `json:"id"`
	Hash   string `json:"hash"`
	Status string `json:"status"`
	// Error is the failure or interruption message ("" otherwise).
	Error string `json:"error"`
	// Spec is the full run spec: method, dataset, ratio, split seed, seed,
	// params, protocol.
	Spec suite.RunSpec `json:"spec"`
	// Started and Finished are RFC 3339 UTC times; Finished is "" while
	// running.
	Started  string `json:"started"`
	Finished string `json:"finished"`
	// Seconds is the wall time of Fit (0 unless finished).
	Seconds    float64         `json:"seconds"`
	Attempts   int             `json:"attempts"`
	Provenance runs.Provenance `json:"provenance"`
	// Metrics are the finished run's metrics; NaN and ±Inf are null (JSON
	// has no such numbers).
	Metrics map[string]*float64 `json:"metrics"`
}

// Export is the JSON export: every run with its spec, parameters,
// provenance and metrics.
type Export struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	Runs    []ExportRun `json:"runs"`
}

// WriteExport writes rs in format json (an Export, indented) or csv (one
// row per run, columns: id, hash, status, method, dataset, ratio_name,
// ratio, split_seed, seed, param.NAME for every parameter of some run,
// class_split, test_frac, alpha, the provenance (kernels after backend),
// started, finished, seconds, attempts, error, metric.NAME for every
// metric of some run;
// empty where a run has no such value, NaN written as NaN).
func WriteExport(w io.Writer, rs []runs.Run, format string) error {
	switch format {
	case "json":
		return writeExportJSON(w, rs)
	case "csv":
		return writeExportCSV(w, rs)
	}
	return fmt.Errorf("reports: unknown export format %q (accepted: %s)", format, strings.Join(ExportFormats(), ", "))
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func writeExportJSON(w io.Writer, rs []runs.Run) error {
	e := Export{Format: ExportFormat, Version: ExportVersion, Runs: []ExportRun{}}
	for _, r := range rs {
		x := ExportRun{ID: r.ID, Hash: r.Hash, Status: string(r.Status), Error: r.Error, Spec: r.Spec,
			Started: timeText(r.Started), Finished: timeText(r.Finished),
			Seconds: r.Seconds, Attempts: r.Attempts, Provenance: r.Provenance, Metrics: map[string]*float64{}}
		if x.Spec.Params == nil {
			x.Spec.Params = suite.Params{}
		}
		for k, v := range r.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				x.Metrics[k] = nil
				continue
			}
			v := v
			x.Metrics[k] = &v
		}
		e.Runs = append(e.Runs, x)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
}

func writeExportCSV(w io.Writer, rs []runs.Run) error {
	paramSet, metricSet := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		for k := range r.Spec.Params {
			paramSet[k] = true
		}
		for k := range r.Metrics {
			metricSet[k] = true
		}
	}
	params, metrics := sortedKeys(paramSet), sortedKeys(metricSet)
	header := []string{"id", "hash", "status", "method", "dataset", "ratio_name", "ratio", "split_seed", "seed"}
	for _, p := range params {
		header = append(header, "param."+p)
	}
	header = append(header, "class_split", "test_frac", "alpha",
		"git_commit", "git_dirty", "go_version", "gomlx_version", "backend", "kernels", "device", "host",
		"started", "finished", "seconds", "attempts", "error")
	for _, m := range metrics {
		header = append(header, "metric."+m)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range rs {
		s := r.Spec
		rec := []string{strconv.FormatInt(r.ID, 10), r.Hash, string(r.Status), s.Method, s.Dataset, s.RatioLabel(),
			num(s.Ratio), strconv.FormatInt(s.SplitSeed, 10), strconv.FormatInt(s.Seed, 10)}
		for _, p := range params {
			v, ok := s.Params[p]
			switch {
			case !ok:
				rec = append(rec, "")
			case isFloat(v):
				rec = append(rec, num(v.(float64)))
			default:
				rec = append(rec, fmt.Sprint(v))
			}
		}
		p := r.Provenance
		finished, seconds := timeText(r.Finished), ""
		if r.Status == runs.StatusFinished {
			seconds = num(r.Seconds)
		}
		rec = append(rec, s.Protocol.ClassSplit, num(s.Protocol.TestFrac), num(s.Protocol.Alpha),
			p.GitCommit, strconv.FormatBool(p.GitDirty), p.GoVersion, p.GoMLXVersion, p.Backend, p.Kernels, p.Device, p.Host,
			timeText(r.Started), finished, seconds, strconv.Itoa(r.Attempts), r.Error)
		for _, m := range metrics {
			v, ok := r.Metrics[m]
			if !ok {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, num(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func isFloat(v any) bool { _, ok := v.(float64); return ok }

// ReadExport reads the JSON export that WriteExport writes (format
// ExportFormat, version at most ExportVersion), e.g. an archive of finished
// runs committed beside the documents generated from them. Errors: not
// JSON, another format or a newer version; each names the byte offset or
// the field. The runs are not checked here: ExportRun.Run checks each.
func ReadExport(r io.Reader) (Export, error) {
	var e Export
	dec := json.NewDecoder(r)
	if err := dec.Decode(&e); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return Export{}, fmt.Errorf("not a JSON export of runs: byte %d: %w", syn.Offset, err)
		}
		return Export{}, fmt.Errorf("not a JSON export of runs: %w", err)
	}
	if e.Format != ExportFormat {
		return Export{}, fmt.Errorf("format %q, want %q (the JSON of bench export)", e.Format, ExportFormat)
	}
	if e.Version < 1 || e.Version > ExportVersion {
		return Export{}, fmt.Errorf("version %d of %s, this build reads 1 to %d", e.Version, ExportFormat, ExportVersion)
	}
	return e, nil
}

// Run converts x back to the stored run it was exported from: the same
// hash, spec, status, times, wall time, attempts, provenance and metrics
// (null as NaN). Errors: a status the store does not know, and a time that
// is not RFC 3339.
func (x ExportRun) Run() (runs.Run, error) {
	r := runs.Run{ID: x.ID, Hash: x.Hash, Spec: x.Spec, Status: runs.Status(x.Status), Error: x.Error,
		Seconds: x.Seconds, Attempts: x.Attempts, Provenance: x.Provenance}
	switch r.Status {
	case runs.StatusRunning, runs.StatusFinished, runs.StatusFailed, runs.StatusInterrupted:
	default:
		return runs.Run{}, fmt.Errorf("run %d (hash %s): unknown status %q", x.ID, x.Hash, x.Status)
	}
	for _, t := range []struct {
		name string
		text string
		to   *time.Time
	}{{"started", x.Started, &r.Started}, {"finished", x.Finished, &r.Finished}} {
		if t.text == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, t.text)
		if err != nil {
			return runs.Run{}, fmt.Errorf("run %d (hash %s): %s: %w", x.ID, x.Hash, t.name, err)
		}
		*t.to = v.UTC()
	}
	if r.Status == runs.StatusFinished {
		r.Metrics = make(map[string]float64, len(x.Metrics))
		for k, v := range x.Metrics {
			r.Metrics[k] = math.NaN()
			if v != nil {
				r.Metrics[k] = *v
			}
		}
	}
	return r, nil
}

// ImportTally counts what Import did with an export's runs.
type ImportTally struct {
	// Runs is the number of runs in the export.
	Runs int
	// Outcomes counts the finished runs by what runs.Store.Import did.
	Outcomes map[runs.ImportOutcome]int
	// NotFinished counts the runs passed by: running, failed or
	// interrupted in the export (a grid reruns them).
	NotFinished int
	// Conflicts are the finished runs the store already held with other
	// results (the store's were kept).
	Conflicts []runs.MergeConflict
}

// Import adds the finished runs of e to store (runs.Store.Import: a grid
// on store then skips them) and passes by the others. Errors name the run
// (its index in e, id and hash); the runs imported before it stay.
func Import(store *runs.Store, e Export) (ImportTally, error) {
	t := ImportTally{Runs: len(e.Runs), Outcomes: map[runs.ImportOutcome]int{}}
	for i, x := range e.Runs {
		r, err := x.Run()
		if err != nil {
			return t, fmt.Errorf("run #%d: %w", i+1, err)
		}
		if r.Status != runs.StatusFinished {
			t.NotFinished++
			continue
		}
		outcome, c, err := store.Import(r)
		if err != nil {
			return t, fmt.Errorf("run #%d (id %d): %w", i+1, x.ID, err)
		}
		t.Outcomes[outcome]++
		if outcome == runs.ImportConflict {
			t.Conflicts = append(t.Conflicts, c)
		}
	}
	return t, nil
}
