package reports

import (
	"fmt"
	"strings"

	"github.com/ugbench/ugbench/reports/table"
)

// The rows a Claim compares beside the baselines: the paper's method, this
// project's UGNN+ (docs/ugnn-plus.md) and GIN-TopK, the baseline of the
// paper's case study and t-SNE figures (§5.4–5.5, Figures 5–6) and the one
// it gains most over in Table 2 (MNIST low: UGNN 0.585, GIN 0.297).
const (
	claimUGNN = "ugnn"
	claimPlus = "ugnn-plus"
	claimGIN  = "gin-topk"
)

// ClaimVerdict is what one column of the accuracy table says of the paper's
// claim (Table 2's caption: UGNN "achieves the best performance"), on the
// means over seeds.
type ClaimVerdict int

// The verdicts, from "nothing to judge" to "refuted".
const (
	// ClaimNoRun: the column has no UGNN cell of ours.
	ClaimNoRun ClaimVerdict = iota
	// ClaimNoBaseline: UGNN ran, but none of the paper's baselines.
	ClaimNoBaseline
	// ClaimHoldsSoFar: UGNN's mean is above every baseline that ran, but
	// some of the paper's baselines have no cell yet.
	ClaimHoldsSoFar
	// ClaimHolds: UGNN's mean is above every one of the paper's
	// baselines.
	ClaimHolds
	// ClaimFails: some baseline's mean is at or above UGNN's.
	ClaimFails
)

// Claim is the paper's claim checked on one column (dataset × ratio) of an
// accuracy table: the paper's UGNN, best baseline and GIN-TopK beside
// ours. A cell is nil where there is no value; the paper's cells have N 0
// (the paper does not say over how many seeds).
type Claim struct {
	Dataset, Ratio string
	// PaperUGNN, PaperBest and PaperGIN are the paper's UGNN, its best
	// baseline in this column (Base names it) and its GIN-TopK.
	PaperUGNN, PaperBest, PaperGIN *table.Cell
	// UGNN, Best, GIN and Plus are ours: UGNN, the best baseline that ran
	// (Base names it), GIN-TopK and UGNN+.
	UGNN, Best, GIN, Plus *table.Cell
	// Baselines is how many baselines the paper has (PaperBaselines, 12);
	// Run is how many of them have a cell of ours in this column, and
	// Above how many of those have a mean at or above UGNN's.
	Baselines, Run, Above int
	// Verdict is what the column says of the claim.
	Verdict ClaimVerdict
}

// PaperBaselines are the paper's Table 2 baselines, by registry name, in
// its row order: the graph kernels, the supervised GNNs, the pooling
// variants and the semi-supervised methods (§5.1.3).
var PaperBaselines = []string{"wl", "sp", "graphlet", "gcn-topk", "sage-topk", "gin-topk", "gin-asap", "gin-sag", "infograph", "graphcl", "gla", "rgcl"}

// Claims checks the paper's claim on every column of acc, an accuracy
// table (AccuracyTable, under any --score: the paper's side reads the
// paper's values of the unscored metric): one Claim per column, in acc's
// order. A method with several rows (configurations) counts by its best
// mean in the column as a baseline, and by the first of its rows with a
// cell in the column as UGNN, UGNN+ or GIN-TopK (so two columns may
// compare different configurations; the cells' Key.Method names them).
// Reference rows (the chance row) count as nothing.
func Claims(acc *table.Table) []Claim {
	out := make([]Claim, 0, len(acc.Columns))
	for j, col := range acc.Columns {
		c := Claim{Dataset: col.Dataset, Ratio: col.Ratio}
		_, metric := SplitScoredMetric(col.Metric) // the paper's values are of its own scores
		paper := func(method string) *table.Cell {
			v, ok := PaperValueOf(metric, table.Key{Method: method, Dataset: col.Dataset, Ratio: col.Ratio})
			if !ok {
				return nil
			}
			return &table.Cell{Key: table.Key{Method: method, Dataset: col.Dataset, Ratio: col.Ratio}, Base: method, Metric: col.Metric, Mean: v.Mean, Std: max(v.Std, 0)}
		}
		c.PaperUGNN, c.PaperGIN = paper(claimUGNN), paper(claimGIN)
		first := map[string]*table.Cell{}
		best := map[string]*table.Cell{}
		for i, row := range acc.Rows {
			cell := acc.Cells[i][j]
			if row.Reference || cell == nil {
				continue
			}
			if first[row.Method] == nil {
				first[row.Method] = cell
			}
			if b := best[row.Method]; b == nil || cell.Mean > b.Mean {
				best[row.Method] = cell
			}
		}
		c.UGNN, c.GIN, c.Plus = first[claimUGNN], first[claimGIN], first[claimPlus]
		c.Baselines = len(PaperBaselines)
		for _, m := range PaperBaselines {
			if p := paper(m); p != nil && (c.PaperBest == nil || p.Mean > c.PaperBest.Mean) {
				c.PaperBest = p
			}
			ours := best[m]
			if ours == nil {
				continue
			}
			c.Run++
			if c.Best == nil || ours.Mean > c.Best.Mean {
				c.Best = ours
			}
			if c.UGNN != nil && ours.Mean >= c.UGNN.Mean {
				c.Above++
			}
		}
		switch {
		case c.UGNN == nil:
			c.Verdict = ClaimNoRun
		case c.Run == 0:
			c.Verdict = ClaimNoBaseline
		case c.Above > 0:
			c.Verdict = ClaimFails
		case c.Run < c.Baselines:
			c.Verdict = ClaimHoldsSoFar
		default:
			c.Verdict = ClaimHolds
		}
		out = append(out, c)
	}
	return out
}

