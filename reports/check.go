package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
)

// Exit codes of `bench check` (CheckResult.Code).
const (
	// CheckPass: every baseline cell was judged and none regressed.
	CheckPass = 0
	// CheckRegression: at least one cell regressed (CheckResult.Regressions).
	CheckRegression = 1
	// CheckError: bad input: flags, database, baseline file.
	CheckError = 2
	// CheckCannotJudge: no regression, but some baseline cell could not be
	// judged: too few seeds on a side, or no current value.
	CheckCannotJudge = 3
)

// BaselineFormat is the "format" field of a baseline file.
const BaselineFormat = "ugbench-baseline"

// BaselineVersion is the schema version of baseline files this package
// writes and reads.
const BaselineVersion = 1

// Baseline is the committed reference of `bench check`: per cell and
// metric, the expected mean, std and the per-seed values it came from,
// with the thresholds a regression must pass. Its JSON form is the file
// `bench check --write-baseline` writes (see testdata/baseline.json.golden).
type Baseline struct {
	// Format is BaselineFormat.
	Format string `json:"format"`
	// Version is BaselineVersion.
	Version int `json:"version"`
	// Alpha is the significance level (DefaultAlpha when 0).
	Alpha float64 `json:"alpha"`
	// Test is the test (TestAuto, TestU, TestPaired; "" = TestAuto).
	Test string `json:"test"`
	// Thresholds map each metric to the change a regression must reach,
	// in ParseThreshold's form: "-0.02" (an absolute drop) or "x1.2" (a
	// factor of the old mean).
	Thresholds map[string]string `json:"thresholds"`
	// GitCommit is the commit of the runs the baseline was written from
	// (the latest run's; "" when unknown).
	GitCommit string `json:"git_commit"`
	// Kernels are what computed the runs (ComputedWith: backend and CPU
	// kernels, e.g. "go (avx2)"); absent when no run recorded its kernels.
	// Check warns when the current runs were computed by other kernels.
	Kernels []string `json:"kernels,omitempty"`
	// Cells are the expected cells, in table order.
	Cells []BaselineCell `json:"cells"`
}

// BaselineCell is one metric of one cell in a Baseline.
type BaselineCell struct {
	Method  string  `json:"method"`
	Dataset string  `json:"dataset"`
	Ratio   string  `json:"ratio"`
	Metric  string  `json:"metric"`
	Mean    float64 `json:"mean"`
	Std     float64 `json:"std"`
	N       int     `json:"n"`
	// Seeds are the repetitions, index-aligned with Values.
	Seeds  []BaselineSeed `json:"seeds"`
	Values []float64      `json:"values"`
}

// BaselineSeed is a seed pair (SeedPair) in a baseline file.
type BaselineSeed struct {
	Split int64 `json:"split"`
	Seed  int64 `json:"seed"`
}

// Threshold is the change a regression must reach (asv's factor): an
// absolute change Delta (e.g. −0.02: the new mean at least 0.02 below the
// old) or, when Factor is not 0, a factor of the old mean (e.g. 1.2: the
// new mean at least 1.2 × the old).
type Threshold struct {
	Delta, Factor float64
}

