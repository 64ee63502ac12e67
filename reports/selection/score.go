package selection

import (
	"fmt"
	"regexp"

	"github.com/ugbench/ugbench/suite"
)

// scoreLabel is the form of a post-hoc scorer's label, e.g. "knn_k10" or
// "mahalanobis_shrink0.5", or "energy_t1e-05" (a parameter in exponent
// form, as the label writes it).
var scoreLabel = regexp.MustCompile(`^[a-z0-9_.+-]+$`)

// ValidScore checks a score name of a selection (a side's score= term, a
// --score): suite.NativeScore or a scorer label of lower-case letters,
// digits, '_', '.', '+' and '-'.
func ValidScore(score string) error {
	if score == suite.NativeScore || scoreLabel.MatchString(score) {
		return nil
	}
	return fmt.Errorf("score %q: want %s or a scorer label of a-z, 0-9, '_', '.', '+' and '-' (msp, knn_k10, energy_t1e-05, …)", score, suite.NativeScore)
}
