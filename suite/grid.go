package suite

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/datasets"
)

// GridConfig is a grid of runs: methods × datasets × ratios × seeds × swept
// hyper-parameters (benchopt's and GraphGym's notion of a grid).
type GridConfig struct {
	// Methods are registry names; "all" expands to every registered method.
	Methods []string
	// Datasets are dataset names (directories of the data dir).
	Datasets []string
	// Ratios are "low", "high" (the dataset's protocol ratios) or numbers in (0, 1].
	Ratios []string
	// SplitSeeds draw the splits (default: 0 only, as the paper's fixed
	// split); Seeds are the run seeds (initialisation, batching, sampling).
	SplitSeeds []int64
	Seeds      []int64
	// Sets are --set values: "method.param" → values to sweep; "*.param"
	// applies to every selected method that has param.
	Sets map[string][]string
	// Steps, if > 0, overrides the supervised step budget ("steps") of
	// every method that has one; otherwise a method's steps = 0 is resolved
	// to the dataset's protocol budget (datasets.Info.StepBudget), so that
	// every stored spec holds the number of steps it ran. An explicit --set
	// of steps wins over both.
	Steps int
	// Protocol is the evaluation protocol of every run.
	Protocol Protocol
	// Alphas, if non-empty, sweeps the protocol's OOD multiplier α (the
	// paper's sensitivity study, 0.8–1.4) instead of Protocol.Alpha.
	Alphas []float64
}

// ParseSeeds parses "0,1,2", "0-4" or a mix ("0-2,7") into seeds, in order,
// without duplicates.
func ParseSeeds(s string) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed %q: not an integer or range a-b", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("seed range %q: want a-b with a ≤ b", part)
			}
		}
		for v := a; v <= b; v++ {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// ParseSets parses --set flags of the form "method.param=v1,v2" into
// GridConfig.Sets. Repeating a key is an error.
func ParseSets(flags []string) (map[string][]string, error) {
	sets := map[string][]string{}
	for _, f := range flags {
		key, vals, ok := strings.Cut(f, "=")
		if !ok || !strings.Contains(key, ".") || vals == "" {
			return nil, inputErrorf("set", strconv.Quote(f), "want method.param=v1,v2 (method may be *)")
		}
		if _, dup := sets[key]; dup {
			return nil, inputErrorf("set", strconv.Quote(f), "%s given twice", key)
		}
		items := strings.Split(vals, ",")
		for _, it := range items {
			if strings.TrimSpace(it) == "" {
				return nil, inputErrorf("set", strconv.Quote(f), "empty value in the list")
			}
		}
		sets[key] = items
	}
	return sets, nil
}

// StepsParam is the parameter of a method's supervised step budget
// (docs/protocol.md §5): the number of optimizer steps on labelled
// batches. A method's default 0 stands for the dataset's budget, which
// Expand writes into every spec.
const StepsParam = "steps"

// Expand turns the grid into run specs, in the order dataset, ratio,
// method, swept parameters, α, split seed, seed. Errors name the offending
// method, dataset, ratio or setting (an InputError for Sets and Alphas).
// Every spec passes CheckSpec.
func Expand(cfg GridConfig) ([]RunSpec, error) {
	methods, err := resolveMethods(cfg.Methods)
	if err != nil {
		return nil, err
	}
	if len(cfg.Datasets) == 0 || len(cfg.Ratios) == 0 || len(cfg.Seeds) == 0 {
		return nil, fmt.Errorf("a grid needs at least one dataset, ratio and seed")
	}
	splitSeeds := cfg.SplitSeeds
	if len(splitSeeds) == 0 {
		splitSeeds = []int64{0}
	}
	if err := checkSets(cfg.Sets, methods); err != nil {
		return nil, err
	}
	paramSets := make([][]Params, len(methods))
	for i, m := range methods {
		if paramSets[i], err = sweep(m, cfg); err != nil {
			return nil, err
		}
	}
	alphas := cfg.Alphas
	for _, a := range alphas {
		if !(a > 0) || math.IsInf(a, 0) {
			return nil, inputErrorf("alpha", fmt.Sprint(a), "must be a finite number > 0")
		}
	}
	if len(alphas) == 0 {
		alphas = []float64{cfg.Protocol.Alpha}
	}
	var specs []RunSpec
	for _, ds := range cfg.Datasets {
		for _, r := range cfg.Ratios {
			name, ratio, err := datasets.ResolveRatio(ds, r)
			if err != nil {
				return nil, err
			}
			budget := datasets.DefaultSteps
			if info, ok := datasets.LookupInfo(ds); ok {
				budget = info.StepBudget()
			}
			for i, m := range methods {
				for _, p := range paramSets[i] {
					p = p.Clone()
					if v, ok := p[StepsParam]; ok && p.Int(StepsParam) == 0 {
						p[StepsParam] = budget
						if _, isFloat := v.(float64); isFloat {
							p[StepsParam] = float64(budget)
						}
					}
					for _, a := range alphas {
						proto := cfg.Protocol
						proto.Alpha = a
						for _, split := range splitSeeds {
							for _, seed := range cfg.Seeds {
								specs = append(specs, RunSpec{
									Method: m.Name(), Dataset: ds, RatioName: name, Ratio: ratio,
									SplitSeed: split, Seed: seed, Params: p.Clone(), Protocol: proto,
								})
							}
						}
					}
				}
			}
		}
	}
	for _, s := range specs { // every spec, before any run starts
		if err := CheckSpec(s); err != nil {
			return nil, err
		}
	}
	return specs, nil
}

func resolveMethods(names []string) ([]Method, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("no methods given (registered: %s)", strings.Join(Names(), ", "))
	}
	var out []Method
	seen := map[string]bool{}
	for _, n := range names {
		list := []string{n}
		if n == "all" {
			list = Names()
		}
		for _, name := range list {
			if seen[name] {
				continue
			}
			m, err := Lookup(name)
			if err != nil {
				return nil, err
			}
			seen[name] = true
			out = append(out, m)
		}
	}
	return out, nil
}

func checkSets(sets map[string][]string, methods []Method) error {
	for key := range sets {
		method, param, _ := strings.Cut(key, ".")
		found := false
		for _, m := range methods {
			if method != "*" && method != m.Name() {
				continue
			}
			if _, ok := ParamsOf(m).Lookup(param); ok {
				found = true
			} else if method != "*" {
				return inputErrorf("set", key, "method %s has no parameter %q (has: %s)", method, param, strings.Join(m.Defaults().Keys(), ", "))
			}
		}
		if !found {
			return inputErrorf("set", key, "no selected method has parameter %q", param)
		}
	}
	return nil
}

// sweep returns the Cartesian product of m's swept parameters over its
// defaults, in sorted parameter order.
func sweep(m Method, cfg GridConfig) ([]Params, error) {
	set := ParamsOf(m)
	base := set.Defaults()
	if _, ok := base[StepsParam]; ok && cfg.Steps > 0 {
		base[StepsParam] = cfg.Steps
	}
	out := []Params{base}
	for _, key := range sortedKeys(cfg.Sets) {
		method, param, _ := strings.Cut(key, ".")
		spec, ok := set.Lookup(param)
		if (method != "*" && method != m.Name()) || !ok {
			continue
		}
		var next []Params
		for _, p := range out {
			for _, s := range cfg.Sets[key] {
				v, err := spec.Parse(m.Name()+"."+param, strings.TrimSpace(s))
				if err != nil {
					return nil, &InputError{Field: "set", Value: key, Err: err}
				}
				q := p.Clone()
				q[param] = v
				next = append(next, q)
			}
		}
		out = next
	}
	return out, nil
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
