package runs

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

func sampleOutputs(withEmb bool, big float32) *suite.Outputs {
	o := &suite.Outputs{
		NumKnown: 2, Eval: []int{1, 3, 4}, Test: []bool{false, true, true}, Truth: []int{0, suite.Unknown, 1},
		Class: []int{0, 1, 1}, Native: []float64{0.25, 0.5, 1e-30},
		Logits:         [][]float32{{1, -2}, {0.5, 0.25}, {3, big}},
		LabelledLabels: []int{1, 0}, LabelledLogits: [][]float32{{-1, 1}, {2, 0}},
	}
	if withEmb {
		o.Embeddings = [][]float32{{1, 0, 0.5}, {0, 1, 0.5}, {0.125, 0.25, 0}}
		o.LabelledEmbeddings = [][]float32{{1, 1, 1}, {-1, 0, 2}}
	}
	return o
}

// TestOutputsRoundTrip: encoding then decoding gives the same outputs,
// with float16 storage (every value a float16), float32 (one is not),
// and without embeddings; damaged blobs are errors.
func TestOutputsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		o      *suite.Outputs
		logits string
	}{
		{"float16", sampleOutputs(true, 0.75), "float16"},
		{"float32", sampleOutputs(true, 0.1), "float32"}, // 0.1 is no float16
		{"no embeddings", sampleOutputs(false, 2), "float16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dtypeOf(tc.o.Logits, tc.o.LabelledLogits); got != tc.logits {
				t.Errorf("logits dtype %s, want %s", got, tc.logits)
			}
			data, err := EncodeOutputs(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeOutputs(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.o) {
				t.Errorf("round trip:\n got %+v\nwant %+v", back, tc.o)
			}
			if _, err := DecodeOutputs(data[:len(data)-9]); err == nil {
				t.Errorf("truncated blob decoded")
			}
			bad := append([]byte{}, data...)
			bad[len(bad)/2] ^= 0xff
			if _, err := DecodeOutputs(bad); err == nil {
				t.Errorf("damaged blob decoded")
			}
		})
	}
}

// TestStoreOutputsAndRescore: Finish stores outputs and scorer records;
// Rescore replaces the metrics of the rescored labels only and refuses
// metrics of other labels; a failed restart clears them.
func TestStoreOutputsAndRescore(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec := suite.RunSpec{Method: "m", Dataset: "d", RatioName: "low", Ratio: 0.1, Protocol: suite.DefaultProtocol()}
	id, err := s.Start(spec, Provenance{})
	if err != nil {
		t.Fatal(err)
	}
	o := sampleOutputs(true, 0.75)
	res := suite.Result{
		Metrics: map[string]float64{"accuracy": 0.5, "knn:accuracy": 0.6, "knn_k10:accuracy": 0.7, "msp:accuracy": 0.4},
		Scorers: []suite.ScorerRecord{{Label: "knn", Name: "knn", Params: map[string]float64{"k": 1}},
			{Label: "knn_k10", Name: "knn", Params: map[string]float64{"k": 10}}, {Label: "msp", Name: "msp"}},
		Outputs: o,
	}
	if err := s.Finish(id, res); err != nil {
		t.Fatal(err)
	}
	back, err := s.Outputs(id)
	if err != nil || !reflect.DeepEqual(back, o) {
		t.Fatalf("Outputs: %v, equal %v", err, reflect.DeepEqual(back, o))
	}
	recs, err := s.Scorers(id)
	if err != nil || len(recs) != 3 || recs[1].Label != "knn_k10" || recs[1].Params["k"] != 10 {
		t.Fatalf("Scorers: %+v, %v", recs, err)
	}
	// Rescoring knn leaves knn_k10 (a label with knn as a prefix) alone.
	if err := s.Rescore(id, map[string]float64{"knn:accuracy": 0.9, "knn:ood_auroc": 0.8},
		[]suite.ScorerRecord{{Label: "knn", Name: "knn", Params: map[string]float64{"k": 1}, Error: ""}}); err != nil {
		t.Fatal(err)
	}
	rs, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"accuracy": 0.5, "knn:accuracy": 0.9, "knn:ood_auroc": 0.8, "knn_k10:accuracy": 0.7, "msp:accuracy": 0.4}
	if !reflect.DeepEqual(rs[0].Metrics, want) {
		t.Errorf("after Rescore: %v, want %v", rs[0].Metrics, want)
	}
	if err := s.Rescore(id, map[string]float64{"accuracy": 1}, []suite.ScorerRecord{{Label: "knn", Name: "knn"}}); err == nil {
		t.Errorf("Rescore overwrote a native metric")
	}
	// A restarted run keeps none of it.
	if _, err := s.MarkForRerun([]int64{id}, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(spec, Provenance{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Outputs(id); !errors.Is(err, ErrNoOutputs) {
		t.Errorf("Outputs after restart: %v, want ErrNoOutputs", err)
	}
	if recs, _ := s.Scorers(id); len(recs) != 0 {
		t.Errorf("scorers after restart: %+v", recs)
	}
}
