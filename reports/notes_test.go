package reports

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestColumnConfigNotes checks the notes on configurations that differ
// between a row's columns, on hand-made grids of two seeds per cell.
func TestColumnConfigNotes(t *testing.T) {
	// grid makes seeds 0 and 1 of method on every (dataset, ratio), with
	// params(dataset, ratio, seed) as Params.
	grid := func(method string, datasets []string, params func(ds, ratio string, seed int64) suite.Params) []runs.Run {
		var rs []runs.Run
		for _, ds := range datasets {
			for _, ratio := range []string{"low", "high"} {
				for seed := int64(0); seed < 2; seed++ {
					r := mk(method, ds, ratio, seed, 0.5)
					r.Spec.Params = params(ds, ratio, seed)
					rs = append(rs, r)
				}
			}
		}
		return rs
	}
	budget := func(ds, _ string, _ int64) suite.Params {
		if ds == "COLORS-3" {
			return suite.Params{"epochs": 20, "warmup_epochs": 10, "hidden": 128}
		}
		return suite.Params{"epochs": 100, "warmup_epochs": 50, "hidden": 128}
	}
	same := func(string, string, int64) suite.Params { return suite.Params{"epochs": 100} }
	three := []string{"COIL-DEL", "Letter-high", "COLORS-3"}

	tests := []struct {
		name string
		rs   []runs.Run
		opts Options
		want []string
	}{
		{
			name: "one config everywhere: no note",
			rs:   append(grid("ugnn", three, same), grid("ugnn-wo-s", three, same)...),
		},
		{
			name: "smaller budget on one dataset; rows with the same note share it",
			rs:   append(grid("ugnn", three, budget), grid("ugnn-wo-s", three, budget)...),
			want: []string{"ugnn, ugnn-wo-s: param.epochs=100 param.warmup_epochs=50 on COIL-DEL, Letter-high; param.epochs=20 param.warmup_epochs=10 on COLORS-3"},
		},
		{
			name: "rows with different notes get one each, under their display labels",
			rs:   append(grid("gin-topk", three, budget), grid("ugnn", three, same)...),
			opts: Options{Names: PaperNames()},
			want: []string{"GIN: param.epochs=100 param.warmup_epochs=50 on COIL-DEL, Letter-high; param.epochs=20 param.warmup_epochs=10 on COLORS-3"},
		},
		{
			name: "one ratio differs: columns named with their ratio",
			rs: grid("ugnn", []string{"COIL-DEL", "MNIST"}, func(ds, ratio string, _ int64) suite.Params {
				if ds == "MNIST" && ratio == "high" {
					return suite.Params{"epochs": 30}
				}
				return suite.Params{"epochs": 100}
			}),
			want: []string{"ugnn: param.epochs=100 on COIL-DEL, MNIST low; param.epochs=30 on MNIST high"},
		},
		{
			name: "a param missing in some columns is unset there",
			rs: grid("ugnn", []string{"COIL-DEL", "MNIST"}, func(ds, _ string, _ int64) suite.Params {
				if ds == "MNIST" {
					return suite.Params{}
				}
				return suite.Params{"epochs": 100}
			}),
			want: []string{"ugnn: param.epochs=100 on COIL-DEL; param.epochs=unset on MNIST"},
		},
		{
			// A param differing inside a cell splits the row (RowLabels);
			// the rows' columns then agree.
			name: "params differing inside a cell split the row instead",
			rs: grid("ugnn", []string{"COIL-DEL", "MNIST"}, func(_, _ string, seed int64) suite.Params {
				return suite.Params{"tau": 0.1 * float64(seed+1)}
			}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl := AccuracyTable(tc.rs, tc.opts)
			if !reflect.DeepEqual(tbl.Notes, tc.want) {
				t.Errorf("notes\n%q\nwant\n%q", tbl.Notes, tc.want)
			}
		})
	}

	// A protocol field differing inside one cell is that cell's warning, not
	// a note; the param differing between columns still is.
	rs := grid("ugnn", three, budget)
	rs[0].Spec.Protocol.Alpha = 2 // COIL-DEL low seed 0
	tbl := AccuracyTable(rs, Options{})
	wantNote := []string{"ugnn: param.epochs=100 param.warmup_epochs=50 on COIL-DEL, Letter-high; param.epochs=20 param.warmup_epochs=10 on COLORS-3"}
	if !reflect.DeepEqual(tbl.Notes, wantNote) {
		t.Errorf("notes %q, want %q", tbl.Notes, wantNote)
	}
	if ws := warningStrings(tbl.Warnings); len(ws) != 1 || !strings.Contains(ws[0], "differing in alpha") {
		t.Errorf("warnings %q, want the mixed-config warning on alpha", ws)
	}
}

// TestNotesPlacement checks that every format but CSV prints the notes
// below the table and before the warnings.
func TestNotesPlacement(t *testing.T) {
	rs := fixtureRuns()
	for i := range rs {
		if rs[i].Spec.Dataset == "MNIST" {
			rs[i].Spec.Params = suite.Params{"epochs": 20}
		}
	}
	tbl := AccuracyTable(rs, Options{})
	if len(tbl.Notes) != 1 || len(tbl.Warnings) == 0 {
		t.Fatalf("notes %q, warnings %q: want one note and some warnings", tbl.Notes, warningStrings(tbl.Warnings))
	}
	for _, tc := range []struct{ format, note, warn string }{
		{"text", "\nnote: ", "\nwarning: "},
		{"md", "\nnote: ", "\nwarning: "},
		{"latex", "\n% note: ", "\n% warning: "},
	} {
		s := string(render(t, tbl, tc.format))
		n, w := strings.Index(s, tc.note+tbl.Notes[0]+"\n"), strings.Index(s, tc.warn)
		if n < 0 || w < n {
			t.Errorf("%s: note at %d, first warning at %d; want the note, before the warnings:\n%s", tc.format, n, w, s)
		}
	}
	if s := string(render(t, tbl, "csv")); strings.Contains(s, "note") {
		t.Errorf("csv has notes:\n%s", s)
	}
}