// ClaimsIntro is the text the results document and the HTML report put
// above ClaimsPlain's table.
const ClaimsIntro = `The caption of the paper's Table 2 says UGNN "achieves the best performance"; its own margin over its best baseline is in the third column (negative where a baseline is above it). Here each column of the accuracy table checks it on our means over seeds, against the paper's baselines that have run here (a method with several configurations counts by its best). A margin is the UGNN row's mean minus the other's; UGNN+'s is over our best baseline. "holds so far": above every baseline run, with some not run yet.`

// UGNNClaims is Claims of acc without the columns that have no UGNN value,
// neither ours nor the paper's (a dataset the paper does not have, where
// UGNN has not run): the rows the results document and the HTML report
// show. It is empty when no column has one.
func UGNNClaims(acc *table.Table) []Claim {
	var keep []Claim
	for _, c := range Claims(acc) {
		if c.UGNN != nil || c.PaperUGNN != nil {
			keep = append(keep, c)
		}
	}
	return keep
}

// String says the verdict of c in words, with its counts, e.g. "fails: 3
// of 9 baselines run at or above UGNN".
func (c Claim) String() string {
	switch c.Verdict {
	case ClaimNoRun:
		return "UGNN not run"
	case ClaimNoBaseline:
		return "no baseline run"
	case ClaimHoldsSoFar:
		return fmt.Sprintf("holds so far: above the %d of %d baselines run", c.Run, c.Baselines)
	case ClaimHolds:
		return fmt.Sprintf("holds: above all %d baselines", c.Baselines)
	default:
		return fmt.Sprintf("fails: %d of %d baselines run at or above UGNN", c.Above, c.Run)
	}
}

// ClaimsPlain lays claims out as a plain table, a row per column of the
// accuracy table: the paper's UGNN, best baseline and UGNN − GIN-TopK,
// then ours and the verdict. A baseline's cell names it (through names,
// registry name → display name, as Options.Names; nil: registry names;
// ours with its configuration suffix, e.g. "sage-topk (lr=0.01)") and
// gives UGNN's margin over it, UGNN+'s cell its margin over our best
// baseline; "–" where a value is missing. Margins are signed with a true
// minus sign ("−0.037"), as the header's.
func ClaimsPlain(claims []Claim, names map[string]string) *table.Plain {
	p := &table.Plain{Header: []string{"column", "paper: UGNN", "paper: best baseline", "paper: UGNN − GIN-TopK",
		"ours: UGNN", "ours: best baseline run", "ours: UGNN − GIN-TopK", "ours: UGNN+", "claim on ours"}}
	for _, c := range claims {
		p.Rows = append(p.Rows, []string{
			c.Dataset + " " + c.Ratio,
			table.MeanStdText(c.PaperUGNN), versus(c.PaperBest, c.PaperUGNN, names), margin(c.PaperUGNN, c.PaperGIN),
			table.MeanStdText(c.UGNN), versus(c.Best, c.UGNN, names), margin(c.UGNN, c.GIN), plusVersus(c.Plus, c.Best, names),
			c.String(),
		})
	}
	return p
}

// cellName is the display name of c's row: its registry name through
// names, followed by its configuration suffix if any.
func cellName(c *table.Cell, names map[string]string) string {
	name := c.Base
	if n, ok := names[c.Base]; ok {
		name = n
	}
	if suffix, ok := strings.CutPrefix(c.Method, c.Base); ok {
		return name + suffix
	}
	return name
}

// versus is "name mean±std (UGNN +0.012)" for a baseline cell b against
// ugnn's: the margin is UGNN's mean minus b's, left out when ugnn is nil;
// "–" when b is nil.
func versus(b, ugnn *table.Cell, names map[string]string) string {
	if b == nil {
		return table.MeanStdText(nil)
	}
	text := cellName(b, names) + " " + table.MeanStdText(b)
	if ugnn == nil {
		return text
	}
	return text + " (UGNN " + marginText(ugnn.Mean-b.Mean) + ")"
}

// plusVersus is "mean±std (+0.012 over name)" for UGNN+'s cell against the
// best baseline's (left out when best is nil), "–" when plus is nil.
func plusVersus(plus, best *table.Cell, names map[string]string) string {
	if plus == nil || best == nil {
		return table.MeanStdText(plus)
	}
	return fmt.Sprintf("%s (%s over %s)", table.MeanStdText(plus), marginText(plus.Mean-best.Mean), cellName(best, names))
}

// margin is a's mean minus b's, signed, or "–" when either is missing.
func margin(a, b *table.Cell) string {
	if a == nil || b == nil {
		return table.MeanStdText(nil)
	}
	return marginText(a.Mean - b.Mean)
}

// marginText is x as signed (3 decimals) with a minus sign (U+2212) when
// negative, as the tables' headers write it.
func marginText(x float64) string {
	return strings.Replace(signed(x, 3), "-", "−", 1)
}
