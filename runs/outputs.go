package runs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gomlx/compute/dtypes/float16"

	"github.com/ugbench/ugbench/suite"
)

// outputsFormat names the encoding of table outputs (schema version 8):
// gzip of one JSON header line, outputsHeader, then little-endian arrays in
// this order — eval graphs int32[n], test flags uint8[n], truth int32[n]
// (known class or −1), classes int32[n], native scores float64[n], D^l
// labels int32[m], then, when present, logits of the evaluation graphs
// [n·C] and of D^l [m·C], embeddings of the evaluation graphs [n·d] and of
// D^l [m·d], each in the header's dtype ("float16": IEEE binary16 bits as
// uint16, or "float32"). The suite rounds logits and embeddings to
// float16 before scoring (suite.Outputs.RoundFloat16), so float16 storage
// is exact; a matrix that does not fit float16 is stored as float32.
//
// Size per run (measured; docs/protocol.md §4.1): the evaluation graphs
// dominate, 2·n·(C+d) bytes before gzip for a GNN row (d = 256).
const outputsFormat = "ugbench-outputs-1"

// outputsHeader is the JSON header of outputsFormat.
type outputsHeader struct {
	NumKnown   int    `json:"num_known"`
	N          int    `json:"n"`
	M          int    `json:"m"`
	Logits     string `json:"logits"`     // "", "float16" or "float32"
	Embeddings string `json:"embeddings"` // likewise
	Dim        int    `json:"dim"`        // embedding width, 0 without
}

// ErrNoOutputs is returned (wrapped) by Outputs for a run stored without
// them: before schema version 8, with --keep-outputs off, one whose method
// hands over neither logits nor embeddings, or one not finished.
var ErrNoOutputs = errors.New("no stored outputs")

