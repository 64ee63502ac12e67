package ugnn

import (
	"testing"

	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/suitetest"
)

// TestResumeSameRun: UGNN and w/o P with the tiny budget (epochs 1–2
// warm-up, 3–4 cycle 1, 5–6 cycle 2), interrupted inside a cycle (after
// epoch 3: the prototypes as its steps moved them are restored) and
// between cycles (after epoch 4: cycle 2's start runs on the restored
// weights), continue to the uninterrupted run's curves and metrics, bit
// for bit.
func TestResumeSameRun(t *testing.T) {
	dir, name, ratio := letterHigh(t)
	for _, method := range []string{"ugnn", "ugnn-wo-p"} {
		t.Run(method, func(t *testing.T) {
			suitetest.CheckResume(t, dir, suite.RunSpec{Method: method, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 1,
				Params: tinyParams(), Protocol: suite.DefaultProtocol()}, 3, 4)
		})
	}
}
