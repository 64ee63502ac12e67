package main

import (
	"bytes"
	"strings"
	"testing"
)

// scoredDB is sage-topk (scored with knn and msp) and gin-topk (native
// only) on Letter-high low and high, seeds 0–3. knn is native + 0.05 +
// 0.01·seed (so the paired test finds it), msp native − 0.01.
func scoredDB(t *testing.T) string {
	t.Helper()
	acc := []float64{0.61, 0.63, 0.60, 0.62}
	var rs []planted
	for _, ratio := range []string{"low", "high"} {
		for s := range 4 {
			for _, m := range []string{"sage-topk", "gin-topk"} {
				a := acc[s]
				if m == "gin-topk" {
					a -= 0.1
				}
				metrics := map[string]float64{"accuracy": a, "ood_f1": 0.4 + a/10, "ood_auroc": 0.6 + a/10}
				if m == "sage-topk" {
					for _, k := range []string{"accuracy", "ood_f1", "ood_auroc"} {
						metrics["knn:"+k] = metrics[k] + 0.05 + 0.01*float64(s)
						metrics["msp:"+k] = metrics[k] - 0.01
					}
				}
				rs = append(rs, planted{method: m, dataset: "Letter-high", ratio: ratio, seed: int64(s), metrics: metrics})
			}
		}
	}
	return makeDB(t, rs)
}

