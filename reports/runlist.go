package reports

import (
	"fmt"
	"strings"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// RunList is the table of `bench runs`: one row per stored run with its
// id, status, spec, wall time, attempts, progress (a running run's last
// logged epoch "12/250", as of its last heartbeat), accuracy and error,
// and, for a run that is not finished, its saved state among saved
// (suite.SavedStates): "25/157 Nov 24 14:51", the epoch a rerun continues
// after and when it was saved, with "other binary" when only another bench
// executable can continue it. Of several states of one run the running
// binary's is shown, else the newest.
func RunList(rs []runs.Run, saved []suite.SavedState) *table.Plain {
	best := map[string]suite.SavedState{}
	for _, s := range saved {
		b, ok := best[s.Hash]
		if !ok || (s.ThisBinary && !b.ThisBinary) || (s.ThisBinary == b.ThisBinary && s.Saved.After(b.Saved)) {
			best[s.Hash] = s
		}
	}
	p := &table.Plain{Header: []string{"id", "status", "method", "dataset", "ratio", "seed", "hash", "seconds", "attempts", "epoch", "saved", "accuracy", "error"}}
	for _, r := range rs {
		epoch := ""
		if r.Status == runs.StatusRunning && r.Epochs > 0 {
			epoch = fmt.Sprintf("%d/%d", r.Epoch, r.Epochs)
		}
		state := ""
		if s, ok := best[r.Hash]; ok && r.Status != runs.StatusFinished {
			state = fmt.Sprintf("%d/%d %s", s.Epoch, s.Epochs, s.Saved.UTC().Format("Jan 2 15:04"))
			if !s.ThisBinary {
				state += " other binary"
			}
		}
		acc := ""
		if v, ok := r.Metrics[suite.MetricAccuracy]; ok {
			acc = fmt.Sprintf("%.3f", v)
		}
		secs := ""
		if r.Status == runs.StatusFinished {
			secs = fmt.Sprintf("%.1f", r.Seconds)
		}
		errText, _, _ := strings.Cut(r.Error, "\n")
		p.Rows = append(p.Rows, []string{
			fmt.Sprint(r.ID), string(r.Status), r.Spec.Method, r.Spec.Dataset, r.Spec.RatioLabel(),
			fmt.Sprint(r.Spec.Seed), r.Hash, secs, fmt.Sprint(r.Attempts), epoch, state, acc, errText,
		})
	}
	return p
}
