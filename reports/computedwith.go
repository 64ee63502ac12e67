package reports

import (
	"fmt"
	"strings"

	"github.com/ugbench/ugbench/internal/cpukernels"
	"github.com/ugbench/ugbench/runs"
)

// ComputeLabel is what computed a run's numbers, as far as the store
// recorded it: the backend, followed by the pure-Go backend's CPU kernels
// in parentheses, e.g. "go (avx2)" or "xla:cuda"; "" when the run recorded
// no backend. Runs of one config hash agree bit for bit only when their
// labels agree: GoMLX's AVX2 and AVX-512 kernels round sums differently,
// and training follows another trajectory (docs/speed.md, "CPU kernels").
func ComputeLabel(p runs.Provenance) string {
	if p.Backend == "" {
		return ""
	}
	if p.Kernels == "" {
		return p.Backend
	}
	return p.Backend + " (" + p.Kernels + ")"
}

// knownCompute reports whether p says what computed the run: the CPU
// kernels were recorded, or the backend is not GoMLX's pure-Go one (XLA,
// whose label is its backend). A pure-Go run stored before the kernels
// column is not known: its kernels may be either set.
func knownCompute(p runs.Provenance) bool {
	if p.Kernels != "" {
		return true
	}
	return p.Backend != "" && !cpukernels.PureGo(p.Backend)
}

// mixedKernels returns a warning text when the chosen runs of one cell
// were computed by different backends or CPU kernels (ComputeLabel), or
// "". Runs whose kernels are not known (knownCompute) are left out of the
// comparison: they are not known to differ.
func mixedKernels(chosen []*runs.Run) string {
	seeds := map[string][]string{}
	for _, r := range chosen {
		if !knownCompute(r.Provenance) {
			continue
		}
		l := ComputeLabel(r.Provenance)
		seeds[l] = append(seeds[l], PairOf(r.Spec).String())
	}
	if len(seeds) < 2 {
		return ""
	}
	parts := make([]string, 0, len(seeds))
	for _, l := range sortedKeys(seeds) {
		parts = append(parts, l+" for "+strings.Join(seeds[l], ", "))
	}
	return fmt.Sprintf("seeds computed by different kernels (%s); one config agrees bit for bit only under the same kernels",
		strings.Join(parts, "; "))
}

// ComputedWith returns the distinct ComputeLabels of the finished runs in
// rs that say what computed them (knownCompute), sorted; empty when none
// does.
func ComputedWith(rs []runs.Run) []string {
	set := map[string]bool{}
	for _, r := range rs {
		if r.Status == runs.StatusFinished && knownCompute(r.Provenance) {
			set[ComputeLabel(r.Provenance)] = true
		}
	}
	return sortedKeys(set)
}

// kernelsWarning is the warning of a comparison whose two sides were
// computed by different kernels (ComputedWith of each side; a side
// without recorded kernels is not judged), or "". The change between
// such sides is the code's and the kernels' together.
func kernelsWarning(oldName string, old []string, newName string, new []string) string {
	if len(old) == 0 || len(new) == 0 || strings.Join(old, ",") == strings.Join(new, ",") {
		return ""
	}
	return fmt.Sprintf("%s was computed by %s kernels and %s by %s: part of every change may be the kernels' (docs/speed.md, CPU kernels)",
		oldName, strings.Join(old, " and "), newName, strings.Join(new, " and "))
}