func TestReportScore(t *testing.T) {
	db := scoredDB(t)
	var out bytes.Buffer
	if err := runReport([]string{"--db", db, "--score", "knn", "accuracy"}, &out); err != nil {
		t.Fatal(err)
	}
	// sage-topk's knn accuracy: mean of 0.66, 0.69, 0.67, 0.70.
	for _, want := range []string{"Classification accuracy (unknown score: knn)", "0.680±0.018", "note: an empty cell without a warning"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report accuracy --score knn lacks %q:\n%s", want, out.String())
		}
	}
	for _, args := range [][]string{
		{"--score", "knn", "f1"}, {"--score", "knn", "ablation", "--methods", "sage-topk"},
		{"--score", "msp", "metric", "ood_auroc"},
	} {
		out.Reset()
		if err := runReport(append([]string{"--db", db, "--format", "csv"}, args...), &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !strings.Contains(out.String(), ","+args[1]+":") {
			t.Errorf("%v: no %s: metric in\n%s", args, args[1], out.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--score", "energy", "accuracy"}, `--score: score "energy": no selected run stores it; scores present: native, knn, msp`},
		{[]string{"--score", "knn", "--methods", "gin-topk", "accuracy"}, `--score: score "knn": no selected run stores it; scores present: native`},
		{[]string{"--score", "Energy", "accuracy"}, `--score: score "Energy": want native or a scorer label`},
		{[]string{"--score", "knn", "scorers"}, "--score: report scorers shows every score"},
		{[]string{"--score", "knn", "metric", "msp:accuracy"}, "report metric msp:accuracy names its score already; drop --score knn"},
	} {
		err := runReport(append([]string{"--db", db}, c.args...), &out)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

func TestReportScorers(t *testing.T) {
	db := scoredDB(t)
	var out bytes.Buffer
	if err := runReport([]string{"--db", db, "--ratios", "low", "--format", "csv", "scorers"}, &out); err != nil {
		t.Fatal(err)
	}
	want := `method,dataset,ratio,metric,mean,std,n
sage-topk,Letter-high,low,ood_auroc,0.6615,0.0012909944487358356,4
sage-topk,Letter-high,low,knn:ood_auroc,0.7265,0.012974333637352333,4
sage-topk,Letter-high,low,msp:ood_auroc,0.6515,0.0012909944487358356,4
gin-topk,Letter-high,low,ood_auroc,0.6515000000000001,0.001290994448735807,4
`
	if got := out.String(); got != want {
		t.Errorf("report scorers --ratios low --format csv:\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	if err := runReport([]string{"--db", db, "--format", "md", "--metric", "accuracy", "scorers"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Unknown scores: accuracy", "| Method | Letter-high low native | Letter-high low knn | Letter-high low msp | Letter-high high native |",
		"| sage-topk | 0.615±0.013 | **0.680**±0.018 | 0.605±0.013 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report scorers --metric accuracy lacks %q:\n%s", want, out.String())
		}
	}
	// --per-dataset: one table per dataset, titled with it (the database
	// holds Letter-high only); none for a dataset without runs; only for
	// report scorers.
	out.Reset()
	if err := runReport([]string{"--db", db, "--format", "md", "--per-dataset", "scorers"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "### Unknown scores: ood\\_auroc on Letter-high") != 1 || strings.Count(got, "### ") != 1 {
		t.Errorf("report scorers --per-dataset: want one table, of Letter-high:\n%s", got)
	}
	out.Reset()
	if err := runReport([]string{"--db", db, "--datasets", "COIL-DEL", "--per-dataset", "scorers"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(no results)") {
		t.Errorf("report scorers --per-dataset of a dataset without runs:\n%s", out.String())
	}
	if err := runReport([]string{"--db", db, "--per-dataset", "accuracy"}, &out); err == nil || !strings.Contains(err.Error(), "--per-dataset: only with report scorers") {
		t.Errorf("--per-dataset with accuracy: error %v", err)
	}
	out.Reset()
	if err := runReport([]string{"--db", db, "results"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "## Unknown scores\n") {
		t.Errorf("report results of scored runs has no Unknown scores section:\n%s", out.String())
	}
}

func TestCompareScores(t *testing.T) {
	db := scoredDB(t)
	var out bytes.Buffer
	if err := runCompare([]string{"--db", db, "--metrics", "accuracy", "method=sage-topk,score=native", "method=sage-topk,score=knn"}, &out); err != nil {
		t.Fatal(err)
	}
	// Differences 0.05, 0.06, 0.07, 0.08 on the same runs: paired.
	for _, want := range []string{"accuracy: old = method=sage-topk,score=native, new = method=sage-topk,score=knn",
		"0.615±0.013", "0.680±0.018", "+0.065 (+10.6%)", "n=4+4 (paired)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "utest") {
		t.Errorf("compare of two scores of the same runs ran a U test:\n%s", out.String())
	}
	err := runCompare([]string{"--db", db, "method=gin-topk,score=native", "method=gin-topk,score=knn"}, &out)
	if want := `side "method=gin-topk,score=knn": score "knn": no selected run stores it; scores present: native`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestDuChoiceCommands: --score du_choice (report, check) and score=du_choice
// (compare) read each run under the score its du_accuracy picks: sage-topk's
// D^u prefers knn on seeds 0–1 and msp on seeds 2–3, gin-topk has its
// native score only.
func TestDuChoiceCommands(t *testing.T) {
	var rs []planted
	for s := range 4 {
		for _, m := range []string{"sage-topk", "gin-topk"} {
			a := 0.6 + 0.01*float64(s)
			metrics := map[string]float64{"accuracy": a, "du_accuracy": a - 0.1}
			if m == "sage-topk" {
				knnDu, mspDu := a, a-0.2
				if s >= 2 {
					knnDu, mspDu = a-0.2, a
				}
				metrics["knn:accuracy"], metrics["knn:du_accuracy"] = a+0.1, knnDu
				metrics["msp:accuracy"], metrics["msp:du_accuracy"] = a-0.1, mspDu
			}
			rs = append(rs, planted{method: m, dataset: "Letter-high", ratio: "low", seed: int64(s), metrics: metrics})
		}
	}
	db := makeDB(t, rs)
	var out bytes.Buffer
	if err := runReport([]string{"--db", db, "--score", "du_choice", "--format", "md", "accuracy"}, &out); err != nil {
		t.Fatal(err)
	}
	// sage-topk: knn on seeds 0, 1 (0.70, 0.71), msp on 2, 3 (0.52, 0.53).
	for _, want := range []string{"| sage-topk | **0.615**±0.104 |", "du\\_choice: sage-topk Letter-high low: knn ×2, msp ×2",
		"du\\_choice: gin-topk Letter-high low: native ×4", "| gin-topk | **0.615**±0.013 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report accuracy --score du_choice lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runCompare([]string{"--db", db, "--metrics", "accuracy", "--format", "csv", "method=gin-topk,score=du_choice", "method=sage-topk,score=du_choice"}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "gin-topk → sage-topk,Letter-high,low,0.615±0.013,0.615±0.104"; !strings.Contains(out.String(), want) {
		t.Errorf("compare du_choice lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	baseline := t.TempDir() + "/baseline.json"
	if err := runCheck([]string{"--db", db, "--score", "du_choice", "--metrics", "accuracy", "--baseline", baseline, "--write-baseline"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "du_choice:accuracy") {
		t.Errorf("check --write-baseline --score du_choice:\n%s", out.String())
	}
}
