package datasets

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Format values of Info.Format: how a dataset is stored on disk.
const (
	// FormatTU is the TU text format read by LoadTU.
	FormatTU = "tu"
	// FormatSuperpixel marks image datasets (MNIST, CIFAR10) whose
	// superpixel graphs are built from raw images (docs/datasets.md).
	FormatSuperpixel = "superpixel"
)

// Info is the protocol entry of one dataset (docs/protocol.md §1 table) together
// with the statistics that the paper's Table 1 reports for it.
type Info struct {
	// Name is the dataset name as used on disk and on the command line.
	Name string
	// Classes is the total number of classes |C|.
	Classes int
	// Known is the number of known classes |C^l|; the other Classes-Known
	// are unknown.
	Known int
	// Low and High are the default labelled ratios (fraction of each known
	// class that is labelled), in (0, 1].
	Low, High float64
	// InPaper is true for the six datasets of the UGNN paper; the others
	// are extra test fixtures with protocol values of our choosing.
	InPaper bool
	// Format is FormatTU or FormatSuperpixel.
	Format string
	// NodeFeature describes the node features, e.g. "2-d coordinates (x, y)".
	NodeFeature string
	// PaperGraphs, PaperClasses, PaperAvgNodes and PaperAvgEdges are the
	// paper's Table 1 (number of graphs, classes, average nodes and edges
	// per graph); all zero when InPaper is false. The paper's MNIST/CIFAR10
	// edge counts are directed kNN edges; the others count each undirected
	// edge once.
	PaperGraphs   int
	PaperClasses  int
	PaperAvgNodes float64
	PaperAvgEdges float64
	// Steps is the protocol's supervised step budget on this dataset: the
	// number of optimizer steps on labelled batches that every GNN method
	// takes (UGNN's warm-up counted in), chosen from measured curves
	// (docs/protocol.md §5). 0 means DefaultSteps.
	Steps int
}

// DefaultSteps is the supervised step budget of a dataset whose entry sets
// none: not measured (docs/protocol.md §5 says how to measure it), between
// Letter-high's 500 and COIL-DEL's 5,000.
const DefaultSteps = 2000

// StepBudget is the dataset's supervised step budget: Steps, or
// DefaultSteps when it is 0.
func (i Info) StepBudget() int {
	if i.Steps > 0 {
		return i.Steps
	}
	return DefaultSteps
}

// Unknown is the number of unknown classes, Classes - Known.
func (i Info) Unknown() int { return i.Classes - i.Known }

// infos lists the paper's datasets in the paper's order, then the extra
// fixtures.
var infos = []Info{
	{Name: "COIL-DEL", Classes: 100, Known: 80, Low: 0.50, High: 0.80, InPaper: true, Format: FormatTU,
		NodeFeature: "2-d coordinates (x, y)", PaperGraphs: 3900, PaperClasses: 100, PaperAvgNodes: 21.54, PaperAvgEdges: 54.24,
		Steps: 5000},
	{Name: "Letter-high", Classes: 15, Known: 10, Low: 0.20, High: 0.40, InPaper: true, Format: FormatTU,
		NodeFeature: "2-d coordinates (x, y)", PaperGraphs: 2250, PaperClasses: 15, PaperAvgNodes: 4.67, PaperAvgEdges: 4.50,
		Steps: 500},
	{Name: "MNIST", Classes: 10, Known: 7, Low: 0.01, High: 0.03, InPaper: true, Format: FormatSuperpixel,
		NodeFeature: "superpixel mean intensity + centroid (row, col)", PaperGraphs: 55000, PaperClasses: 10, PaperAvgNodes: 70.6, PaperAvgEdges: 564.5,
		Steps: 2000}, // measured 2026-11-26 (docs/protocol.md §5): gin-topk at the high ratio plateaus at ~2,000 steps
	{Name: "CIFAR10", Classes: 10, Known: 7, Low: 0.30, High: 0.70, InPaper: true, Format: FormatSuperpixel,
		NodeFeature: "superpixel mean RGB + centroid (row, col)", PaperGraphs: 45000, PaperClasses: 10, PaperAvgNodes: 117.6, PaperAvgEdges: 941.2,
		Steps: 4000}, // measured 2026-11-27 (docs/protocol.md §5): three of four curves plateau by ~3,300 steps, gin-topk high still climbs slowly at 4,000
	{Name: "REDDIT-MULTI-12K", Classes: 11, Known: 7, Low: 0.30, High: 0.70, InPaper: true, Format: FormatTU,
		NodeFeature: "none: [1, degree]", PaperGraphs: 11929, PaperClasses: 11, PaperAvgNodes: 391.41, PaperAvgEdges: 456.89},
	{Name: "COLORS-3", Classes: 11, Known: 7, Low: 0.30, High: 0.80, InPaper: true, Format: FormatTU,
		NodeFeature: "4-d colour one-hot", PaperGraphs: 10500, PaperClasses: 11, PaperAvgNodes: 61.31, PaperAvgEdges: 91.03,
		Steps: 2000}, // measured 2026-11-26 (docs/protocol.md §5): every curve peaks or plateaus by ~1,700 steps

	{Name: "Letter-low", Classes: 15, Known: 10, Low: 0.20, High: 0.40, Format: FormatTU, NodeFeature: "2-d coordinates (x, y)"},
	{Name: "Letter-med", Classes: 15, Known: 10, Low: 0.20, High: 0.40, Format: FormatTU, NodeFeature: "2-d coordinates (x, y)"},
	{Name: "COIL-RAG", Classes: 100, Known: 80, Low: 0.50, High: 0.80, Format: FormatTU, NodeFeature: "64-d colour histogram"},
	{Name: "IMDB-BINARY", Classes: 2, Known: 1, Low: 0.30, High: 0.70, Format: FormatTU, NodeFeature: "none: [1, degree]"},
	{Name: "IMDB-MULTI", Classes: 3, Known: 2, Low: 0.30, High: 0.70, Format: FormatTU, NodeFeature: "none: [1, degree]"},
}

