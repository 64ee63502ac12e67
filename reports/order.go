package reports

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/suite"
)

// defaultMethodOrder is the paper's row order (Tables 2–4) by registry
// name, as the methods registered it (suite.TableOrder): the kernels, the
// GNNs with TopK pooling, the pooling methods, the semi-supervised
// methods, UGNN and its ablation variants. Methods not in it come after,
// sorted by name.
func defaultMethodOrder() []string { return suite.TableOrder() }

// AblationRows are the rows of the ablation table (paper Table 4), in
// table order: the registered methods of families suite.FamilyUGNN and
// suite.FamilyAblation (the full model, then without subgraph-based OOD
// detection (S), prototype-aware semi-supervised learning (P), known-class
// prototypes (KP) and unknown-class prototypes (UP)).
func AblationRows() []string {
	var rows []string
	for _, name := range suite.TableOrder() {
		if info, _ := suite.InfoOf(name); info.Family == suite.FamilyUGNN || info.Family == suite.FamilyAblation {
			rows = append(rows, name)
		}
	}
	return rows
}

// DefaultDatasetOrder is the paper's column order. Datasets not in it come
// after, sorted by name.
func DefaultDatasetOrder() []string {
	return []string{"COIL-DEL", "Letter-high", "MNIST", "CIFAR10", "REDDIT-MULTI-12K", "COLORS-3"}
}

// PaperNames maps the registered methods' registry names to their row
// names in the paper (suite.Info.Row), for Options.Names; methods
// registered without a row name are left out.
func PaperNames() map[string]string {
	names := map[string]string{}
	for _, name := range suite.TableOrder() {
		if info, _ := suite.InfoOf(name); info.Row != "" {
			names[name] = info.Row
		}
	}
	return names
}

// family is the row group of a method (suite.RowGroup): the renderers
// draw a rule between groups; unknown methods share the last.
func family(base string) int { return suite.RowGroup(base) }

// rankFunc returns a function ranking names by order first, then sorted.
func rankFunc(order []string) func(string) int {
	pos := make(map[string]int, len(order))
	for i, name := range order {
		if _, dup := pos[name]; !dup {
			pos[name] = i
		}
	}
	return func(name string) int {
		if p, ok := pos[name]; ok {
			return p
		}
		return len(order)
	}
}

// lessByOrder orders names by their position in order; names not in order
// come after, sorted.
func lessByOrder(order []string) func(a, b string) bool {
	rank := rankFunc(order)
	return func(a, b string) bool {
		ra, rb := rank(a), rank(b)
		if ra != rb {
			return ra < rb
		}
		return a < b
	}
}

// baseOf is the registry name in a row label ("gin-topk (lr=0.01)" →
// "gin-topk").
func baseOf(label string) string {
	base, _, _ := strings.Cut(label, " (")
	return base
}

// lessRowLabel orders row labels by their method's position in order, then
// by label.
func lessRowLabel(order []string) func(a, b string) bool {
	less := lessByOrder(order)
	return func(a, b string) bool {
		ba, bb := baseOf(a), baseOf(b)
		if ba != bb {
			return less(ba, bb)
		}
		return a < b
	}
}

// lessRatio orders ratio labels: low, high, then numbers ascending, then any
// other label sorted.
func lessRatio(a, b string) bool {
	ka, fa := ratioKey(a)
	kb, fb := ratioKey(b)
	if ka != kb {
		return ka < kb
	}
	if ka == 2 && fa != fb {
		return fa < fb
	}
	return a < b
}

func ratioKey(r string) (int, float64) {
	switch r {
	case "low":
		return 0, 0
	case "high":
		return 1, 0
	}
	if f, err := strconv.ParseFloat(r, 64); err == nil && !math.IsNaN(f) {
		return 2, f
	}
	return 3, 0
}

// sortWarnings sorts warnings by row (in methodOrder, nil = default),
// dataset (in datasetOrder, nil = default), ratio and text.
func sortWarnings(ws []table.Warning, methodOrder, datasetOrder []string) {
	if methodOrder == nil {
		methodOrder = defaultMethodOrder()
	}
	if datasetOrder == nil {
		datasetOrder = DefaultDatasetOrder()
	}
	lessRow := lessRowLabel(methodOrder)
	lessDS := lessByOrder(datasetOrder)
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i].Key, ws[j].Key
		if a.Method != b.Method {
			return lessRow(a.Method, b.Method)
		}
		if a.Dataset != b.Dataset {
			return lessDS(a.Dataset, b.Dataset)
		}
		if a.Ratio != b.Ratio {
			return lessRatio(a.Ratio, b.Ratio)
		}
		return ws[i].Text < ws[j].Text
	})
}
