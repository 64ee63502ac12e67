package reports

import (
	"strings"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
)

// columnConfigNotes says, for each row of t whose columns (dataset × ratio)
// were run under different configurations, which fields differ and where,
// e.g. "ugnn, ugnn-wo-s: param.epochs=100 param.warmup_epochs=50 on
// COIL-DEL, Letter-high; param.epochs=20 param.warmup_epochs=10 on
// COLORS-3" — a grid with a smaller `--epochs` budget on the larger
// datasets, say. RowLabels does not split a row on such params, since a
// row compares one method across datasets, so without the note a table
// would not show the budgets it mixes. Fields are named as in the
// mixed-config warning (configFields): protocol fields by name, params as
// "param.NAME", "unset" for a param a cell's runs lack. The numeric ratio is
// not compared (low and high differ by definition), and a field that
// already differs inside one cell is left to that cell's warning. Rows
// with the same note share one line, in row order; labels are the rows'
// display labels. labels are the row keys of rs, index-aligned. The result
// is nil when every row's columns share one configuration.
func columnConfigNotes(t *table.Table, rs []runs.Run, labels []string) []string {
	type cellID struct {
		row string
		col column
	}
	values := map[cellID]map[string]map[string]bool{} // cell → field → values
	for i, r := range rs {
		id := cellID{labels[i], column{r.Spec.Dataset, r.Spec.RatioLabel()}}
		if values[id] == nil {
			values[id] = map[string]map[string]bool{}
		}
		for k, v := range configFields(r.Spec) {
			if k == "ratio" {
				continue
			}
			if values[id][k] == nil {
				values[id][k] = map[string]bool{}
			}
			values[id][k][v] = true
		}
	}
	// Columns in table order, once per (dataset, ratio).
	var cols []column
	for _, c := range t.Columns {
		if col := (column{c.Dataset, c.Ratio}); len(cols) == 0 || cols[len(cols)-1] != col {
			cols = append(cols, col)
		}
	}

	var order []string              // note texts in first-row order
	rowsOf := map[string][]string{} // note text → row labels
	for _, row := range t.Rows {
		var rowCols []column
		fieldSet := map[string]bool{}
		for _, c := range cols {
			if vs, ok := values[cellID{row.Key, c}]; ok {
				rowCols = append(rowCols, c)
				for k := range vs {
					fieldSet[k] = true
				}
			}
		}
		// The fields with one value per cell and several across the row's cells.
		var differ []string
		for _, k := range sortedKeys(fieldSet) {
			seen := map[string]bool{}
			mixedInCell := false
			for _, c := range rowCols {
				vs := values[cellID{row.Key, c}][k]
				if len(vs) > 1 {
					mixedInCell = true
					break
				}
				seen[onlyValue(vs)] = true
			}
			if !mixedInCell && len(seen) > 1 {
				differ = append(differ, k)
			}
		}
		if len(differ) == 0 {
			continue
		}
		// Group the row's columns by their values of the differing fields.
		var groupOrder []string
		groupCols := map[string][]column{}
		for _, c := range rowCols {
			parts := make([]string, len(differ))
			for i, k := range differ {
				parts[i] = k + "=" + onlyValue(values[cellID{row.Key, c}][k])
			}
			g := strings.Join(parts, " ")
			if _, ok := groupCols[g]; !ok {
				groupOrder = append(groupOrder, g)
			}
			groupCols[g] = append(groupCols[g], c)
		}
		groups := make([]string, len(groupOrder))
		for i, g := range groupOrder {
			groups[i] = g + " on " + columnList(groupCols[g], rowCols)
		}
		text := strings.Join(groups, "; ")
		if _, ok := rowsOf[text]; !ok {
			order = append(order, text)
		}
		rowsOf[text] = append(rowsOf[text], row.Label)
	}
	var notes []string
	for _, text := range order {
		notes = append(notes, strings.Join(rowsOf[text], ", ")+": "+text)
	}
	return notes
}

// columnList names cols: a dataset all of whose columns in all are in cols
// by its name alone ("COLORS-3"), otherwise each column as "dataset ratio"
// ("COLORS-3 high").
func columnList(cols, all []column) string {
	in := map[column]bool{}
	for _, c := range cols {
		in[c] = true
	}
	whole := map[string]bool{}
	for _, c := range all {
		if _, ok := whole[c.dataset]; !ok {
			whole[c.dataset] = true
		}
		if !in[c] {
			whole[c.dataset] = false
		}
	}
	var names []string
	for i, c := range cols {
		switch {
		case !whole[c.dataset]:
			names = append(names, c.dataset+" "+c.ratio)
		case i == 0 || cols[i-1].dataset != c.dataset:
			names = append(names, c.dataset)
		}
	}
	return strings.Join(names, ", ")
}

// onlyValue is the single element of a one-element set ("unset" for an
// empty one: a param the cell's runs lack).
func onlyValue(vs map[string]bool) string {
	for v := range vs {
		return v
	}
	return "unset"
}
