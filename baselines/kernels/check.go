package kernels

import (
	"fmt"

	"github.com/ugbench/ugbench/suite"
)

// CheckParams validates the kernel's feature-map parameters (Check), the
// norm and the SVM cost C > 0, without computing anything.
func (k *FeatureKernel) CheckParams(p suite.Params) error {
	if err := suite.CheckRanges(p, map[string]suite.Range{"C": suite.Positive}); err != nil {
		return err
	}
	if n, ok := p["norm"].(string); ok && n != "l1" && n != "l2" && n != "none" {
		return fmt.Errorf("norm %q: want l1, l2 or none", n)
	}
	if k.Check == nil {
		return nil
	}
	fp, err := k.featureParams(p)
	if err != nil {
		return err
	}
	return k.Check(fp)
}

// CheckParams validates iterations in [0, 50], norm and C > 0
// (suite.ParamChecker).
func (WL) CheckParams(p suite.Params) error { return wlKernel.CheckParams(p) }

// CheckParams validates norm and C > 0 (suite.ParamChecker).
func (SP) CheckParams(p suite.Params) error { return spKernel.CheckParams(p) }

// CheckParams validates exact_threshold ≥ 0, samples ≥ 1, norm and C > 0
// (suite.ParamChecker).
func (Graphlet) CheckParams(p suite.Params) error { return graphletKernel.CheckParams(p) }
