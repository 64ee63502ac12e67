package runs

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ugbench/ugbench/suite"
)

// Artifacts (table artifacts, schema version 6) are arrays a run produced
// that are neither metrics nor curves. Each row is one array: its run, a
// name, dtype "float32" or "int32", its shape as a JSON array and its
// values row-major as a little-endian blob. A finished run whose method
// hands over embeddings (suite.Predictions.Embeddings) has the three
// arrays of suite.Embeddings, its test set only:
//
//   - test_embeddings: float32 [n, d], the embeddings;
//   - test_graphs: int32 [n], the graphs' indices into the dataset;
//   - test_truth: int32 [n], known class index or −1 (unknown).
//
// Size: 4·n·(d+2) bytes a run, e.g. Letter-high's 450 test graphs at the
// GNN rows' d = 2·hidden = 256: 464 KB (measured: 460,800 + 2·1,800
// bytes); COIL-DEL's about 780 at 256: about 805 KB.
// Artifacts are restarted, failed and finished with their run (Start,
// Fail and Finish clear them) and Merge carries them like curves.
const (
	ArtifactTestEmbeddings = "test_embeddings"
	ArtifactTestGraphs     = "test_graphs"
	ArtifactTestTruth      = "test_truth"
)

// ErrNoEmbeddings is returned (wrapped) by Embeddings for a run without
// stored embeddings: one stored before schema version 6, one whose method
// has none (e.g. the kernel baselines), or one not finished.
var ErrNoEmbeddings = errors.New("no stored embeddings")

// insertEmbeddings stores e's three arrays for run id inside tx; nil e
// stores nothing.
func insertEmbeddings(tx *sql.Tx, id int64, e *suite.Embeddings) error {
	if e == nil {
		return nil
	}
	n := len(e.Graphs)
	if len(e.Truth) != n || e.Dim < 1 || len(e.Data) != n*e.Dim {
		return fmt.Errorf("embeddings: %d graphs, %d truths, width %d, %d values: want n graphs and truths, width ≥ 1 and n·width values", n, len(e.Truth), e.Dim, len(e.Data))
	}
	graphs, err := int32Blob(e.Graphs)
	if err != nil {
		return fmt.Errorf("embeddings: graphs: %w", err)
	}
	truth, err := int32Blob(e.Truth)
	if err != nil {
		return fmt.Errorf("embeddings: truth: %w", err)
	}
	data := make([]byte, 4*len(e.Data))
	for i, v := range e.Data {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	for _, a := range []struct {
		name, dtype string
		shape       []int
		data        []byte
	}{
		{ArtifactTestEmbeddings, "float32", []int{n, e.Dim}, data},
		{ArtifactTestGraphs, "int32", []int{n}, graphs},
		{ArtifactTestTruth, "int32", []int{n}, truth},
	} {
		shape, _ := json.Marshal(a.shape)
		if _, err := tx.Exec(`INSERT INTO artifacts (run_id, name, dtype, shape, data) VALUES (?, ?, ?, ?, ?)`,
			id, a.name, a.dtype, string(shape), a.data); err != nil {
			return fmt.Errorf("artifact %s: %w", a.name, err)
		}
	}
	return nil
}

// int32Blob encodes vals as little-endian int32s.
func int32Blob(vals []int) ([]byte, error) {
	out := make([]byte, 4*len(vals))
	for i, v := range vals {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("value %d at %d does not fit int32", v, i)
		}
		binary.LittleEndian.PutUint32(out[4*i:], uint32(int32(v)))
	}
	return out, nil
}

// artifact is one stored array.
type artifact struct {
	dtype string
	shape []int
	data  []byte
}

// Embeddings returns the test-set embeddings stored with run id. A run
// without them wraps ErrNoEmbeddings; an unknown id wraps ErrNotFound; a
// damaged artifact (shapes or sizes that disagree) is an error naming the
// run and the artifact.
func (s *Store) Embeddings(id int64) (*suite.Embeddings, error) {
	rows, err := s.db.Query(`SELECT name, dtype, shape, data FROM artifacts WHERE run_id = ? AND name IN (?, ?, ?)`,
		id, ArtifactTestEmbeddings, ArtifactTestGraphs, ArtifactTestTruth)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: embeddings of run %d: %w", s.path, id, err)
	}
	arts := map[string]artifact{}
	for rows.Next() {
		var name, shape string
		var a artifact
		if err := rows.Scan(&name, &a.dtype, &shape, &a.data); err != nil {
			rows.Close()
			return nil, fmt.Errorf("runs: %s: embeddings of run %d: %w", s.path, id, err)
		}
		if err := json.Unmarshal([]byte(shape), &a.shape); err != nil {
			rows.Close()
			return nil, fmt.Errorf("runs: %s: run %d: artifact %s: shape %q: %w", s.path, id, name, shape, err)
		}
		arts[name] = a
	}
	err = rows.Err()
	rows.Close() // before the next query: the store has one connection
	if err != nil {
		return nil, fmt.Errorf("runs: %s: embeddings of run %d: %w", s.path, id, err)
	}
	if len(arts) == 0 {
		var one int
		err := s.db.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("runs: %s: embeddings of run %d: %w", s.path, id, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("runs: %s: embeddings of run %d: %w", s.path, id, err)
		}
		return nil, fmt.Errorf("runs: %s: run %d: %w", s.path, id, ErrNoEmbeddings)
	}
	e, err := decodeEmbeddings(arts)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: run %d: %w", s.path, id, err)
	}
	return e, nil
}

// decodeEmbeddings checks and decodes the three arrays of Embeddings.
func decodeEmbeddings(arts map[string]artifact) (*suite.Embeddings, error) {
	for _, name := range []string{ArtifactTestEmbeddings, ArtifactTestGraphs, ArtifactTestTruth} {
		if _, ok := arts[name]; !ok {
			return nil, fmt.Errorf("artifact %s is missing", name)
		}
	}
	emb, graphs, truth := arts[ArtifactTestEmbeddings], arts[ArtifactTestGraphs], arts[ArtifactTestTruth]
	if emb.dtype != "float32" || len(emb.shape) != 2 || emb.shape[0] < 0 || emb.shape[1] < 1 {
		return nil, fmt.Errorf("artifact %s: dtype %s shape %v: want float32 [n, d ≥ 1]", ArtifactTestEmbeddings, emb.dtype, emb.shape)
	}
	n, d := emb.shape[0], emb.shape[1]
	if len(emb.data) != 4*n*d {
		return nil, fmt.Errorf("artifact %s: %d bytes for shape %v (want %d)", ArtifactTestEmbeddings, len(emb.data), emb.shape, 4*n*d)
	}
	out := &suite.Embeddings{Dim: d, Data: make([]float32, n*d)}
	for i := range out.Data {
		out.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(emb.data[4*i:]))
	}
	for _, c := range []struct {
		name string
		a    artifact
		dst  *[]int
	}{{ArtifactTestGraphs, graphs, &out.Graphs}, {ArtifactTestTruth, truth, &out.Truth}} {
		if c.a.dtype != "int32" || !slices.Equal(c.a.shape, []int{n}) || len(c.a.data) != 4*n {
			return nil, fmt.Errorf("artifact %s: dtype %s shape %v, %d bytes: want int32 [%d]", c.name, c.a.dtype, c.a.shape, len(c.a.data), n)
		}
		vals := make([]int, n)
		for i := range vals {
			vals[i] = int(int32(binary.LittleEndian.Uint32(c.a.data[4*i:])))
		}
		*c.dst = vals
	}
	return out, nil
}
