// Package reports turns stored runs into the paper's tables: it aggregates
// one metric over seeds into cells (mean ± sample std, docs/protocol.md §4)
// and lays the cells out as the paper's tables (package table: rows =
// methods, columns = dataset × ratio, optional sub-columns; rendered as
// text, GitHub Markdown, LaTeX or CSV), the comparisons of bench compare,
// the CI baseline of bench check, per-epoch curves, the sensitivity tables,
// the results document and the JSON/CSV export. Its neighbours: package
// selection picks the runs, stats holds the statistics, figures draws.
//
// Aggregation never hides a problem: missing or failed seeds, NaN values and
// cells that pool different configurations come back as Warnings next to
// the cells, benchstat-style, and every format but CSV prints them below the
// table.
package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// seedState gathers all runs of one seed in one cell.
type seedState struct {
	best     *runs.Run // latest finished run with a numeric value
	values   int       // finished runs with a numeric value
	nan      int       // finished runs with a NaN value
	noMetric int       // finished runs without the metric
	statuses []runs.Status
}

// cellAcc gathers all runs of one cell.
type cellAcc struct {
	base  string
	seeds map[SeedPair]*seedState
}

// SeedPair identifies the runs of one seed of a cell: its split seed (the
// split) and its run seed (the model). Runs of protocol v1 have split seed
// = run seed in the store but 0 in their specs.
type SeedPair struct{ Split, Run int64 }

// PairOf is the seed pair of spec.
func PairOf(spec suite.RunSpec) SeedPair { return SeedPair{spec.SplitSeed, spec.Seed} }

// String is "seed R" for split seed 0 (the protocol's default split) and
// "split S seed R" otherwise.
func (p SeedPair) String() string {
	if p.Split == 0 {
		return fmt.Sprintf("seed %d", p.Run)
	}
	return fmt.Sprintf("split %d seed %d", p.Split, p.Run)
}

// sortedPairs returns m's keys ordered by split seed, then run seed.
func sortedPairs[V any](m map[SeedPair]V) []SeedPair {
	out := make([]SeedPair, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Split != out[j].Split {
			return out[i].Split < out[j].Split
		}
		return out[i].Run < out[j].Run
	})
	return out
}

// column is a (dataset, ratio) pair.
type column struct{ dataset, ratio string }