// ParseThreshold parses "-0.02" (absolute change; a negative one is a
// drop, a positive one a rise) or "x1.2" / "×1.2" (a factor of the old
// mean; > 1 a rise, < 1 a drop). Zero is refused: every noise would pass.
func ParseThreshold(s string) (Threshold, error) {
	t := strings.TrimSpace(s)
	factor := false
	for _, p := range []string{"x", "×"} {
		if strings.HasPrefix(t, p) {
			t, factor = strings.TrimPrefix(t, p), true
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Threshold{}, fmt.Errorf("threshold %q: want an absolute change like -0.02 or a factor like x1.2", s)
	}
	switch {
	case factor && (v <= 0 || v == 1):
		return Threshold{}, fmt.Errorf("threshold %q: a factor must be > 0 and not 1", s)
	case factor:
		return Threshold{Factor: v}, nil
	case v == 0:
		return Threshold{}, fmt.Errorf("threshold %q: must not be 0", s)
	}
	return Threshold{Delta: v}, nil
}

// String is the form ParseThreshold reads.
func (t Threshold) String() string {
	if t.Factor != 0 {
		return "x" + strconv.FormatFloat(t.Factor, 'g', -1, 64)
	}
	return strconv.FormatFloat(t.Delta, 'g', -1, 64)
}

// DefaultThreshold is a metric's threshold when none is given: ×1.2 for
// durations (LowerIsBetter), a drop of 0.02 for scores.
func DefaultThreshold(metric string) Threshold {
	if table.LowerIsBetter(metric) {
		return Threshold{Factor: 1.2}
	}
	return Threshold{Delta: -0.02}
}

// Reached reports whether the change from old to new reaches t.
func (t Threshold) Reached(old, new float64) bool {
	switch {
	case t.Factor > 1:
		return new >= t.Factor*old
	case t.Factor > 0:
		return new <= t.Factor*old
	case t.Delta < 0:
		return new-old <= t.Delta
	}
	return new-old >= t.Delta
}

// NewBaseline aggregates metrics over rs into a baseline with the given
// thresholds (metrics without one get DefaultThreshold), alpha and test.
// The warnings are the aggregation's: a baseline written from runs with
// missing seeds says so.
func NewBaseline(rs []runs.Run, metrics []string, thresholds map[string]Threshold, alpha float64, test string) (*Baseline, []table.Warning) {
	if len(metrics) == 0 {
		metrics = DefaultCompareMetrics()
	}
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if test == "" {
		test = TestAuto
	}
	b := &Baseline{Format: BaselineFormat, Version: BaselineVersion, Alpha: alpha, Test: test, Thresholds: map[string]string{}}
	var latest *runs.Run
	for i := range rs {
		if rs[i].Status == runs.StatusFinished && (latest == nil || later(&rs[i], latest)) {
			latest = &rs[i]
		}
	}
	if latest != nil {
		b.GitCommit = latest.Provenance.GitCommit
	}
	if k := ComputedWith(rs); len(k) > 0 {
		b.Kernels = k
	}
	var warns []table.Warning
	for _, m := range metrics {
		t, ok := thresholds[m]
		if !ok {
			t = DefaultThreshold(m)
		}
		b.Thresholds[m] = t.String()
		cells, ws := Aggregate(rs, m)
		for _, w := range ws {
			warns = append(warns, table.Warning{Key: w.Key, Text: m + ": " + w.Text})
		}
		var cs []Comparison // for the table order only
		for k := range cells {
			cs = append(cs, Comparison{Key: k})
		}
		sortComparisons(cs)
		for _, c := range cs {
			cell := cells[c.Key]
			bc := BaselineCell{Method: c.Key.Method, Dataset: c.Key.Dataset, Ratio: c.Key.Ratio, Metric: m,
				Mean: cell.Mean, Std: cell.Std, N: cell.N, Values: cell.Values}
			for i, s := range cell.Seeds {
				bc.Seeds = append(bc.Seeds, BaselineSeed{Split: splitOf(&cell, i), Seed: s})
			}
			b.Cells = append(b.Cells, bc)
		}
	}
	return b, warns
}

// WriteJSON writes b as indented JSON.
func (b *Baseline) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// ReadBaseline reads and validates a baseline file's content; name is the
// file's name for the errors, which name the cell at fault.
func ReadBaseline(r io.Reader, name string) (*Baseline, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	if b.Format != BaselineFormat {
		return nil, fmt.Errorf("baseline %s: format %q, want %q", name, b.Format, BaselineFormat)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline %s: version %d, this ugbench reads version %d", name, b.Version, BaselineVersion)
	}
	if !(b.Alpha > 0 && b.Alpha < 1) {
		return nil, fmt.Errorf("baseline %s: alpha %g: want 0 < alpha < 1", name, b.Alpha)
	}
	for m, s := range b.Thresholds {
		if _, err := ParseThreshold(s); err != nil {
			return nil, fmt.Errorf("baseline %s: thresholds.%s: %w", name, m, err)
		}
	}
	seen := map[string]bool{}
	for i, c := range b.Cells {
		id := fmt.Sprintf("cell %d (%s/%s/%s %s)", i, c.Method, c.Dataset, c.Ratio, c.Metric)
		switch {
		case c.Method == "" || c.Dataset == "" || c.Ratio == "" || c.Metric == "":
			return nil, fmt.Errorf("baseline %s: %s: method, dataset, ratio and metric are required", name, id)
		case len(c.Values) == 0 || len(c.Values) != len(c.Seeds) || c.N != len(c.Values):
			return nil, fmt.Errorf("baseline %s: %s: n = %d with %d seeds and %d values; they must agree and not be 0", name, id, c.N, len(c.Seeds), len(c.Values))
		case seen[id[strings.Index(id, "("):]]:
			return nil, fmt.Errorf("baseline %s: %s appears twice", name, id)
		}
		seen[id[strings.Index(id, "("):]] = true
		mean, std := stats.MeanStd(c.Values)
		if math.Abs(mean-c.Mean) > 1e-9 || math.Abs(std-c.Std) > 1e-9 {
			return nil, fmt.Errorf("baseline %s: %s: mean %g ± %g does not match its values (%g ± %g)", name, id, c.Mean, c.Std, mean, std)
		}
	}
	return &b, nil
}

// cell is the Cell of a baseline cell, seeds ordered by seed pair as
// Aggregate orders them.
func (c BaselineCell) cell() *table.Cell {
	out := &table.Cell{Key: table.Key{Method: c.Method, Dataset: c.Dataset, Ratio: c.Ratio}, Base: baseOf(c.Method), Metric: c.Metric,
		Mean: c.Mean, Std: c.Std, N: c.N}
	idx := make([]int, len(c.Seeds))
	for i := range idx {
		idx[i] = i
	}
	pair := func(i int) SeedPair { return SeedPair{Split: c.Seeds[i].Split, Run: c.Seeds[i].Seed} }
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := pair(idx[i]), pair(idx[j])
		if a.Split != b.Split {
			return a.Split < b.Split
		}
		return a.Run < b.Run
	})
	for _, i := range idx {
		out.Seeds = append(out.Seeds, c.Seeds[i].Seed)
		out.SplitSeeds = append(out.SplitSeeds, c.Seeds[i].Split)
		out.Values = append(out.Values, c.Values[i])
	}
	return out
}