// clearArtifacts deletes everything a run produced besides metrics and
// curves: artifacts, scorers and outputs.
func clearArtifacts(tx *sql.Tx, id int64) error {
	for _, t := range []string{"artifacts", "scorers", "outputs"} {
		if _, err := tx.Exec(`DELETE FROM `+t+` WHERE run_id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// insertScorers stores the scorer records of run id inside tx, replacing
// any of the same labels.
func insertScorers(tx *sql.Tx, id int64, recs []suite.ScorerRecord) error {
	for _, r := range recs {
		params := r.Params
		if params == nil {
			params = map[string]float64{}
		}
		pj, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("scorer %s: params: %w", r.Label, err)
		}
		if _, err := tx.Exec(`INSERT OR REPLACE INTO scorers (run_id, label, name, params, error) VALUES (?, ?, ?, ?, ?)`,
			id, r.Label, r.Name, string(pj), r.Error); err != nil {
			return fmt.Errorf("scorer %s: %w", r.Label, err)
		}
	}
	return nil
}

// insertOutputs stores o for run id inside tx; nil stores nothing.
func insertOutputs(tx *sql.Tx, id int64, o *suite.Outputs) error {
	if o == nil {
		return nil
	}
	data, err := EncodeOutputs(o)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`INSERT OR REPLACE INTO outputs (run_id, format, data) VALUES (?, ?, ?)`, id, outputsFormat, data)
	return err
}

// EncodeOutputs is the stored form of o (outputsFormat, gzip-compressed).
func EncodeOutputs(o *suite.Outputs) ([]byte, error) {
	n, m := len(o.Eval), len(o.LabelledLabels)
	h := outputsHeader{NumKnown: o.NumKnown, N: n, M: m, Logits: dtypeOf(o.Logits, o.LabelledLogits), Embeddings: dtypeOf(o.Embeddings, o.LabelledEmbeddings)}
	if o.Embeddings != nil && n+m > 0 {
		h.Dim = len(slices.Concat(o.Embeddings, o.LabelledEmbeddings)[0])
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	w := bufio.NewWriter(zw)
	hj, _ := json.Marshal(h)
	w.Write(append(hj, '\n'))
	test := make([]uint8, n)
	for i, t := range o.Test {
		if t {
			test[i] = 1
		}
	}
	for _, v := range []any{int32s(o.Eval), test, int32s(o.Truth), int32s(o.Class), o.Native, int32s(o.LabelledLabels)} {
		if err := binary.Write(w, binary.LittleEndian, v); err != nil {
			return nil, fmt.Errorf("outputs: %w", err)
		}
	}
	for _, mat := range []struct {
		dtype string
		rows  [][]float32
	}{{h.Logits, o.Logits}, {h.Logits, o.LabelledLogits}, {h.Embeddings, o.Embeddings}, {h.Embeddings, o.LabelledEmbeddings}} {
		if err := writeMatrix(w, mat.dtype, mat.rows); err != nil {
			return nil, fmt.Errorf("outputs: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dtypeOf is "" for absent matrices, "float16" when every value is a
// float16 value, else "float32".
func dtypeOf(a, b [][]float32) string {
	if a == nil && b == nil {
		return ""
	}
	for _, rows := range [][][]float32{a, b} {
		for _, r := range rows {
			for _, v := range r {
				if float16.FromFloat32(v).Float32() != v {
					return "float32"
				}
			}
		}
	}
	return "float16"
}

func writeMatrix(w io.Writer, dtype string, rows [][]float32) error {
	for _, r := range rows {
		var err error
		switch dtype {
		case "float16":
			bits := make([]uint16, len(r))
			for i, v := range r {
				bits[i] = uint16(float16.FromFloat32(v))
			}
			err = binary.Write(w, binary.LittleEndian, bits)
		default:
			err = binary.Write(w, binary.LittleEndian, r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func int32s(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func ints(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// DecodeOutputs reads the stored form of EncodeOutputs; a damaged or
// truncated blob is an error.
func DecodeOutputs(data []byte) (*suite.Outputs, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("outputs: corrupt: %w", err)
	}
	r := bufio.NewReader(zr)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("outputs: header: %w", err)
	}
	var h outputsHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("outputs: header: %w", err)
	}
	if h.N < 0 || h.M < 0 || h.NumKnown < 1 || h.Dim < 0 {
		return nil, fmt.Errorf("outputs: header %s: bad sizes", line)
	}
	n, m := h.N, h.M
	eval, truth, class, labels := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, m)
	test, native := make([]uint8, n), make([]float64, n)
	for _, v := range []any{eval, test, truth, class, native, labels} {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return nil, fmt.Errorf("outputs: truncated: %w", err)
		}
	}
	o := &suite.Outputs{NumKnown: h.NumKnown, Eval: ints(eval), Test: make([]bool, n), Truth: ints(truth), Class: ints(class), Native: native, LabelledLabels: ints(labels)}
	for i, t := range test {
		o.Test[i] = t == 1
	}
	for _, mat := range []struct {
		dtype   string
		rows, w int
		dst     *[][]float32
	}{{h.Logits, n, h.NumKnown, &o.Logits}, {h.Logits, m, h.NumKnown, &o.LabelledLogits}, {h.Embeddings, n, h.Dim, &o.Embeddings}, {h.Embeddings, m, h.Dim, &o.LabelledEmbeddings}} {
		if mat.dtype == "" {
			continue
		}
		if *mat.dst, err = readMatrix(r, mat.dtype, mat.rows, mat.w); err != nil {
			return nil, fmt.Errorf("outputs: truncated: %w", err)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("outputs: trailing data after the arrays (err %v)", err)
	}
	return o, nil
}

func readMatrix(r io.Reader, dtype string, rows, width int) ([][]float32, error) {
	out := make([][]float32, rows)
	for i := range out {
		out[i] = make([]float32, width)
		switch dtype {
		case "float16":
			bits := make([]uint16, width)
			if err := binary.Read(r, binary.LittleEndian, bits); err != nil {
				return nil, err
			}
			for j, b := range bits {
				out[i][j] = float16.Float16(b).Float32()
			}
		case "float32":
			if err := binary.Read(r, binary.LittleEndian, out[i]); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("dtype %q", dtype)
		}
	}
	return out, nil
}

// Outputs returns the outputs stored with run id (suite.Outputs), what
// bench rescore feeds the scorers. A run without them wraps ErrNoOutputs,
// an unknown id ErrNotFound; a damaged blob is an error naming the run.
func (s *Store) Outputs(id int64) (*suite.Outputs, error) {
	var format string
	var data []byte
	err := s.db.QueryRow(`SELECT format, data FROM outputs WHERE run_id = ?`, id).Scan(&format, &data)
	if errors.Is(err, sql.ErrNoRows) {
		var one int
		if err := s.db.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("runs: %s: outputs of run %d: %w", s.path, id, ErrNotFound)
		}
		return nil, fmt.Errorf("runs: %s: run %d: %w", s.path, id, ErrNoOutputs)
	}
	if err != nil {
		return nil, fmt.Errorf("runs: %s: outputs of run %d: %w", s.path, id, err)
	}
	if format != outputsFormat {
		return nil, fmt.Errorf("runs: %s: run %d: outputs in format %q, this build reads %q", s.path, id, format, outputsFormat)
	}
	o, err := DecodeOutputs(data)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: run %d: %w", s.path, id, err)
	}
	return o, nil
}

// Scorers returns the scorer records of run id, sorted by label.
func (s *Store) Scorers(id int64) ([]suite.ScorerRecord, error) {
	rows, err := s.db.Query(`SELECT label, name, params, error FROM scorers WHERE run_id = ? ORDER BY label`, id)
	if err != nil {
		return nil, fmt.Errorf("runs: %s: scorers of run %d: %w", s.path, id, err)
	}
	defer rows.Close()
	var out []suite.ScorerRecord
	for rows.Next() {
		var r suite.ScorerRecord
		var pj string
		if err := rows.Scan(&r.Label, &r.Name, &pj, &r.Error); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(pj), &r.Params); err != nil {
			return nil, fmt.Errorf("runs: %s: run %d: scorer %s: params %q: %w", s.path, id, r.Label, pj, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// finishedTx runs f in one transaction if run id is finished, and returns
// an error naming the status otherwise (a rescore never touches a run
// that is not).
func (s *Store) finishedTx(id int64, f func(tx *sql.Tx) error) error {
	return s.tx(func(tx *sql.Tx) error {
		status, err := statusOf(tx, id)
		if err != nil {
			return err
		}
		if status != StatusFinished {
			return fmt.Errorf("run %d is %s, not finished", id, status)
		}
		return f(tx)
	})
}

// Rescore replaces, for finished run id, the metrics and records of the
// scorers in recs (every metric "<label>:…" of their labels) with metrics
// and recs, in one transaction: what bench rescore computed from the
// stored outputs. Metrics of other labels and the native metrics stay.
// Every metric name must belong to one of recs' labels.
func (s *Store) Rescore(id int64, metrics map[string]float64, recs []suite.ScorerRecord) error {
	labels := map[string]bool{}
	for _, r := range recs {
		if r.Label == "" || r.Label == suite.NativeScore {
			return fmt.Errorf("runs: rescore run %d: scorer label %q", id, r.Label)
		}
		labels[r.Label] = true
	}
	for name := range metrics {
		if l, _ := suite.SplitScorerMetric(name); !labels[l] {
			return fmt.Errorf("runs: rescore run %d: metric %s belongs to no rescored scorer", id, name)
		}
	}
	err := s.finishedTx(id, func(tx *sql.Tx) error {
		for l := range labels {
			// substr, not LIKE: '_' is a LIKE wildcard.
			if _, err := tx.Exec(`DELETE FROM metrics WHERE run_id = ? AND substr(name, 1, ?) = ?`, id, len(l)+len(suite.ScorerSep), l+suite.ScorerSep); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM scorers WHERE run_id = ? AND label = ?`, id, l); err != nil {
				return err
			}
		}
		for name, v := range metrics {
			if _, err := tx.Exec(`INSERT INTO metrics (run_id, name, value) VALUES (?, ?, ?)`, id, name, floatArg(v)); err != nil {
				return fmt.Errorf("metric %s: %w", name, err)
			}
		}
		return insertScorers(tx, id, recs)
	})
	if err != nil {
		return fmt.Errorf("runs: %s: rescore: %w", s.path, err)
	}
	return nil
}

// AddNativeMetrics inserts or replaces unprefixed metrics of finished run
// id (bench rescore's recomputation of the native score, which adds the
// metrics a run stored before they existed). A name with a scorer label
// is refused.
func (s *Store) AddNativeMetrics(id int64, metrics map[string]float64) error {
	for name := range metrics {
		if l, _ := suite.SplitScorerMetric(name); l != suite.NativeScore {
			return fmt.Errorf("runs: native metrics of run %d: %s is a scorer's", id, name)
		}
	}
	err := s.finishedTx(id, func(tx *sql.Tx) error {
		for name, v := range metrics {
			if _, err := tx.Exec(`INSERT OR REPLACE INTO metrics (run_id, name, value) VALUES (?, ?, ?)`, id, name, floatArg(v)); err != nil {
				return fmt.Errorf("metric %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("runs: %s: native metrics: %w", s.path, err)
	}
	return nil
}