// numPaper is the number of paper datasets at the head of infos.
const numPaper = 6

// LookupInfo returns the protocol entry of the named dataset (exact,
// case-sensitive name) and whether there is one.
func LookupInfo(name string) (Info, bool) {
	for _, in := range infos {
		if in.Name == name {
			return in, true
		}
	}
	return lookupUserInfo(name) // a user's dataset.json (RegisterUserDatasets)
}

// PaperDatasets returns the six datasets of the UGNN paper in the paper's
// order: COIL-DEL, Letter-high, MNIST, CIFAR10, REDDIT-MULTI-12K, COLORS-3.
// The slice is a fresh copy.
func PaperDatasets() []Info {
	return append([]Info(nil), infos[:numPaper]...)
}

// AllInfos returns every dataset with a protocol entry: the paper's six (in
// the paper's order), then the extra fixtures. The slice is a fresh copy.
func AllInfos() []Info {
	return append([]Info(nil), infos...)
}

// ResolveRatio turns a ratio given on the command line into a number: "low"
// or "high" (case-insensitive) give the dataset's default from its Info,
// named "low"/"high"; any other value must be a number in (0, 1] and is
// named by its shortest decimal form (e.g. "0.25"). Errors name the value
// (and the dataset, for low/high on a dataset without a protocol entry).
func ResolveRatio(name, s string) (ratioName string, ratio float64, err error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "low", "high":
		info, ok := LookupInfo(name)
		if !ok {
			return "", 0, fmt.Errorf("ratio %q: dataset %q has no protocol entry with low/high ratios; give a number in (0, 1]", s, name)
		}
		if v == "low" {
			return "low", info.Low, nil
		}
		return "high", info.High, nil
	}
	r, perr := strconv.ParseFloat(v, 64)
	if perr != nil || math.IsNaN(r) || r <= 0 || r > 1 {
		return "", 0, fmt.Errorf("ratio %q: want \"low\", \"high\" or a number in (0, 1]", s)
	}
	return strconv.FormatFloat(r, 'g', -1, 64), r, nil
}

// OrderNames orders dataset names as the paper does: its six datasets in
// the paper's order first, then the others sorted.
func OrderNames(names []string) []string {
	rank := map[string]int{}
	for i, in := range infos {
		rank[in.Name] = i
	}
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(a, b int) bool {
		ra, okA := rank[out[a]]
		rb, okB := rank[out[b]]
		switch {
		case okA && okB:
			return ra < rb
		case okA != okB:
			return okA
		}
		return out[a] < out[b]
	})
	return out
}
