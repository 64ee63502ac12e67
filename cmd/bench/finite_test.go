package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridRejectsBadNumbers: NaN and ±Inf in any flag or --set value, and
// a value out of its method's declared range, fail `bench grid` (dry run
// included) with an error naming the flag or parameter, before any run and
// without a panic.
func TestGridRejectsBadNumbers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	base := []string{"--methods", "gin-topk,wl,ugnn", "--datasets", "Letter-high", "--ratios", "low", "--seeds", "0", "--db", db, "--dry-run"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "gin-topk.lr=inf"}, `gin-topk.lr: "inf" is not a finite number`},
		{[]string{"--set", "gin-topk.lr=NaN"}, `gin-topk.lr: "NaN" is not a finite number`},
		{[]string{"--set", "wl.C=NaN"}, `wl.C: "NaN" is not a finite number`},
		{[]string{"--set", "*.lr=-Inf"}, `"-Inf" is not a finite number`},
		{[]string{"--alpha", "inf"}, "--alpha +Inf: not a finite number"},
		{[]string{"--alpha", "1,NaN"}, "--alpha NaN: not a finite number"},
		{[]string{"--test-frac", "nan"}, "--test-frac NaN: not a finite number"},
		{[]string{"--set", "gin-topk.lr=0"}, "gin-topk: lr 0: must be > 0"},
		{[]string{"--set", "gin-topk.lr=-1"}, "gin-topk: lr -1: must be > 0"},
		{[]string{"--set", "wl.C=0"}, "wl: C 0: must be > 0"},
		{[]string{"--set", "wl.iterations=-1"}, "wl: iterations -1: must be in [0, 50]"},
		{[]string{"--set", "ugnn.tau=0"}, "ugnn: tau 0: must be > 0"},
		{[]string{"--set", "gin-topk.pool_ratio=1.5"}, "gin-topk: pool_ratio 1.5: must be in (0, 1]"},
	} {
		err := runGrid(append(append([]string{}, base...), c.args...), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("grid %v: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
	// In-range values and every method's defaults still pass.
	if err := runGrid(append(base, "--set", "gin-topk.lr=0.01", "--alpha", "0.8,1.2"), io.Discard); err != nil {
		t.Errorf("valid grid: %v", err)
	}
	all := []string{"--methods", "all", "--datasets", "Letter-high,COIL-DEL", "--ratios", "low,high", "--seeds", "0", "--db", db, "--dry-run"}
	if err := runGrid(all, io.Discard); err != nil {
		t.Errorf("every method's defaults: %v", err)
	}
}
