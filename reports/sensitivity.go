package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
)

// SensitivityParam is the name SensitivityTable reads for a parameter
// given by its name in the paper's Figure 4: R (unknown prototypes) and τ
// are UGNN hyper-parameters, α is the protocol's OOD multiplier; any other
// name is itself.
func SensitivityParam(name string) string {
	switch name {
	case "R", "r":
		return "unknown_prototypes"
	case "τ":
		return "tau"
	case "α":
		return SensitivityAlpha
	}
	return name
}

// SensitivityAlpha is the parameter name of the OOD multiplier α
// (suite.Protocol.Alpha) for SensitivityTable.
const SensitivityAlpha = "alpha"

// SweptParams returns the parameters that method's runs of rs sweep, in
// SensitivityTable's names, sorted: the hyper-parameters and SensitivityAlpha
// that take more than one value among the runs of one (dataset, ratio)
// column (a parameter that only differs between columns, such as a step
// budget resolved per dataset, is not swept).
func SweptParams(rs []runs.Run, method string) []string {
	values := map[column]map[string]map[string]bool{} // column → field → values
	for _, r := range rs {
		if r.Spec.Method != method {
			continue
		}
		c := column{r.Spec.Dataset, r.Spec.RatioLabel()}
		if values[c] == nil {
			values[c] = map[string]map[string]bool{}
		}
		for k, v := range configFields(r.Spec) {
			if k != SensitivityAlpha && !strings.HasPrefix(k, "param.") {
				continue
			}
			if values[c][k] == nil {
				values[c][k] = map[string]bool{}
			}
			values[c][k][v] = true
		}
	}
	swept := map[string]bool{}
	for _, fields := range values {
		for k, vs := range fields {
			if len(vs) > 1 {
				swept[strings.TrimPrefix(k, "param.")] = true
			}
		}
	}
	return sortedKeys(swept)
}

