package selection

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// Side is one side of `bench compare`: which runs it takes, on top of the
// selection both sides share, and the unknown score it reads. Parse one
// with ParseSide.
type Side struct {
	// Text is the side as given, e.g. "commit=1a2b3c"; tables name the
	// side by it.
	Text string
	// DB is the side's database file ("" = the command's database).
	DB string
	// Commit, when not "", keeps the runs whose provenance git commit
	// starts with it.
	Commit string
	// Method, when not "", keeps the runs of this method.
	Method string
	// Alpha, when not "", keeps the runs of this OOD multiplier
	// (suite.Protocol.Alpha), compared as numbers.
	Alpha string
	// Params keep the runs whose hyper-parameter KEY has the value
	// (SameValue; Unset for runs without KEY); unlike Selection.Params, a
	// side drops the runs of methods without KEY.
	Params map[string]string
	// Score is the unknown score the side reads ("" = suite.NativeScore):
	// it selects no runs but the metrics, "Score:metric" for a post-hoc
	// scorer (reports.ScoredMetric). Two sides that select the same runs and
	// differ in Score compare two scores of the same runs, paired run by
	// run (Compare).
	Score string
}

// ParseSide parses a side of `bench compare`: a database file (an
// argument without '='), or comma-separated terms KEY=VALUE (ParseTerm)
// where KEY is
// db (a database file), commit (a git commit prefix), method, alpha (the
// OOD multiplier), score (the unknown score: native or a post-hoc scorer's
// label, e.g. score=knn), or any other name, a hyper-parameter (tau=0.2).
// Errors name the argument and the term.
func ParseSide(arg string) (Side, error) {
	s := Side{Text: arg, Params: map[string]string{}}
	if strings.TrimSpace(arg) == "" {
		return s, fmt.Errorf("side %q: empty; give a database file or terms like commit=1a2b3c, method=ugnn, tau=0.2", arg)
	}
	if !strings.Contains(arg, "=") {
		s.DB = arg
		return s, nil
	}
	seen := map[string]bool{}
	for _, term := range strings.Split(arg, ",") {
		k, v, err := ParseTerm(term)
		if err != nil {
			return s, fmt.Errorf("side %q: %w (KEY db, commit, method, alpha, score or a hyper-parameter)", arg, err)
		}
		if seen[k] {
			return s, fmt.Errorf("side %q: %s given twice", arg, k)
		}
		seen[k] = true
		switch k {
		case "db":
			s.DB = v
		case "commit":
			s.Commit = v
		case "method":
			s.Method = v
		case "alpha":
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return s, fmt.Errorf("side %q: alpha=%s is not a number", arg, v)
			}
			s.Alpha = v
		case "score":
			if err := ValidScore(v); err != nil {
				return s, fmt.Errorf("side %q: %w", arg, err)
			}
			s.Score = v
		default:
			s.Params[k] = v
		}
	}
	return s, nil
}

// Select keeps the runs of rs that s selects.
func (s Side) Select(rs []runs.Run) []runs.Run {
	var out []runs.Run
	for _, r := range rs {
		if s.Commit != "" && !strings.HasPrefix(r.Provenance.GitCommit, s.Commit) {
			continue
		}
		if s.Method != "" && r.Spec.Method != s.Method {
			continue
		}
		if s.Alpha != "" && !SameValue(r.Spec.Protocol.Alpha, s.Alpha) {
			continue
		}
		keep := true
		for k, v := range s.Params {
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

// AlignSides makes the cells of two sides comparable: what tells the
// sides apart must not tell their cells apart. When the sides select
// different methods, both sides' runs are renamed "OLD → NEW"; when they
// select different values of a hyper-parameter, the parameter is dropped
// from both sides' runs (so it does not split rows). It returns copies;
// rs are not modified.
func AlignSides(old, new Side, oldRuns, newRuns []runs.Run) ([]runs.Run, []runs.Run) {
	rename := ""
	if old.Method != "" && new.Method != "" && old.Method != new.Method {
		rename = old.Method + " → " + new.Method
	}
	var drop []string
	for k, v := range old.Params {
		if w, ok := new.Params[k]; ok && !suite.SameValue(w, v) {
			drop = append(drop, k)
		}
	}
	sort.Strings(drop)
	fix := func(rs []runs.Run) []runs.Run {
		out := make([]runs.Run, len(rs))
		for i, r := range rs {
			if rename != "" {
				r.Spec.Method = rename
			}
			if len(drop) > 0 {
				p := make(suite.Params, len(r.Spec.Params))
				for k, v := range r.Spec.Params {
					p[k] = v
				}
				for _, k := range drop {
					delete(p, k)
				}
				r.Spec.Params = p
			}
			out[i] = r
		}
		return out
	}
	return fix(oldRuns), fix(newRuns)
}