// CheckCell is the verdict on one baseline cell.
type CheckCell struct {
	Comparison
	// Threshold is the metric's threshold.
	Threshold Threshold
	// Regressed: the change reaches the threshold and is significant.
	Regressed bool
	// Status is what the check table prints: "ok", "REGRESSION", "~ past
	// threshold" (a change past the threshold that the test does not
	// confirm), "too few seeds (need ≥ 4)" or "missing".
	Status string
}

// CheckResult is the outcome of Check.
type CheckResult struct {
	// Cells are the verdicts, in baseline order.
	Cells []CheckCell
	// Regressions are the regressed cells.
	Regressions []CheckCell
	// Unjudged are the cells that could not be judged (too few seeds, no
	// current value).
	Unjudged []CheckCell
	// Extra names current cells the baseline does not have (not judged,
	// not failing).
	Extra []string
	// Warnings are the current runs' aggregation warnings.
	Warnings []table.Warning
	// Code is CheckPass, CheckRegression or CheckCannotJudge.
	Code int
}

// Check judges the current runs against baseline b, asv-style: a cell
// regresses when its change reaches the metric's threshold (overrides
// replace b's) and the test (b.Test at b.Alpha, as Compare) finds it
// significant. Cells the test cannot judge, and baseline cells without a
// current value, make the result CheckCannotJudge unless some cell
// regressed. The first warning says so when the baseline and the current
// runs were computed by different kernels (Baseline.Kernels).
func Check(b *Baseline, current []runs.Run, overrides map[string]Threshold) (*CheckResult, error) {
	thresholds := map[string]Threshold{}
	for m, s := range b.Thresholds {
		t, err := ParseThreshold(s)
		if err != nil {
			return nil, fmt.Errorf("baseline thresholds.%s: %w", m, err)
		}
		thresholds[m] = t
	}
	for m, t := range overrides {
		thresholds[m] = t
	}
	res := &CheckResult{}
	if kw := kernelsWarning("the baseline", b.Kernels, "the current runs", ComputedWith(current)); kw != "" {
		res.Warnings = append(res.Warnings, table.Warning{Text: kw})
	}
	currentCells := map[string]map[table.Key]table.Cell{}
	inBaseline := map[string]map[table.Key]bool{}
	for _, bc := range b.Cells {
		m := bc.Metric
		if _, done := currentCells[m]; !done {
			cells, ws := Aggregate(current, m)
			currentCells[m] = cells
			inBaseline[m] = map[table.Key]bool{}
			for _, w := range ws {
				res.Warnings = append(res.Warnings, table.Warning{Key: w.Key, Text: m + ": " + w.Text})
			}
		}
		old := bc.cell()
		inBaseline[m][old.Key] = true
		var cur *table.Cell
		if c, ok := currentCells[m][old.Key]; ok {
			cur = &c
		}
		cmp, w := compareCells(old.Key, m, old, cur, b.Alpha, b.Test)
		if w != "" {
			res.Warnings = append(res.Warnings, table.Warning{Key: old.Key, Text: m + ": " + w})
		}
		t, ok := thresholds[m]
		if !ok {
			t = DefaultThreshold(m)
		}
		cc := CheckCell{Comparison: cmp, Threshold: t}
		past := cur != nil && t.Reached(old.Mean, cur.Mean)
		switch cmp.Verdict {
		case Missing:
			cc.Status = "missing"
			res.Unjudged = append(res.Unjudged, cc)
		case TooFewSeeds:
			cc.Status = cmp.String()
			res.Unjudged = append(res.Unjudged, cc)
		case Changed:
			if past {
				cc.Regressed, cc.Status = true, "REGRESSION"
				res.Regressions = append(res.Regressions, cc)
			} else {
				cc.Status = "ok"
			}
		default:
			cc.Status = "ok"
			if past {
				cc.Status = "~ past threshold"
			}
		}
		res.Cells = append(res.Cells, cc)
	}
	for m, cells := range currentCells {
		for k := range cells {
			if !inBaseline[m][k] {
				res.Extra = append(res.Extra, k.String()+" "+m)
			}
		}
	}
	sort.Strings(res.Extra)
	switch {
	case len(res.Regressions) > 0:
		res.Code = CheckRegression
	case len(res.Unjudged) > 0:
		res.Code = CheckCannotJudge
	default:
		res.Code = CheckPass
	}
	return res, nil
}