// SensitivityTable is the paper's Figure 4 as a table: one method's metric
// against the values of one parameter, rows = the parameter's values
// (ascending), columns = dataset × ratio, cells = mean ± sample std over
// seeds. param is a hyper-parameter name (tau, unknown_prototypes) or
// SensitivityAlpha; the paper's names are accepted (SensitivityParam).
//
// Every other part of the configuration must be the same in every row of
// a column. Where a column's runs differ in another field (a grid that
// swept tau and R shares the default runs), each such field is held at the
// one value all the parameter's values were run with in that column, and a
// note says so; when there is no such value, or several, the error names
// the field and the column, to be chosen with a --param filter. Fields may
// differ between columns (a step budget resolved per dataset). Runs of other methods, and runs without the parameter,
// are left out.
func SensitivityTable(rs []runs.Run, method, param, metric string, opts Options) (*table.Table, error) {
	param = SensitivityParam(param)
	field := "param." + param
	if param == SensitivityAlpha {
		field = "alpha"
	}
	var kept []runs.Run
	var values []string // field value of each kept run
	for _, r := range rs {
		if r.Spec.Method != method {
			continue
		}
		v, ok := configFields(r.Spec)[field]
		if !ok {
			continue
		}
		kept = append(kept, r)
		values = append(values, v)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no run of %s has parameter %q", method, param)
	}

	// Hold every other field that varies within a column at the value all
	// rows of that column share (a field may differ between columns: a
	// step budget resolved per dataset, say).
	byCol := map[column][]int{}
	for i, r := range kept {
		c := column{r.Spec.Dataset, r.Spec.RatioLabel()}
		byCol[c] = append(byCol[c], i)
	}
	fixed := map[column]map[string]string{}
	held := map[string]map[string]bool{} // field → values held at
	for c, idx := range byCol {
		colRuns, colValues := make([]runs.Run, len(idx)), make([]string, len(idx))
		for j, i := range idx {
			colRuns[j], colValues[j] = kept[i], values[i]
		}
		f, err := sharedValues(colRuns, colValues, field)
		if err != nil {
			return nil, fmt.Errorf("sensitivity to %s on %s %s: %w", param, c.dataset, c.ratio, err)
		}
		fixed[c] = f
		for k, v := range f {
			if held[k] == nil {
				held[k] = map[string]bool{}
			}
			held[k][v] = true
		}
	}
	var notes []string
	var rows []runs.Run
	rowValues := map[string]float64{}
	for i, r := range kept {
		f := configFields(r.Spec)
		keep := true
		for k, v := range fixed[column{r.Spec.Dataset, r.Spec.RatioLabel()}] {
			if f[k] != v {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		label := values[i]
		x, err := strconv.ParseFloat(label, 64)
		if err != nil {
			x = math.NaN()
		}
		r.Spec.Method = param + "=" + label
		rowValues[r.Spec.Method] = x
		rows = append(rows, r)
	}
	for _, k := range sortedKeys(held) {
		notes = append(notes, fmt.Sprintf("%s held at %s, the value every %s was run with", strings.TrimPrefix(k, "param."),
			strings.Join(sortedKeys(held[k]), " or "), param))
	}

	order := make([]string, 0, len(rowValues))
	names := map[string]string{}
	for k := range rowValues {
		order = append(order, k)
		names[k] = strings.TrimPrefix(k, param+"=")
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := rowValues[order[i]], rowValues[order[j]]
		if a != b && !math.IsNaN(a) && !math.IsNaN(b) {
			return a < b
		}
		return order[i] < order[j]
	})
	o := opts
	o.MethodOrder, o.Methods, o.Names = order, nil, names
	// The chance row depends on α (the threshold takes the ⌈αK_u⌉ highest
	// scores): an α sweep gets one chance row per α, added below.
	o.Chance = opts.Chance && param != SensitivityAlpha
	t := build(rows, []subMetric{{"", metric}}, o, tableDefaults{
		title:   fmt.Sprintf("Sensitivity of %s to %s", method, param),
		caption: fmt.Sprintf("%s of %s against %s (mean ± sample std over seeds); paper Figure 4.", metric, method, param),
		label:   "tab:sensitivity_" + param,
	})
	t.RowHeader = param
	t.Notes = append(notes, t.Notes...)
	if opts.Chance && param == SensitivityAlpha {
		for i, k := range order {
			var these []runs.Run
			for _, r := range rows {
				if r.Spec.Method == k {
					these = append(these, r)
				}
			}
			addChanceRow(t, these, ChanceRow+" "+k, fmt.Sprintf("%s (α=%s)", ChanceRow, names[k]), i == 0)
		}
	}
	return t, nil
}

// VaryingError is SensitivityTable's error for a config field other than
// the swept parameter that differs among the runs of a column: the
// caller selects one value of it (a hyper-parameter term Field=VALUE,
// package selection) and asks again.
type VaryingError struct {
	// Field is the field, e.g. "epochs" (a hyper-parameter) or "alpha".
	Field string
	// Shared are the values of Field that every swept value was run
	// with, sorted; none when no value was.
	Shared []string
}

func (e *VaryingError) Error() string {
	if len(e.Shared) == 0 {
		return fmt.Sprintf("the runs differ in %s and no value of it was run with every value; select one value of %s", e.Field, e.Field)
	}
	return fmt.Sprintf("the runs differ in %s (every value was run with %s); select one value of %s", e.Field, strings.Join(e.Shared, " and "), e.Field)
}

// sharedValues finds, for every config field but sweep and the ratio that
// varies among rs (the runs of one column), the one value that every value of sweep (values,
// index-aligned with rs) was run with. The error names a field without
// such a value, or with several.
func sharedValues(rs []runs.Run, values []string, sweep string) (map[string]string, error) {
	byValue := map[string]map[string]map[string]bool{} // sweep value → field → values
	all := map[string]map[string]bool{}
	for i, r := range rs {
		if byValue[values[i]] == nil {
			byValue[values[i]] = map[string]map[string]bool{}
		}
		for k, v := range configFields(r.Spec) {
			if k == sweep || k == "ratio" {
				continue
			}
			if byValue[values[i]][k] == nil {
				byValue[values[i]][k] = map[string]bool{}
			}
			byValue[values[i]][k][v] = true
			if all[k] == nil {
				all[k] = map[string]bool{}
			}
			all[k][v] = true
		}
	}
	fixed := map[string]string{}
	for _, k := range sortedKeys(all) {
		if len(all[k]) < 2 {
			continue
		}
		var shared []string
		for v := range all[k] {
			everywhere := true
			for _, fields := range byValue {
				if !fields[k][v] {
					everywhere = false
					break
				}
			}
			if everywhere {
				shared = append(shared, v)
			}
		}
		name := strings.TrimPrefix(k, "param.")
		switch len(shared) {
		case 1:
			fixed[k] = shared[0]
		default:
			sort.Strings(shared)
			return nil, &VaryingError{Field: name, Shared: shared}
		}
	}
	return fixed, nil
}
