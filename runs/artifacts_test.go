package runs

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/suite"
)

func TestEmbeddingsRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	want := &suite.Embeddings{Graphs: []int{3, 7, 2249}, Truth: []int{0, suite.Unknown, 5}, Dim: 2,
		Data: []float32{1.5, -2, float32(math.Inf(1)), 0, 3.25, float32(math.NaN())}}
	id, err := s.Start(testSpec("gin-topk", "Letter-high", 0), testProv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings(id); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("embeddings of a running run: %v, want ErrNoEmbeddings", err)
	}
	if err := s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}, Embeddings: want}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Embeddings(id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Graphs, want.Graphs) || !reflect.DeepEqual(got.Truth, want.Truth) || got.Dim != 2 || len(got.Data) != 6 {
		t.Fatalf("embeddings %+v, want %+v", got, want)
	}
	for i, v := range want.Data {
		if math.Float32bits(got.Data[i]) != math.Float32bits(v) {
			t.Errorf("value %d = %v, want %v (bit for bit)", i, got.Data[i], v)
		}
	}
	// The blob is little-endian float32: 1.5 is 0x3fc00000.
	var blob []byte
	var shape, dtype string
	if err := s.db.QueryRow(`SELECT shape, dtype, data FROM artifacts WHERE run_id = ? AND name = ?`, id, ArtifactTestEmbeddings).Scan(&shape, &dtype, &blob); err != nil {
		t.Fatal(err)
	}
	if shape != "[3,2]" || dtype != "float32" || len(blob) != 24 || string(blob[:4]) != "\x00\x00\xc0\x3f" {
		t.Errorf("stored shape %s dtype %s, %d bytes starting % x", shape, dtype, len(blob), blob[:4])
	}

	// A run finished without embeddings (e.g. a kernel) has none.
	id2, err := s.Start(testSpec("wl", "Letter-high", 0), testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(id2, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings(id2); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("embeddings of a run without: %v, want ErrNoEmbeddings", err)
	}
	if _, err := s.Embeddings(999); !errors.Is(err, ErrNotFound) {
		t.Errorf("embeddings of an unknown run: %v, want ErrNotFound", err)
	}

	// Rerun: marked for rerun keeps them until the restart, which clears
	// them.
	if _, err := s.MarkForRerun([]int64{id}, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings(id); err != nil {
		t.Errorf("embeddings of a run marked for rerun: %v", err)
	}
	if _, err := s.Start(testSpec("gin-topk", "Letter-high", 0), testProv); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings(id); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("embeddings after a restart: %v, want ErrNoEmbeddings", err)
	}
}

func TestEmbeddingsRejectsBadShapes(t *testing.T) {
	s, _ := openTemp(t)
	for i, e := range []*suite.Embeddings{
		{Graphs: []int{1, 2}, Truth: []int{0}, Dim: 1, Data: []float32{1, 2}},
		{Graphs: []int{1}, Truth: []int{0}, Dim: 0, Data: nil},
		{Graphs: []int{1}, Truth: []int{0}, Dim: 2, Data: []float32{1}},
		{Graphs: []int{math.MaxInt32 + 1}, Truth: []int{0}, Dim: 1, Data: []float32{1}},
	} {
		id, err := s.Start(testSpec("m", "d", int64(i)), testProv)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(id, suite.Result{Embeddings: e}); err == nil || !strings.Contains(err.Error(), "embeddings") {
			t.Errorf("case %d: Finish(%+v) = %v, want an embeddings error", i, e, err)
		}
		if r := listOne(t, s, id); r.Status != StatusRunning {
			t.Errorf("case %d: a failed Finish left status %s", i, r.Status)
		}
	}
	// A damaged artifact is an error naming it.
	id, err := s.Start(testSpec("m", "d", 99), testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(id, suite.Result{Embeddings: &suite.Embeddings{Graphs: []int{1}, Truth: []int{0}, Dim: 2, Data: []float32{1, 2}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE artifacts SET shape = '[2]' WHERE run_id = ? AND name = ?`, id, ArtifactTestTruth); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings(id); err == nil || !strings.Contains(err.Error(), ArtifactTestTruth) {
		t.Errorf("damaged truth artifact: %v", err)
	}
}

// TestMigrateToArtifacts opens a schema-5 database holding a finished run:
// the migration adds the artifacts table, the old run reads as without
// embeddings, and a new run stores them.
func TestMigrateToArtifacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v5.db")
	old, err := openWith(path, migrations[:5])
	if err != nil {
		t.Fatal(err)
	}
	// A finished run as schema 5 stored it (its columns only).
	spec := testSpec("gin-topk", "Letter-high", 0)
	specJSON, _ := json.Marshal(spec)
	now := formatTime(time.Now())
	res, err := old.db.Exec(`INSERT INTO runs (hash, method, dataset, ratio_name, ratio, seed, params, protocol,
			spec, status, started, finished, seconds, split_seed)
		VALUES (?, 'gin-topk', 'Letter-high', 'low', 0.1, 0, '{}', '{}', ?, 'finished', ?, ?, 1, 0)`,
		spec.Hash(), string(specJSON), now, now)
	if err != nil {
		t.Fatal(err)
	}
	oldID, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() || v < 6 {
		t.Errorf("version after migration %d (%v), SchemaVersion %d; want SchemaVersion ≥ 6", v, err, SchemaVersion())
	}
	if _, err := s.Embeddings(oldID); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("embeddings of a schema-5 run: %v, want ErrNoEmbeddings", err)
	}
	id, err := s.Start(testSpec("gin-topk", "Letter-high", 1), testProv)
	if err != nil {
		t.Fatal(err)
	}
	e := &suite.Embeddings{Graphs: []int{4}, Truth: []int{1}, Dim: 3, Data: []float32{1, 2, 3}}
	if err := s.Finish(id, suite.Result{Embeddings: e}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Embeddings(id); err != nil || !reflect.DeepEqual(got, e) {
		t.Errorf("embeddings after migration %+v, %v; want %+v", got, err, e)
	}
}
