package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// TestParamValueByNumber: a hyper-parameter value on the command line
// selects the runs stored with an equal number, however it is written:
// bench report --param tau=0.10 and bench compare tau=0.10 both match the
// runs stored with tau = 0.1 (suite.SameValue), and bench runs --param too.
func TestParamValueByNumber(t *testing.T) {
	var rs []planted
	for seed := int64(0); seed < 4; seed++ {
		for _, c := range []struct{ tau, acc float64 }{{0.1, 0.41}, {0.2, 0.57}} {
			rs = append(rs, planted{method: "ugnn", dataset: "Letter-high", ratio: "low", seed: seed,
				params:  suite.Params{"tau": c.tau, "steps": 500},
				metrics: map[string]float64{"accuracy": c.acc + 0.01*float64(seed)}})
		}
	}
	db := makeDB(t, rs)

	for _, v := range []string{"0.1", "0.10", "1e-1"} {
		var out bytes.Buffer
		if err := runReport([]string{"accuracy", "--db", db, "--param", "tau=" + v, "--format", "csv"}, &out); err != nil {
			t.Fatalf("report --param tau=%s: %v", v, err)
		}
		if !strings.Contains(out.String(), "0.425") || strings.Contains(out.String(), "0.585") {
			t.Errorf("report --param tau=%s: want the tau = 0.1 runs only (mean 0.425):\n%s", v, out.String())
		}
	}

	var out bytes.Buffer
	if err := runCompare([]string{"--db", db, "--metrics", "accuracy", "--format", "csv", "tau=0.10", "tau=0.20"}, &out); err != nil {
		t.Fatalf("compare tau=0.10 tau=0.20: %v", err)
	}
	for _, want := range []string{"0.425", "0.585"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare tau=0.10 tau=0.20 lacks %s:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := runRuns([]string{"--db", db, "--param", "tau=0.10"}, &out); err != nil {
		t.Fatalf("runs --param tau=0.10: %v", err)
	}
	if n := strings.Count(out.String(), "ugnn"); n != 4 {
		t.Errorf("runs --param tau=0.10 lists %d ugnn runs, want 4:\n%s", n, out.String())
	}
}

// TestParamDeclarations: every registered method declares its
// hyper-parameters (suite.ParamSetter), each with a doc; its Defaults are
// the declaration's and valid under it; a legacy value is valid too.
func TestParamDeclarations(t *testing.T) {
	for _, name := range suite.Names() {
		m, err := suite.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := m.(suite.ParamSetter)
		if !ok {
			t.Errorf("%s does not declare its parameters (suite.ParamSetter)", name)
			continue
		}
		set := d.ParamSet()
		if !reflect.DeepEqual(m.Defaults(), set.Defaults()) {
			t.Errorf("%s: Defaults %v, declared %v", name, m.Defaults().Summary(), set.Defaults().Summary())
		}
		if err := set.Check(m.Defaults()); err != nil {
			t.Errorf("%s: defaults invalid: %v", name, err)
		}
		if err := set.Check(set.Legacy()); err != nil {
			t.Errorf("%s: legacy values invalid: %v", name, err)
		}
		for _, sp := range set.Specs() {
			if sp.Doc == "" {
				t.Errorf("%s.%s has no doc", name, sp.Name)
			}
		}
	}
}
