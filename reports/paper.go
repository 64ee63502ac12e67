package reports

import (
	"math"

	"github.com/ugbench/ugbench/reports/table"
)

// PaperValue is one cell of the UGNN paper's tables: the reported mean and
// sample std over seeds (Std < 0: the paper gives none, as in Table 4).
type PaperValue struct{ Mean, Std float64 }

// paperKey is a cell of the paper's tables: registry name, dataset, ratio
// label.
type paperKey struct{ method, dataset, ratio string }

// PaperValueOf returns the paper's value of metric for key (registry name,
// dataset, ratio label "low" or "high"), false if the paper has none.
// Accuracy is Table 2 (and Table 4's "Overall" for the ablation variants),
// ood_f1 Table 3, unknown_acc Table 4's "Unknown".
func PaperValueOf(metric string, key table.Key) (PaperValue, bool) {
	v, ok := paperCells[metric][paperKey{key.Method, key.Dataset, key.Ratio}]
	return v, ok
}

// PaperTable is t's layout filled with the paper's values instead of ours:
// same rows (without the chance row and rows the paper lacks) and columns,
// each cell the paper's mean ± std (Table 4's values, which have no std,
// shown as exact). A row whose label carries a parameter suffix (e.g.
// "gin-topk (lr=0.01)") is matched by its method. It returns nil when the
// paper has no value for any cell of t.
func PaperTable(t *table.Table) *table.Table {
	p := &table.Table{Title: t.Title + " (paper)", Caption: "The UGNN paper's values in the same layout.", Columns: t.Columns}
	any := false
	for _, row := range t.Rows {
		if row.Reference {
			continue
		}
		cells := make([]*table.Cell, len(t.Columns))
		has := false
		for j, col := range t.Columns {
			v, ok := PaperValueOf(col.Metric, table.Key{Method: row.Method, Dataset: col.Dataset, Ratio: col.Ratio})
			if !ok {
				continue
			}
			// N 0: the paper does not say over how many seeds.
			c := &table.Cell{Key: table.Key{Method: row.Key, Dataset: col.Dataset, Ratio: col.Ratio}, Base: row.Method, Metric: col.Metric, Mean: v.Mean, Std: math.Max(v.Std, 0)}
			if v.Std < 0 {
				c.N, c.Exact = 1, true
			}
			cells[j], has = c, true
		}
		if !has {
			continue
		}
		any = true
		p.Rows = append(p.Rows, table.Row{Key: row.Key, Label: row.Label, Method: row.Method, Group: row.Group})
		p.Cells = append(p.Cells, cells)
	}
	if !any {
		return nil
	}
	return p
}
