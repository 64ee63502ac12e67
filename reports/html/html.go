// Package html writes a database's results as one self-contained static
// HTML page (bench report html): the provenance and protocol, the
// warnings, the paper's Tables 2–4 with the paper's value and the
// difference beside each cell, the closed-set accuracy, OOD AUROC and
// epoch-time tables, the rows × unknown-scores tables, the sensitivity
// tables and their Figure 4 panels, training curves and t-SNE panels
// (Figure 6) as inline SVG, and per cell a drill-down to its runs.
//
// It computes no number of its own: the tables are package reports'
// builders (the ones bench report prints), rendered by table.RenderHTML,
// and the figures package figures' drawings. Every table names the bench
// report command whose CSV holds its numbers. The page loads nothing (no
// network, no framework); a few lines of vanilla JavaScript switch the
// unknown score and the scorers' metric, sort a table by a column and open
// a cell's runs, and the page reads well without them.
package html

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	stdhtml "html"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/figures"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
	"gonum.org/v1/plot"
)

// Input is what Write puts on the page.
type Input struct {
	// Runs are the selected runs of the database, every status, as bench
	// report loads them: the tables aggregate the finished ones, the
	// others explain missing seeds and appear in the drill-downs.
	Runs []runs.Run
	// Options select and name the tables' rows as for bench report
	// (Score is ignored: the page shows every score).
	Options reports.Options
	// DB is the database as the command line named it (--db).
	DB string
	// SelectionArgs are the bench report flags of the selection, each
	// "--flag=value" (or "--param", "k=v"), added to every table's command
	// (but --methods to a sensitivity table's, which names its method).
	SelectionArgs []string
	// Command is the command line that wrote the page.
	Command string
	// Generated, when not "", says when the page was written.
	Generated string
	// Sens are the runs of sensitivity grids (--sensitivity-db), SensDBs
	// their databases: one Figure 4 table and panel per method and swept
	// parameter.
	Sens    []runs.Run
	SensDBs []string
	// Curves are the per-epoch curve points of runs by id (runs.Store's
	// Curves); nil for no curves section. CurveNames are the curves drawn
	// (nil = DefaultCurveNames), one panel per name and ratio.
	Curves     map[int64][]suite.CurvePoint
	CurveNames []string
	// Embeddings returns a run's stored test embeddings
	// (runs.Store.Embeddings); nil for no t-SNE section. TSNERuns is the
	// most t-SNE panels drawn (at most figures.MaxTSNERuns), TSNE their
	// configuration.
	Embeddings func(id int64) (*suite.Embeddings, error)
	TSNERuns   int
	TSNE       figures.TSNEConfig
}

// DefaultCurveNames are the curves the page draws unless told otherwise:
// the training loss every trained method logs.
func DefaultCurveNames() []string { return []string{"loss"} }

// ScorerMetrics are the metrics of the rows × scores tables, in page
// order; those no run stores are left out. closed_acc is not among them,
// nor switched by score in its own table: the classifier alone, it is the
// same under every score.
func ScorerMetrics() []string {
	return []string{suite.MetricAccuracy, suite.MetricOODAUROC, suite.MetricOODF1,
		"h_score", "oscr", suite.MetricFPR95, suite.PrefixDU + suite.MetricAccuracy, suite.PrefixDU + suite.MetricOODAUROC}
}

var esc = stdhtml.EscapeString

// page accumulates the sections.
type page struct {
	in       Input
	body     bytes.Buffer
	toc      []tocEntry
	warnings []string // distinct, in order of appearance
	seenWarn map[string]bool
	cellIDs  map[cellKey]string // drill-down id of each cell's runs
	scores   []string
	nTables  int
}

type tocEntry struct{ id, title string }

type cellKey struct{ row, dataset, ratio string }

// Write writes the page of in to w.
func Write(w io.Writer, in Input) error {
	p := &page{in: in, seenWarn: map[string]bool{}, cellIDs: map[cellKey]string{}}
	p.scores = reports.Scorers(in.Runs)
	p.indexRuns()
	if err := p.tables(); err != nil {
		return err
	}
	if err := p.scorers(); err != nil {
		return err
	}
	if err := p.sensitivity(); err != nil {
		return err
	}
	if err := p.curves(); err != nil {
		return err
	}
	if err := p.tsne(); err != nil {
		return err
	}
	p.runsSection()
	return p.write(w)
}

