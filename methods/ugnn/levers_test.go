package ugnn

import (
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// defaultSpecHashes are the hashes of each variant's default spec on
// Letter-high low (steps 500), computed on main before the levers existed:
// the runs stored then must keep their hashes (suite.LegacyParams).
var defaultSpecHashes = map[string]string{
	"ugnn": "1320e9d4f4387755", "ugnn-wo-s": "c0ff3e77c44e8795", "ugnn-wo-p": "185b279630d67432",
	"ugnn-wo-kp": "4e0cfb66030d0c4f", "ugnn-wo-up": "be819510b34cd346",
}

func defaultSpec(name string) suite.RunSpec {
	p := method{Variants[0]}.Defaults()
	p["steps"] = 500
	return suite.RunSpec{Method: name, Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Params: p,
		Protocol: suite.Protocol{ClassSplit: "first", TestFrac: 0.2, Alpha: 1}}
}

// TestDefaultSpecHash: the default spec of every variant, the levers at
// their defaults, hashes as before the levers existed.
func TestDefaultSpecHash(t *testing.T) {
	for _, v := range Variants {
		if h, want := defaultSpec(v.Name).Hash(), defaultSpecHashes[v.Name]; h != want {
			t.Errorf("default %s spec hashes to %s, want %s", v.Name, h, want)
		}
	}
}
