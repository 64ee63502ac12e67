package suite

import (
	"errors"
	"strings"
	"testing"
)

// TestInputErrors: the grid's input parsers speak of their fields, never
// of bench's flags, and AsFlagError turns each into the flag's message.
func TestInputErrors(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, c := range []struct {
		name string
		err  func() error
		lib  string // the library's message
		flag string // after AsFlagError
	}{
		{"set form", func() error { _, err := ParseSets([]string{"tau"}); return err },
			`set "tau": want method.param=v1,v2 (method may be *)`, `--set "tau": want method.param=v1,v2 (method may be *)`},
		{"set twice", func() error { _, err := ParseSets([]string{"ugnn.tau=1", "ugnn.tau=2"}); return err },
			`set "ugnn.tau=2": ugnn.tau given twice`, `--set "ugnn.tau=2": ugnn.tau given twice`},
		{"shard", func() error { _, err := ParseShard("3/2", noEnv); return err },
			`shard "3/2": the shard index "3" is not an integer in [0, 2)`, `--shard "3/2": the shard index "3" is not an integer in [0, 2)`},
		{"devices", func() error { _, err := ParseDevices("tpu:0", 1); return err },
			`devices "tpu:0": unknown device kind "tpu" (want cpu:N or cuda:I)`, `--devices "tpu:0": unknown device kind "tpu" (want cpu:N or cuda:I)`},
		{"per-device", func() error { _, err := ParseDevices("cpu:1", 0); return err },
			`per-device 0: must be ≥ 1`, `--per-device 0: must be ≥ 1`},
		{"alpha", func() error {
			_, err := Expand(GridConfig{Methods: []string{"all"}, Datasets: []string{"Letter-high"}, Ratios: []string{"low"}, Seeds: []int64{0}, Alphas: []float64{-1}})
			return err
		}, `alpha -1: must be a finite number > 0`, `--alpha -1: must be a finite number > 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
			if err.Error() != c.lib || strings.Contains(err.Error(), "--") {
				t.Errorf("library error %q, want %q", err, c.lib)
			}
			if got := AsFlagError(err).Error(); got != c.flag {
				t.Errorf("AsFlagError: %q, want %q", got, c.flag)
			}
		})
	}
	plain := errors.New("other")
	if AsFlagError(plain) != plain {
		t.Error("AsFlagError changed an error that is not an InputError")
	}
}