// section starts a section with a heading and a table-of-contents entry.
func (p *page) section(id, title string) {
	p.toc = append(p.toc, tocEntry{id, title})
	fmt.Fprintf(&p.body, "<section id=\"%s\">\n<h2>%s</h2>\n", id, esc(title))
}

func (p *page) endSection() { p.body.WriteString("</section>\n") }

// command is the shell form of bench report args with the database and
// the selection, as the page shows it.
func (p *page) command(db string, args []string) []string {
	out := append([]string{"report"}, args...)
	out = append(out, "--db", db)
	for _, a := range p.in.SelectionArgs {
		// A sensitivity table is one method's: its command names it.
		if args[0] == "sensitivity" && strings.HasPrefix(a, "--methods=") {
			continue
		}
		out = append(out, a)
	}
	return out
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// table writes one table: the table, the command whose CSV holds its
// numbers, its notes and warnings. args are bench report's arguments
// (without --db and the selection); link adds the drill-down links.
func (p *page) table(t *table.Table, db string, args []string, paper bool, link bool) error {
	cmd := p.command(db, args)
	argsJSON, _ := json.Marshal(cmd)
	opts := table.HTMLOptions{Attrs: ` data-args="` + esc(string(argsJSON)) + `"`}
	if paper {
		opts.Paper = reports.PaperTable(t)
	}
	if link {
		opts.Link = func(i, j int) string {
			c := t.Cells[i][j]
			if id, ok := p.cellIDs[cellKey{c.Method, c.Dataset, c.Ratio}]; ok && !t.Rows[i].Reference {
				return "#" + id
			}
			return ""
		}
	}
	p.nTables++
	p.body.WriteString(`<div class="scroll">` + "\n")
	if err := table.RenderHTML(&p.body, t, opts); err != nil {
		return err
	}
	p.body.WriteString("</div>\n")
	fmt.Fprintf(&p.body, "<p class=\"cmd\">CSV: <code>bench %s --format csv</code></p>\n", esc(shellJoin(cmd)))
	if len(t.Notes)+len(t.Warnings) > 0 {
		p.body.WriteString("<ul class=\"notes\">\n")
		for _, n := range t.Notes {
			fmt.Fprintf(&p.body, "<li class=\"note\">note: %s</li>\n", esc(n))
		}
		for _, w := range t.Warnings {
			fmt.Fprintf(&p.body, "<li class=\"warn\">warning: %s</li>\n", esc(w.String()))
		}
		p.body.WriteString("</ul>\n")
	}
	return nil
}

// addWarnings collects t's warnings for the summary at the top.
func (p *page) addWarnings(t *table.Table) {
	for _, w := range t.Warnings {
		if s := w.String(); !p.seenWarn[s] {
			p.seenWarn[s] = true
			p.warnings = append(p.warnings, s)
		}
	}
}

func hasValues(t *table.Table) bool {
	for _, row := range t.Cells {
		for _, c := range row {
			if c != nil {
				return true
			}
		}
	}
	return false
}

// tables writes the paper's Tables 2–4 and the tables beyond the paper,
// each under every unknown score the runs store.
func (p *page) tables() error {
	specs := []struct {
		id, title, text string
		args            []string
		build           func(opts reports.Options) *table.Table
		paper, scored   bool
	}{
		{"accuracy", "Classification accuracy (paper Table 2)", "Accuracy on the test set (docs/protocol.md §4): known graphs predicted as their class, unknown graphs flagged unknown.",
			[]string{"accuracy"}, func(o reports.Options) *table.Table { return reports.AccuracyTable(p.in.Runs, o) }, true, true},
		{"f1", "OOD detection F1 (paper Table 3)", "F1 of flagging unknown-class test graphs (positive = unknown).",
			[]string{"f1"}, func(o reports.Options) *table.Table { return reports.F1Table(p.in.Runs, o) }, true, true},
		{"ablation", "Ablation (paper Table 4)", "UGNN and its ablation variants: Overall = accuracy, Unknown = unknown_acc (the paper gives no std here).",
			[]string{"ablation"}, func(o reports.Options) *table.Table { return reports.AblationTable(p.in.Runs, o) }, true, true},
		{"closed", "Closed-set accuracy (beyond the paper)", "The classifier alone: known-class test graphs predicted as their class, whatever the unknown score says.",
			[]string{"metric", suite.MetricClosedAcc}, func(o reports.Options) *table.Table { return reports.MetricTable(p.in.Runs, suite.MetricClosedAcc, o) }, false, false},
		{"auroc", "OOD AUROC (beyond the paper)", "AUROC of the unknown score on the test set; independent of the threshold.",
			[]string{"metric", suite.MetricOODAUROC}, func(o reports.Options) *table.Table { return reports.MetricTable(p.in.Runs, suite.MetricOODAUROC, o) }, false, true},
		{"epoch", "Median epoch time (seconds)", "Wall seconds per epoch (median over a run's epochs), on the machines of the provenance; lower is better.",
			[]string{"metric", suite.EpochSecondsMetric}, func(o reports.Options) *table.Table {
				return reports.MetricTable(reports.MethodsWithMetric(p.in.Runs, suite.EpochSecondsMetric), suite.EpochSecondsMetric, o)
			}, false, false},
	}
	for _, s := range specs {
		scores := []string{reports.NativeScore}
		if s.scored {
			scores = p.scores
		}
		type view struct {
			score string
			t     *table.Table
		}
		var views []view
		for _, score := range scores {
			o := p.in.Options
			o.Score = ""
			if score != reports.NativeScore {
				o.Score = score
			}
			t := s.build(o)
			if len(t.Rows) == 0 || len(t.Columns) == 0 || !hasValues(t) {
				continue
			}
			views = append(views, view{score, t})
		}
		if len(views) == 0 || views[0].score != reports.NativeScore {
			continue
		}
		p.section(s.id, s.title)
		fmt.Fprintf(&p.body, "<p>%s</p>\n", esc(s.text))
		p.addWarnings(views[0].t)
		for _, v := range views {
			args := s.args
			if v.score != reports.NativeScore {
				args = append(slices.Clone(args), "--score", v.score)
			}
			hidden := ""
			if v.score != reports.NativeScore {
				hidden = ` hidden="hidden"`
			}
			if len(scores) > 1 {
				fmt.Fprintf(&p.body, "<div class=\"score-view\" data-score=\"%s\"%s>\n<p class=\"score\">Unknown score: <b>%s</b></p>\n", esc(v.score), hidden, esc(v.score))
			}
			if err := p.table(v.t, p.in.DB, args, s.paper, true); err != nil {
				return err
			}
			if len(scores) > 1 {
				p.body.WriteString("</div>\n")
			}
		}
		p.endSection()
		if s.id == "accuracy" {
			p.claims(views[0].t)
		}
	}
	return nil
}

// claims writes the paper's Table 2 claim checked column by column
// (reports.UGNNClaims) on acc, the native-score accuracy table, nothing
// when no column has a UGNN value of ours or of the paper's.
func (p *page) claims(acc *table.Table) {
	claims := reports.UGNNClaims(acc)
	if len(claims) == 0 {
		return
	}
	p.section("claims", "The paper's claim, column by column")
	fmt.Fprintf(&p.body, "<p>%s</p>\n", esc(reports.ClaimsIntro))
	pl := reports.ClaimsPlain(claims, p.in.Options.Names)
	cmd := p.command(p.in.DB, []string{"claims"})
	args, _ := json.Marshal(cmd)
	fmt.Fprintf(&p.body, "<div class=\"scroll\"><table class=\"claims\" data-args=\"%s\">\n<thead><tr>", esc(string(args)))
	for _, h := range pl.Header {
		fmt.Fprintf(&p.body, "<th>%s</th>", esc(h))
	}
	p.body.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range pl.Rows {
		p.body.WriteString("<tr>")
		for _, c := range row {
			fmt.Fprintf(&p.body, "<td>%s</td>", esc(c))
		}
		p.body.WriteString("</tr>\n")
	}
	p.body.WriteString("</tbody></table></div>\n")
	fmt.Fprintf(&p.body, "<p class=\"cmd\">CSV: <code>bench %s --format csv</code></p>\n", esc(shellJoin(cmd)))
	p.endSection()
}

// scorers writes the rows × unknown-scores tables (bench report scorers),
// one per metric some run stores, with a switch between the metrics.
func (p *page) scorers() error {
	if len(p.scores) < 2 {
		return nil
	}
	type view struct {
		metric string
		t      *table.Table
	}
	var views []view
	for _, m := range ScorerMetrics() {
		t := reports.ScorersTable(p.in.Runs, m, p.in.Options)
		if len(t.Rows) == 0 || len(t.Columns) == 0 || !hasValues(t) {
			continue
		}
		views = append(views, view{m, t})
	}
	if len(views) == 0 {
		return nil
	}
	p.section("scorers", "Unknown scores")
	fmt.Fprintf(&p.body, "<p>Each row's classifier under every unknown score of its runs (docs/protocol.md §4.1): native is the method's own, the others (%s) are post-hoc scorers fitted on D<sup>l</sup>, put through the same threshold rule. Columns are dataset-ratio × score; the best score of each row and column group is marked.</p>\n",
		esc(strings.Join(p.scores[1:], ", ")))
	p.body.WriteString(`<p class="switch"><label>Metric: <select class="metric-switch" data-group="scorers">`)
	for _, v := range views {
		fmt.Fprintf(&p.body, `<option value="%s">%s</option>`, esc(v.metric), esc(v.metric))
	}
	p.body.WriteString("</select></label></p>\n")
	for i, v := range views {
		hidden := ""
		if i > 0 {
			hidden = ` hidden="hidden"`
		}
		fmt.Fprintf(&p.body, "<div class=\"metric-view\" data-group=\"scorers\" data-metric=\"%s\"%s>\n<h3>%s</h3>\n", esc(v.metric), hidden, esc(v.metric))
		if i == 0 {
			p.addWarnings(v.t)
		}
		if err := p.table(v.t, p.in.DB, []string{"scorers", "--metric", v.metric}, false, true); err != nil {
			return err
		}
		p.body.WriteString("</div>\n")
	}
	p.endSection()
	return nil
}

// sensitivity writes a Figure 4 table and panel per method and swept
// parameter of the sensitivity runs.
func (p *page) sensitivity() error {
	if len(p.in.Sens) == 0 {
		return nil
	}
	var done []runs.Run
	methods := map[string]bool{}
	for _, r := range p.in.Sens {
		if r.Status == runs.StatusFinished {
			done = append(done, r)
			methods[r.Spec.Method] = true
		}
	}
	if len(done) == 0 {
		return nil
	}
	p.section("sensitivity", "Sensitivity (paper Figure 4)")
	fmt.Fprintf(&p.body, "<p>Accuracy against one parameter at a time, every other parameter at its default; from %d finished runs of %s.</p>\n<ul class=\"prov\">\n",
		len(done), esc(strings.Join(p.in.SensDBs, ", ")))
	for _, l := range reports.ProvenanceLines(done) {
		fmt.Fprintf(&p.body, "<li>%s</li>\n", codeSpans(l))
	}
	p.body.WriteString("</ul>\n")
	db := strings.Join(p.in.SensDBs, ",")
	opts := p.in.Options
	opts.Score, opts.Methods = "", nil
	for _, m := range slices.Sorted(maps.Keys(methods)) {
		for _, param := range reports.SweptParams(p.in.Sens, m) {
			t, err := reports.SensitivityTable(p.in.Sens, m, param, suite.MetricAccuracy, opts)
			if err != nil {
				fmt.Fprintf(&p.body, "<h3>%s against %s</h3>\n<p class=\"warn\">%s</p>\n", esc(m), esc(param), esc(err.Error()))
				continue
			}
			fmt.Fprintf(&p.body, "<h3>%s against %s</h3>\n", esc(m), esc(param))
			p.addWarnings(t)
			if pl, err := figures.SensitivityPlot(t); err == nil {
				if err := p.figure([]*plot.Plot{pl}, 1, fmt.Sprintf("%s: accuracy against %s", m, param)); err != nil {
					return err
				}
			}
			if err := p.table(t, db, []string{"sensitivity", param, "--methods", m}, false, false); err != nil {
				return err
			}
		}
	}
	p.endSection()
	return nil
}

// figure inlines panels as one SVG figure.
func (p *page) figure(panels []*plot.Plot, cols int, caption string) error {
	var buf bytes.Buffer
	if err := figures.WritePlots(&buf, panels, cols, ".svg"); err != nil {
		return err
	}
	svg := buf.String()
	i := strings.Index(svg, "<svg")
	if i < 0 {
		return fmt.Errorf("figure %s: no <svg> element", caption)
	}
	svg = strings.TrimSpace(svg[i:])
	svg = `<svg role="img" aria-label="` + esc(caption) + `"` + svg[len("<svg"):]
	fmt.Fprintf(&p.body, "<figure>\n%s\n<figcaption>%s</figcaption>\n</figure>\n", svg, esc(caption))
	return nil
}

// legendRoom is the width added right of a curve panel's lines for its
// legend, as a fraction of the epochs' range.
const legendRoom = 0.45

// curves draws the training curves: per dataset, a panel per curve name
// and ratio with a line per row (mean over the finished runs, ± std band).
func (p *page) curves() error {
	if p.in.Curves == nil {
		return nil
	}
	names := p.in.CurveNames
	if names == nil {
		names = DefaultCurveNames()
	}
	if len(names) == 0 {
		return nil
	}
	cols := columnsOf(reports.AccuracyTable(p.in.Runs, p.in.Options))
	started := false
	for _, ds := range datasetsOf(cols) {
		var panels []*plot.Plot
		var ratios []string
		for _, name := range names {
			for _, c := range cols {
				if c.dataset != ds {
					continue
				}
				var rs []runs.Run
				has := false
				for _, r := range p.in.Runs {
					if r.Status == runs.StatusFinished && r.Spec.Dataset == ds && r.Spec.RatioLabel() == c.ratio {
						rs = append(rs, r)
						for _, pt := range p.in.Curves[r.ID] {
							has = has || pt.Name == name
						}
					}
				}
				if !has {
					continue
				}
				cp, err := reports.CurvePanels(rs, p.in.Curves, []string{name})
				if err != nil {
					return err
				}
				for i := range cp {
					cp[i].Series = slices.DeleteFunc(cp[i].Series, func(s reports.CurveSeries) bool { return len(s.Epochs) == 0 })
					for j := range cp[i].Series {
						cp[i].Series[j].Label = strings.TrimSuffix(cp[i].Series[j].Label, " · "+ds+" · "+c.ratio)
					}
				}
				pls, err := figures.CurvePlots(cp, "epoch")
				if err != nil {
					return err
				}
				for _, pl := range pls {
					pl.Title.Text = name + " · " + ds + " " + c.ratio
					// Room at the right for the legend, beside the lines
					// rather than on them.
					pl.X.Max += legendRoom * (pl.X.Max - pl.X.Min)
				}
				panels = append(panels, pls...)
				if !slices.Contains(ratios, c.ratio) {
					ratios = append(ratios, c.ratio)
				}
			}
		}
		if len(panels) == 0 {
			continue
		}
		if !started {
			p.section("curves", "Training curves")
			fmt.Fprintf(&p.body, "<p>Per dataset and ratio, each row's %s per epoch: the mean over its finished runs, with a band of ± the sample std (bench plot curves).</p>\n", esc(strings.Join(names, ", ")))
			started = true
		}
		fmt.Fprintf(&p.body, "<h3>%s</h3>\n", esc(ds))
		if err := p.figure(panels, len(ratios), fmt.Sprintf("%s on %s (%s), mean ± std over runs", strings.Join(names, ", "), ds, strings.Join(ratios, ", "))); err != nil {
			return err
		}
	}
	if started {
		p.endSection()
	}
	return nil
}

// tsne draws the t-SNE panels (paper Figure 6) of up to TSNERuns runs:
// per (dataset, ratio) column in table order, UGNN's and then every other
// row's first finished run (lowest split seed, then seed) with stored
// embeddings.
func (p *page) tsne() error {
	if p.in.Embeddings == nil || p.in.TSNERuns <= 0 {
		return nil
	}
	want := min(p.in.TSNERuns, figures.MaxTSNERuns)
	var chosen []runs.Run
	// Column by column, UGNN (the paper's method) first, then the rows in
	// table order: the panels compare methods on one dataset first.
	gs := p.groups()
	colRank := map[col]int{}
	for _, g := range gs {
		if _, ok := colRank[col{g.key.dataset, g.key.ratio}]; !ok {
			colRank[col{g.key.dataset, g.key.ratio}] = len(colRank)
		}
	}
	slices.SortStableFunc(gs, func(a, b group) int {
		ua, ub := a.key.row != "ugnn", b.key.row != "ugnn"
		return cmp.Or(cmp.Compare(colRank[col{a.key.dataset, a.key.ratio}], colRank[col{b.key.dataset, b.key.ratio}]), cmpBool(ua, ub))
	})
	for _, g := range gs {
		if len(chosen) == want {
			break
		}
		var first *runs.Run
		for i := range g.runs {
			r := &g.runs[i]
			if r.Status == runs.StatusFinished && (first == nil || seedLess(*r, *first)) {
				first = r
			}
		}
		if first == nil {
			continue
		}
		if _, err := p.in.Embeddings(first.ID); errors.Is(err, runs.ErrNoEmbeddings) {
			continue
		} else if err != nil {
			return err
		}
		chosen = append(chosen, *first)
	}
	if len(chosen) == 0 {
		return nil
	}
	p.section("tsne", "t-SNE of the test embeddings (paper Figure 6)")
	defer p.endSection()
	pls, err := figures.TSNEPlots(chosen, p.in.Embeddings, p.in.TSNE)
	if err != nil {
		// A map that cannot be drawn (a test set smaller than the
		// perplexity, say) costs the figure, not the page.
		fmt.Fprintf(&p.body, "<p class=\"warn\">No t-SNE figure: %s</p>\n", esc(err.Error()))
		return nil
	}
	fmt.Fprintf(&p.body, "<p>Each panel maps one run's test-graph embeddings to 2-D (t-SNE, perplexity %g, %d iterations, seed %d): known classes in colour, unknown-class graphs in grey (bench plot tsne).</p>\n",
		p.in.TSNE.Perplexity, p.in.TSNE.Iterations, p.in.TSNE.Seed)
	return p.figure(pls, 2, "t-SNE of the test embeddings")
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func seedLess(a, b runs.Run) bool {
	return cmp.Or(cmp.Compare(a.Spec.SplitSeed, b.Spec.SplitSeed), cmp.Compare(a.Spec.Seed, b.Spec.Seed), cmp.Compare(a.ID, b.ID)) < 0
}

type col struct{ dataset, ratio string }

// columnsOf are t's (dataset, ratio) columns in order.
func columnsOf(t *table.Table) []col {
	var out []col
	for _, c := range t.Columns {
		k := col{c.Dataset, c.Ratio}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func datasetsOf(cols []col) []string {
	var out []string
	for _, c := range cols {
		if !slices.Contains(out, c.dataset) {
			out = append(out, c.dataset)
		}
	}
	return out
}

// group is the runs of one cell (row label, dataset, ratio).
type group struct {
	key  cellKey
	id   string
	runs []runs.Run
}

// groups are the runs by cell, in the tables' order: rows as the
// accuracy table orders them, then columns.
func (p *page) groups() []group {
	labels := reports.RowLabels(p.in.Runs)
	by := map[cellKey][]runs.Run{}
	for i, r := range p.in.Runs {
		k := cellKey{labels[i], r.Spec.Dataset, r.Spec.RatioLabel()}
		by[k] = append(by[k], r)
	}
	o := p.in.Options
	o.Chance, o.Score = false, ""
	t := reports.AccuracyTable(p.in.Runs, o)
	rowRank := map[string]int{}
	for i, r := range t.Rows {
		rowRank[r.Key] = i
	}
	colRank := map[col]int{}
	for i, c := range columnsOf(t) {
		colRank[c] = i
	}
	keys := slices.Collect(maps.Keys(by))
	rank := func(m map[string]int, k string) int {
		if r, ok := m[k]; ok {
			return r
		}
		return math.MaxInt
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return cmp.Or(
			cmp.Compare(rank(rowRank, a.row), rank(rowRank, b.row)), cmp.Compare(a.row, b.row),
			cmp.Compare(colRank[col{a.dataset, a.ratio}], colRank[col{b.dataset, b.ratio}]),
			cmp.Compare(a.dataset, b.dataset), cmp.Compare(a.ratio, b.ratio)) < 0
	})
	out := make([]group, len(keys))
	for i, k := range keys {
		rs := by[k]
		slices.SortFunc(rs, func(a, b runs.Run) int {
			if seedLess(a, b) {
				return -1
			}
			return 1
		})
		out[i] = group{key: k, id: p.cellIDs[k], runs: rs}
	}
	return out
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// indexRuns gives each cell's runs their drill-down id.
func (p *page) indexRuns() {
	labels := reports.RowLabels(p.in.Runs)
	used := map[string]bool{}
	for i, r := range p.in.Runs {
		k := cellKey{labels[i], r.Spec.Dataset, r.Spec.RatioLabel()}
		if _, ok := p.cellIDs[k]; ok {
			continue
		}
		id := "runs-" + strings.Trim(unsafeID.ReplaceAllString(k.row+"-"+k.dataset+"-"+k.ratio, "-"), "-")
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s-%d", strings.TrimSuffix(id, "-"+strconv.Itoa(n-1)), n)
		}
		used[id] = true
		p.cellIDs[k] = id
	}
}

// replacedBy maps a finished run to the later finished run of the same
// cell and seeds that the tables read instead (as reports.Aggregate
// chooses: the latest finished, ties to the higher id).
func replacedBy(rs []runs.Run) map[int64]int64 {
	latest := map[reports.SeedPair]runs.Run{}
	for _, r := range rs {
		if r.Status != runs.StatusFinished {
			continue
		}
		pair := reports.PairOf(r.Spec)
		if l, ok := latest[pair]; !ok || r.Finished.After(l.Finished) || (r.Finished.Equal(l.Finished) && r.ID > l.ID) {
			latest[pair] = r
		}
	}
	out := map[int64]int64{}
	for _, r := range rs {
		if l, ok := latest[reports.PairOf(r.Spec)]; ok && r.Status == runs.StatusFinished && l.ID != r.ID {
			out[r.ID] = l.ID
		}
	}
	return out
}

// runsSection writes the drill-downs: per cell, its runs.
func (p *page) runsSection() {
	gs := p.groups()
	if len(gs) == 0 {
		return
	}
	p.section("runs", "Runs behind each cell")
	p.body.WriteString("<p>Every run of the database, by cell: a table cell's value links here. The tables read each seed's latest finished run; failed, interrupted and replaced runs are listed with why. Wall time is Fit's; metrics are the method's own score.</p>\n")
	metrics := []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricOODAUROC}
	for _, g := range gs {
		count := map[runs.Status]int{}
		for _, r := range g.runs {
			count[r.Status]++
		}
		var parts []string
		for _, st := range []runs.Status{runs.StatusFinished, runs.StatusFailed, runs.StatusInterrupted, runs.StatusRunning} {
			if count[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
			}
		}
		cls := ""
		if len(g.runs) != count[runs.StatusFinished] {
			cls = ` class="trouble"`
		}
		fmt.Fprintf(&p.body, "<details id=\"%s\"%s><summary>%s · %s · %s <span class=\"count\">%s</span></summary>\n",
			g.id, cls, esc(g.key.row), esc(g.key.dataset), esc(g.key.ratio), esc(strings.Join(parts, ", ")))
		p.body.WriteString("<div class=\"scroll\"><table class=\"runs\">\n<thead><tr><th>run</th><th>split seed</th><th>seed</th><th>status</th>")
		for _, m := range metrics {
			fmt.Fprintf(&p.body, "<th>%s</th>", esc(m))
		}
		p.body.WriteString("<th>wall s</th><th>config hash</th><th>commit</th><th>build</th><th>backend</th><th>attempts</th><th>finished (UTC)</th><th>message</th></tr></thead>\n<tbody>\n")
		repl := replacedBy(g.runs)
		for _, r := range g.runs {
			rc := "st-" + string(r.Status)
			msg := r.Error
			if by, ok := repl[r.ID]; ok {
				rc += " replaced"
				msg = fmt.Sprintf("replaced by run %d (a later finished run of the same seeds)", by)
			}
			fmt.Fprintf(&p.body, "<tr class=\"%s\"><td>%d</td><td>%d</td><td>%d</td><td>%s</td>", rc, r.ID, r.Spec.SplitSeed, r.Spec.Seed, esc(string(r.Status)))
			for _, m := range metrics {
				v, ok := r.Metrics[m]
				switch {
				case !ok:
					p.body.WriteString("<td></td>")
				case math.IsNaN(v):
					p.body.WriteString("<td>NaN</td>")
				default:
					fmt.Fprintf(&p.body, "<td>%.3f</td>", v)
				}
			}
			wall := ""
			if r.Status == runs.StatusFinished {
				wall = strconv.FormatFloat(r.Seconds, 'f', 1, 64)
			}
			commit := r.Provenance.GitCommit
			if len(commit) > 12 {
				commit = commit[:12]
			}
			if commit == "" {
				commit = "unknown"
			}
			if r.Provenance.GitDirty {
				commit += "+dirty"
			}
			build := reports.BuildLabel(r.Provenance)
			backend := reports.BackendLabel(r.Provenance)
			hash := r.Hash
			if len(hash) > 12 {
				hash = hash[:12]
			}
			finished := ""
			if !r.Finished.IsZero() {
				finished = r.Finished.UTC().Format("2006-01-02 15:04:05")
			}
			fmt.Fprintf(&p.body, "<td>%s</td><td><code title=\"%s\">%s</code></td><td><code title=\"%s\">%s</code></td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td class=\"msg\">%s</td></tr>\n",
				wall, esc(r.Hash), esc(hash), esc(r.Provenance.GitCommit), esc(commit), esc(build), esc(backend), r.Attempts, finished, esc(msg))
		}
		p.body.WriteString("</tbody>\n</table></div>\n</details>\n")
	}
	p.endSection()
}

var backticks = regexp.MustCompile("`([^`]*)`")

// codeSpans escapes a Markdown line of reports' and turns its `code`
// spans into <code>.
func codeSpans(s string) string {
	return backticks.ReplaceAllString(esc(s), "<code>$1</code>")
}

// write writes the page around the sections.
func (p *page) write(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n")
	b.WriteString("<meta name=\"generator\" content=\"ugbench bench report html\" />\n<title>ugbench results</title>\n<style>\n" + css + "</style>\n</head>\n<body>\n")
	b.WriteString("<header>\n<h1>ugbench results</h1>\n")
	var done []runs.Run
	count := map[runs.Status]int{}
	for _, r := range p.in.Runs {
		count[r.Status]++
		if r.Status == runs.StatusFinished {
			done = append(done, r)
		}
	}
	var parts []string
	for _, st := range []runs.Status{runs.StatusFinished, runs.StatusFailed, runs.StatusInterrupted, runs.StatusRunning} {
		if count[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	fmt.Fprintf(&b, "<p class=\"lede\">From <code>%s</code>: %d runs (%s). Every number is a mean ± sample std over seeds on the held-out test set (docs/protocol.md); none is typed by hand.</p>\n",
		esc(p.in.DB), len(p.in.Runs), esc(strings.Join(parts, ", ")))
	fmt.Fprintf(&b, "<p class=\"lede\">Generated by <code>%s</code>", esc(p.in.Command))
	if p.in.Generated != "" {
		fmt.Fprintf(&b, " on %s", esc(p.in.Generated))
	}
	b.WriteString(".</p>\n</header>\n<nav>\n<ul>\n<li><a href=\"#provenance\">Provenance</a></li>\n")
	if len(p.warnings) > 0 {
		b.WriteString("<li><a href=\"#warnings\">Warnings</a></li>\n")
	}
	for _, e := range p.toc {
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>\n", e.id, esc(e.title))
	}
	b.WriteString("</ul>\n")
	if len(p.scores) > 1 {
		b.WriteString("<label class=\"switch\">Unknown score: <select id=\"score\">")
		for _, s := range p.scores {
			fmt.Fprintf(&b, "<option value=\"%s\">%s</option>", esc(s), esc(s))
		}
		b.WriteString("</select></label>\n")
	}
	b.WriteString("</nav>\n<main>\n<section id=\"provenance\">\n<h2>Provenance and protocol</h2>\n<ul class=\"prov\">\n")
	for _, l := range reports.ProvenanceLines(done) {
		fmt.Fprintf(&b, "<li>%s</li>\n", codeSpans(l))
	}
	lines, budget := reports.ProtocolLines(done)
	for _, l := range lines {
		fmt.Fprintf(&b, "<li>%s</li>\n", codeSpans(l))
	}
	if len(budget) > 0 {
		fmt.Fprintf(&b, "<li><details><summary>supervised optimizer steps (UGNN: warm-up and semi-supervised steps together), %d method × dataset</summary>\n<ul>\n", len(budget))
		for _, l := range budget {
			fmt.Fprintf(&b, "<li>%s</li>\n", codeSpans(l))
		}
		b.WriteString("</ul></details></li>\n")
	}
	b.WriteString("</ul>\n<p class=\"legend\">In the tables: <span class=\"best-key\">bold on yellow</span> is the column's best (the row's best score in the scorers tables); under each value, n is the number of seeds, then the paper's value and our difference from it; a value links to its runs. Click a column header to sort by it.</p>\n</section>\n")
	if len(p.warnings) > 0 {
		fmt.Fprintf(&b, "<section id=\"warnings\">\n<h2>Warnings</h2>\n<details%s><summary>%d warning(s) from the tables below (native score), as the text reports print them</summary>\n<ul class=\"notes\">\n",
			map[bool]string{true: ` open="open"`, false: ""}[len(p.warnings) <= 10], len(p.warnings))
		for _, w := range p.warnings {
			fmt.Fprintf(&b, "<li class=\"warn\">%s</li>\n", esc(w))
		}
		b.WriteString("</ul>\n</details>\n</section>\n")
	}
	b.Write(p.body.Bytes())
	b.WriteString("</main>\n<footer><p>ugbench · <code>bench report html</code> · a static page: it loads nothing and works offline.</p></footer>\n<script>\n" + script + "</script>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}
