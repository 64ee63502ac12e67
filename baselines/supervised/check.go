package supervised

import "github.com/ugbench/ugbench/suite"

// CheckParams validates the numeric ranges of the row's parameters
// (suite.ParamChecker): steps, curve_every ≥ 0; batch_size, hidden,
// layers, size_chunks ≥ 1; lr > 0; pool_ratio in (0, 1]; att_dropout in
// [0, 1).
func (m backbone) CheckParams(p suite.Params) error {
	return suite.CheckRanges(p, map[string]suite.Range{
		"steps": suite.NonNegative, "curve_every": suite.NonNegative,
		"batch_size": suite.AtLeastOne, "hidden": suite.AtLeastOne, "layers": suite.AtLeastOne, "size_chunks": suite.AtLeastOne,
		"lr": suite.Positive, "pool_ratio": suite.Ratio, "att_dropout": suite.DropRate,
	})
}
