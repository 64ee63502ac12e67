// Package selection is the run-selection language of the bench commands:
// which stored runs a report, a side of a comparison, a check, an export
// or a plot reads. A selection has two halves: what the run store
// evaluates (runs.Filter: methods, datasets, ratios, seeds, statuses) and
// what it cannot, evaluated here on the listed runs: KEY=VALUE terms on
// hyper-parameters, the git commit and the OOD multiplier α. A term is
// written KEY=VALUE everywhere (ParseTerm): each --param of bench report,
// runs, export, check, curves, plot and rescore is one, and a side of
// bench compare is a comma-separated list of them (ParseSide). One value
// equality (SameValue) serves every term. Errors are plain: the command
// says which flag or argument they come from.
package selection

import (
	"fmt"
	"strings"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// Unset is the value of a term that selects the runs without the
// hyper-parameter (e.g. runs stored before it existed).
const Unset = "unset"

// Selection is the selection of the commands that read one database: the
// store's filter and hyper-parameter terms.
type Selection struct {
	// Filter is what the store evaluates (runs.Store.List).
	Filter runs.Filter
	// Params keep the runs whose hyper-parameter KEY has the value
	// (SameValue; Unset for runs without KEY). A key filters only the
	// methods that have it in some listed run: selecting size_chunks=3
	// keeps the kernels, which have no size_chunks.
	Params map[string]string
}

// Load lists the runs of store that s selects.
func (s Selection) Load(store *runs.Store) ([]runs.Run, error) {
	rs, err := store.List(s.Filter)
	if err != nil {
		return nil, err
	}
	return KeepParams(rs, s.Params), nil
}

// ParseTerm parses one term "KEY=VALUE" (spaces around either trimmed);
// a missing key or value is an error.
func ParseTerm(term string) (key, value string, err error) {
	k, v, ok := strings.Cut(term, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return "", "", fmt.Errorf("term %q: want KEY=VALUE", term)
	}
	return k, v, nil
}

// ParseParams parses hyper-parameter terms, one a value (KEY=VALUE, VALUE
// Unset for runs without KEY), into Selection.Params; a key given twice is
// an error.
func ParseParams(terms []string) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range terms {
		k, v, err := ParseTerm(t)
		if err != nil {
			return nil, fmt.Errorf("%w (VALUE %s for runs without KEY)", err, Unset)
		}
		if old, dup := out[k]; dup {
			return nil, fmt.Errorf("term %q: %s is already %s", t, k, old)
		}
		out[k] = v
	}
	return out, nil
}

// KeepParams keeps the runs whose hyper-parameters match want (key →
// value, SameValue; Unset for an absent key), e.g. the runs of the current
// defaults after a default changed: {"size_chunks": "3"}. A key only
// filters the methods that have it in some run; methods none of whose runs
// have it (kernels, say, for size_chunks) are kept.
func KeepParams(rs []runs.Run, want map[string]string) []runs.Run {
	if len(want) == 0 {
		return rs
	}
	has := map[string]map[string]bool{} // method → keys in some run
	for _, r := range rs {
		if has[r.Spec.Method] == nil {
			has[r.Spec.Method] = map[string]bool{}
		}
		for k := range r.Spec.Params {
			has[r.Spec.Method][k] = true
		}
	}
	var out []runs.Run
	for _, r := range rs {
		keep := true
		for k, v := range want {
			if !has[r.Spec.Method][k] {
				continue
			}
			got, ok := r.Spec.Params[k]
			if (ok && !SameValue(got, v)) || (!ok && v != Unset) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// SameValue compares a stored value with a term's: suite.SameValue, the
// suite's one value equality (numbers by value, so tau=0.10 matches 0.1;
// anything else by text).
func SameValue(got any, want string) bool { return suite.SameValue(got, want) }
