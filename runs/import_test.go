package runs

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/suite"
)

// archived is a finished run as an archive holds it: the spec's hash, times
// with nanoseconds, a NaN metric and a measurement.
func archived(seed int64, acc float64) Run {
	spec := testSpec("gin-topk", "COIL-DEL", seed)
	return Run{Hash: spec.Hash(), Spec: spec, Status: StatusFinished,
		Started:  time.Date(2026, 11, 20, 10, 0, 0, 123456789, time.UTC),
		Finished: time.Date(2026, 11, 20, 10, 30, 0, 987654321, time.UTC),
		Seconds:  1799.25, Attempts: 2, Provenance: testProv,
		Metrics: map[string]float64{suite.MetricAccuracy: acc, "ood_f1": math.NaN(), suite.PeakMemoryMetric: 1500}}
}

func TestImport(t *testing.T) {
	for _, c := range []struct {
		name string
		// before puts the store in its state before the import of
		// archived(1, 0.5); nil: an empty store.
		before  func(t *testing.T, s *Store, path string)
		want    ImportOutcome
		metric  string  // ImportConflict: the differing metric
		wantAcc float64 // the accuracy stored afterwards (ImportBusy: still running, none)
	}{
		{name: "new hash", want: ImportAdded, wantAcc: 0.5},
		{name: "same results", before: func(t *testing.T, s *Store, _ string) { mustImport(t, s, archived(1, 0.5)) },
			want: ImportKept, wantAcc: 0.5},
		{name: "measurements differ", before: func(t *testing.T, s *Store, _ string) {
			r := archived(1, 0.5)
			r.Metrics[suite.PeakMemoryMetric] = 900
			mustImport(t, s, r)
		}, want: ImportKept, wantAcc: 0.5},
		{name: "other results", before: func(t *testing.T, s *Store, _ string) { mustImport(t, s, archived(1, 0.75)) },
			want: ImportConflict, metric: suite.MetricAccuracy, wantAcc: 0.75},
		{name: "failed here", before: func(t *testing.T, s *Store, _ string) {
			id, err := s.Start(archived(1, 0).Spec, testProv)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Fail(id, StatusFailed, "NaN loss", nil); err != nil {
				t.Fatal(err)
			}
		}, want: ImportReplaced, wantAcc: 0.5},
		{name: "running, owner gone", before: func(t *testing.T, s *Store, path string) {
			if _, err := openAs(t, path, 300, nil, nil).Start(archived(1, 0).Spec, testProv); err != nil {
				t.Fatal(err)
			}
			setProcess(s, 400, nil, nil) // the importer sees no process 300
		}, want: ImportReplaced, wantAcc: 0.5},
		{name: "running, owner alive", before: func(t *testing.T, s *Store, path string) {
			if _, err := openAs(t, path, 300, nil, nil).Start(archived(1, 0).Spec, testProv); err != nil {
				t.Fatal(err)
			}
			setProcess(s, 400, func(p int) bool { return p == 300 }, nil)
		}, want: ImportBusy},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, path := openTemp(t)
			if c.before != nil {
				c.before(t, s, path)
			}
			in := archived(1, 0.5)
			got, conflict, err := s.Import(in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("outcome %q, want %q", got, c.want)
			}
			if conflict.Metric != c.metric {
				t.Errorf("conflict on %q, want %q", conflict.Metric, c.metric)
			}
			if c.want == ImportConflict && (conflict.Kept != 0.75 || conflict.Dropped != 0.5 || conflict.Hash != in.Hash) {
				t.Errorf("conflict %+v: want kept 0.75, dropped 0.5, hash %s", conflict, in.Hash)
			}
			all, err := s.List(Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 {
				t.Fatalf("%d runs stored, want 1", len(all))
			}
			r := all[0]
			if c.want == ImportBusy {
				if r.Status != StatusRunning || r.Metrics != nil {
					t.Errorf("status %s with metrics %v, want the other process's run still running", r.Status, r.Metrics)
				}
				return
			}
			if !sameFloat(r.Metrics[suite.MetricAccuracy], c.wantAcc) {
				t.Errorf("accuracy %v stored, want %v", r.Metrics[suite.MetricAccuracy], c.wantAcc)
			}
			if c.want != ImportAdded && c.want != ImportReplaced {
				return
			}
			// What was imported reads back as it was archived.
			if r.Hash != in.Hash || r.Spec.Hash() != in.Hash || r.Status != StatusFinished || r.Seconds != in.Seconds ||
				r.Attempts != in.Attempts || r.Provenance != in.Provenance || r.Error != "" ||
				!r.Started.Equal(in.Started) || !r.Finished.Equal(in.Finished) || !sameMetrics(r.Metrics, in.Metrics) {
				t.Errorf("stored %+v\nwant %+v", r, in)
			}
			if curves, err := s.Curves(r.ID); err != nil || len(curves) != 0 {
				t.Errorf("curves %v, %v; want none", curves, err)
			}
			// A grid on this store skips the hash.
			if done, err := s.Finished([]string{in.Hash}); err != nil || !done[in.Hash] {
				t.Errorf("Finished = %v, %v; want the imported hash finished", done, err)
			}
		})
	}
}

func mustImport(t *testing.T, s *Store, r Run) {
	t.Helper()
	if _, _, err := s.Import(r); err != nil {
		t.Fatal(err)
	}
}

func TestImportRefused(t *testing.T) {
	failed := archived(1, 0.5)
	failed.Status = StatusFailed
	edited := archived(1, 0.5)
	edited.Spec.Seed = 2 // the hash no longer matches the spec
	for _, c := range []struct {
		name string
		run  Run
		want string
	}{
		{"not finished", failed, "only finished runs are imported"},
		{"hash of another spec", edited, "is not its spec's config hash"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTemp(t)
			if _, _, err := s.Import(c.run); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if all, err := s.List(Filter{}); err != nil || len(all) != 0 {
				t.Errorf("%d runs stored (%v), want none", len(all), err)
			}
		})
	}
}