// CheckTable lays a check's verdicts out as a table: metric, cell, the
// baseline and current mean±std, the change, the test, the threshold and
// the status.
func CheckTable(res *CheckResult) *table.Plain {
	p := &table.Plain{Header: []string{"metric", "method", "dataset", "ratio", "baseline", "current", "change", "test", "threshold", "status"}}
	for _, c := range res.Cells {
		p.Rows = append(p.Rows, []string{c.Metric, c.Key.Method, c.Key.Dataset, c.Key.Ratio,
			table.MeanStdText(c.Old), table.MeanStdText(c.New), c.ChangeText(), c.PText(), c.Threshold.String(), c.Status})
	}
	return p
}

// Summary is the check's closing lines: one per regression, naming the
// cell with both numbers, one per unjudged cell, then the verdict.
func (res *CheckResult) Summary() []string {
	var out []string
	for _, c := range res.Regressions {
		out = append(out, fmt.Sprintf("regression: %s %s: %s → %s (%s, %s; threshold %s)",
			c.Key, c.Metric, table.MeanStdText(c.Old), table.MeanStdText(c.New), c.ChangeText(), c.PText(), c.Threshold))
	}
	for _, c := range res.Unjudged {
		if c.Verdict == Missing {
			out = append(out, fmt.Sprintf("cannot judge: %s %s: baseline %s, no current value", c.Key, c.Metric, table.MeanStdText(c.Old)))
			continue
		}
		out = append(out, fmt.Sprintf("cannot judge: %s %s: %s → %s: %s (%s)", c.Key, c.Metric, table.MeanStdText(c.Old), table.MeanStdText(c.New), c.Status, c.PText()))
	}
	for _, e := range res.Extra {
		out = append(out, "note: "+e+" is not in the baseline (not judged)")
	}
	switch res.Code {
	case CheckPass:
		out = append(out, fmt.Sprintf("check: PASS (%d cells)", len(res.Cells)))
	case CheckRegression:
		out = append(out, fmt.Sprintf("check: FAIL: %d regression(s) in %d cells", len(res.Regressions), len(res.Cells)))
	case CheckCannotJudge:
		out = append(out, fmt.Sprintf("check: CANNOT JUDGE: %d of %d cells (no regression among the others)", len(res.Unjudged), len(res.Cells)))
	}
	return out
}
