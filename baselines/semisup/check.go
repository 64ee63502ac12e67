package semisup

import "github.com/ugbench/ugbench/suite"

// backboneRanges are the valid ranges of the shared backbone parameters,
// as newNet checks them.
var backboneRanges = map[string]suite.Range{
	"steps": suite.NonNegative, "curve_every": suite.NonNegative,
	"batch_size": suite.AtLeastOne, "unlabelled_batch_size": {Min: 2, Max: suite.NonNegative.Max},
	"hidden": suite.AtLeastOne, "layers": suite.AtLeastOne, "size_chunks": suite.AtLeastOne,
	"lr": suite.Positive, "pool_ratio": suite.Ratio,
}

// checkRanges checks p against the backbone's ranges and extra.
func checkRanges(p suite.Params, extra map[string]suite.Range) error {
	if err := suite.CheckRanges(p, backboneRanges); err != nil {
		return err
	}
	return suite.CheckRanges(p, extra)
}

// CheckParams validates the backbone's ranges and tau, pretrain_lr > 0,
// pretrain_epochs ≥ 0, aug_ratio1/2 in [0, 1] (suite.ParamChecker).
func (graphCL) CheckParams(p suite.Params) error {
	return checkRanges(p, map[string]suite.Range{"tau": suite.Positive, "pretrain_lr": suite.Positive,
		"pretrain_epochs": suite.NonNegative, "aug_ratio1": suite.UnitInterval, "aug_ratio2": suite.UnitInterval})
}

// CheckParams validates the backbone's ranges and lambda ≥ 0
// (suite.ParamChecker).
func (infoGraph) CheckParams(p suite.Params) error {
	return checkRanges(p, map[string]suite.Range{"lambda": suite.NonNegative})
}

// CheckParams validates the backbone's ranges and GLA's as newGLARun
// checks them (suite.ParamChecker).
func (gla) CheckParams(p suite.Params) error {
	return checkRanges(p, map[string]suite.Range{"candidates": suite.AtLeastOne, "eta": suite.Positive, "tau": suite.Positive,
		"radius_std": suite.NonNegative, "max_redraws": suite.NonNegative, "lr_unlabelled_factor": suite.Positive,
		"lr_decay_factor": suite.Positive, "lr_decay_step": suite.AtLeastOne})
}

// CheckParams validates the backbone's ranges and RGCL's as its Fit checks
// them (suite.ParamChecker).
func (rgcl) CheckParams(p suite.Params) error {
	return checkRanges(p, map[string]suite.Range{"pretrain_epochs": suite.NonNegative, "rho": suite.Ratio, "tau": suite.Positive,
		"cp_weight": suite.NonNegative, "explainer_layers": suite.AtLeastOne, "explainer_hidden": suite.AtLeastOne,
		"explainer_temp": suite.Positive, "weight_floor": suite.UnitInterval, "prob_eps": suite.Positive,
		"min_drop": suite.NonNegative, "pretrain_lr": suite.Positive, "explainer_lr_factor": suite.Positive})
}