// Aggregate aggregates metric over the seeds of rs, one Cell per (row label,
// dataset, ratio label) with at least one contributing seed. Runs of every
// status may be passed: only finished runs count, and the others explain
// missing seeds in the warnings. A seed is expected in a cell when any run
// of the same dataset and ratio (of any method) used it; each cell that
// misses an expected seed gets a warning naming why (failed, interrupted,
// running, NaN, no value, not run). When a seed has several finished runs
// the latest one counts, with a warning. Warnings come sorted in the
// default table order. When no finished run reports metric at all (a
// misspelt name, say), the only warning says so.
func Aggregate(rs []runs.Run, metric string) (map[table.Key]table.Cell, []table.Warning) {
	finished, reported := 0, 0
	for _, r := range rs {
		if r.Status == runs.StatusFinished {
			finished++
			if _, ok := r.Metrics[metric]; ok {
				reported++
			}
		}
	}
	if finished > 0 && reported == 0 {
		// A misspelt metric: one warning rather than one per cell.
		return map[table.Key]table.Cell{}, []table.Warning{{Text: fmt.Sprintf("no finished run reports metric %q", metric)}}
	}

	labels := RowLabels(rs)
	accs := map[table.Key]*cellAcc{}
	expected := map[column]map[SeedPair]bool{}
	for i := range rs {
		r := &rs[i]
		k := table.Key{Method: labels[i], Dataset: r.Spec.Dataset, Ratio: r.Spec.RatioLabel()}
		a := accs[k]
		if a == nil {
			a = &cellAcc{base: r.Spec.Method, seeds: map[SeedPair]*seedState{}}
			accs[k] = a
		}
		col := column{k.Dataset, k.Ratio}
		if expected[col] == nil {
			expected[col] = map[SeedPair]bool{}
		}
		pair := PairOf(r.Spec)
		expected[col][pair] = true
		s := a.seeds[pair]
		if s == nil {
			s = &seedState{}
			a.seeds[pair] = s
		}
		s.statuses = append(s.statuses, r.Status)
		if r.Status != runs.StatusFinished {
			continue
		}
		v, ok := r.Metrics[metric]
		switch {
		case !ok:
			s.noMetric++
		case math.IsNaN(v):
			s.nan++
		default:
			s.values++
			if s.best == nil || later(r, s.best) {
				s.best = r
			}
		}
	}

	cells := map[table.Key]table.Cell{}
	var warns []table.Warning
	for k, a := range accs {
		c := table.Cell{Key: k, Base: a.base, Metric: metric}
		var vals []float64
		var chosen []*runs.Run
		for _, seed := range sortedPairs(a.seeds) {
			s := a.seeds[seed]
			if s.best == nil {
				if s.nan > 0 {
					c.NaN++
				}
				continue
			}
			if s.values > 1 {
				warns = append(warns, table.Warning{Key: k, Text: fmt.Sprintf("%s has %d finished runs; using the latest (run %d)", seed, s.values, s.best.ID)})
			}
			vals = append(vals, s.best.Metrics[metric])
			c.Seeds = append(c.Seeds, seed.Run)
			c.SplitSeeds = append(c.SplitSeeds, seed.Split)
			c.Values = append(c.Values, s.best.Metrics[metric])
			chosen = append(chosen, s.best)
		}
		if miss := missingText(a, expected[column{k.Dataset, k.Ratio}], metric); miss != "" {
			warns = append(warns, table.Warning{Key: k, Text: miss})
		}
		if mixed := mixedConfigs(chosen); mixed != "" {
			warns = append(warns, table.Warning{Key: k, Text: mixed})
		}
		if mixed := mixedKernels(chosen); mixed != "" {
			warns = append(warns, table.Warning{Key: k, Text: mixed})
		}
		if len(vals) == 0 {
			continue
		}
		c.N = len(vals)
		c.Mean, c.Std = stats.MeanStd(vals)
		cells[k] = c
	}
	sortWarnings(warns, nil, nil)
	return cells, warns
}

// later reports whether a finished after b (ties: the higher ID).
func later(a, b *runs.Run) bool {
	if !a.Finished.Equal(b.Finished) {
		return a.Finished.After(b.Finished)
	}
	return a.ID > b.ID
}

func sortedSeeds[V any](m map[int64]V) []int64 {
	seeds := make([]int64, 0, len(m))
	for s := range m {
		seeds = append(seeds, s)
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	return seeds
}

// missingText is the warning text for the expected seeds a has no value
// for, or "" if none is missing.
func missingText(a *cellAcc, expected map[SeedPair]bool, metric string) string {
	var reasons []string
	for _, seed := range sortedPairs(expected) {
		s := a.seeds[seed]
		if s != nil && s.best != nil {
			continue
		}
		reasons = append(reasons, fmt.Sprintf("%s %s", seed, missingReason(s, metric)))
	}
	if len(reasons) == 0 {
		return ""
	}
	noun := "seeds"
	if len(expected) == 1 {
		noun = "seed"
	}
	return fmt.Sprintf("%d of %d %s missing (%s)", len(reasons), len(expected), noun, strings.Join(reasons, ", "))
}

// missingReason says why a seed has no value: the most informative status
// among its runs.
func missingReason(s *seedState, metric string) string {
	switch {
	case s == nil:
		return "not run"
	case s.nan > 0:
		return "NaN"
	case s.noMetric > 0:
		return "has no " + metric
	}
	for _, want := range []runs.Status{runs.StatusFailed, runs.StatusInterrupted, runs.StatusRunning} {
		for _, st := range s.statuses {
			if st == want {
				return string(st)
			}
		}
	}
	return string(s.statuses[len(s.statuses)-1])
}

// mixedConfigs returns a warning text when the chosen runs of one cell do
// not all share one configuration (numeric ratio, protocol, params), or "".
func mixedConfigs(chosen []*runs.Run) string {
	if len(chosen) < 2 {
		return ""
	}
	fields := make([]map[string]string, len(chosen))
	for i, r := range chosen {
		fields[i] = configFields(r.Spec)
	}
	var differ []string
	for _, name := range unionKeys(fields) {
		first := fields[0][name]
		for _, f := range fields[1:] {
			if f[name] != first {
				differ = append(differ, name)
				break
			}
		}
	}
	if len(differ) == 0 {
		return ""
	}
	configs := map[string]bool{}
	for _, f := range fields {
		var b strings.Builder
		for _, name := range differ {
			b.WriteString(name + "=" + f[name] + " ")
		}
		configs[b.String()] = true
	}
	return fmt.Sprintf("seeds pool %d different configs (differing in %s); a cell should aggregate one config only",
		len(configs), strings.Join(differ, ", "))
}

// configFields flattens everything but the seed that makes a run's config:
// the numeric ratio, the protocol and the params (as "param.NAME").
func configFields(s suite.RunSpec) map[string]string {
	f := map[string]string{
		"ratio":       fmt.Sprint(s.Ratio),
		"class_split": s.Protocol.ClassSplit,
		"test_frac":   fmt.Sprint(s.Protocol.TestFrac),
		"alpha":       fmt.Sprint(s.Protocol.Alpha),
	}
	for k, v := range s.Params {
		f["param."+k] = canon(v)
	}
	return f
}

func unionKeys(ms []map[string]string) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			set[k] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// canon is a canonical string of a param value, so that int 1 and float64
// 1 (as decoded from JSON) compare equal.
func canon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// RowLabels returns the row label of each run, index-aligned with rs: the
// method's registry name, or, for a method whose runs differ in Params
// within one (dataset, ratio) cell, the name followed by the values of the
// params that differ within some cell, sorted by name, e.g.
// "gin-topk (lr=0.01)" or "gin-topk (hidden=64 lr=0.01)". Params that only
// differ between cells (tuned per dataset, say) do not split a row. A param
// absent from a run's Params shows as "unset".
func RowLabels(rs []runs.Run) []string {
	type cellID struct{ method, dataset, ratio string }
	byCell := map[cellID][]int{}
	for i, r := range rs {
		id := cellID{r.Spec.Method, r.Spec.Dataset, r.Spec.RatioLabel()}
		byCell[id] = append(byCell[id], i)
	}
	varying := map[string]map[string]bool{} // method → params that vary in a cell
	for id, idx := range byCell {
		keys := map[string]bool{}
		for _, i := range idx {
			for k := range rs[i].Spec.Params {
				keys[k] = true
			}
		}
		for k := range keys {
			first := paramString(rs[idx[0]].Spec.Params, k)
			for _, i := range idx[1:] {
				if paramString(rs[i].Spec.Params, k) != first {
					if varying[id.method] == nil {
						varying[id.method] = map[string]bool{}
					}
					varying[id.method][k] = true
					break
				}
			}
		}
	}
	labels := make([]string, len(rs))
	for i, r := range rs {
		vary := varying[r.Spec.Method]
		if len(vary) == 0 {
			labels[i] = r.Spec.Method
			continue
		}
		keys := make([]string, 0, len(vary))
		for k := range vary {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for j, k := range keys {
			v, ok := r.Spec.Params[k]
			if !ok {
				parts[j] = k + "=unset"
				continue
			}
			parts[j] = fmt.Sprintf("%s=%v", k, v)
		}
		labels[i] = r.Spec.Method + " (" + strings.Join(parts, " ") + ")"
	}
	return labels
}

// paramString is the canonical value of p[k], or "unset".
func paramString(p suite.Params, k string) string {
	v, ok := p[k]
	if !ok {
		return "unset"
	}
	return canon(v)
}
