package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/figures"
	"github.com/ugbench/ugbench/reports/html"
	runsel "github.com/ugbench/ugbench/reports/selection"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runReport(args []string, stdout io.Writer) error {
	fs := newFlags("report", "report accuracy|f1|ablation|metric NAME|scorers|claims|results|sensitivity PARAM|html [flags]")
	db := fs.String("db", "ugbench.db", "SQLite database file of runs")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	methods := fs.StringSlice("methods", nil, "only these methods (default: all in the database)")
	dsets := fs.StringSlice("datasets", nil, "only these datasets (default: all in the database)")
	ratios := fs.StringSlice("ratios", nil, "only these labelled ratios: low, high, or a number (default: all in the database)")
	score := fs.String("score", reports.NativeScore, "the unknown score the cells read: native (the method's own), a post-hoc scorer's label (msp, knn, …), whose metrics are stored as LABEL:METRIC, or du_choice (each run under the score with its highest du_accuracy); not for scorers or results")
	names := fs.String("names", "registry", "row names: registry (gin-topk) or paper (GIN)")
	standalone := fs.Bool("standalone", false, "with --format latex: a complete document for pdflatex")
	chance := fs.Bool("chance", true, "add the chance row: a random unknown score under the same threshold rule and a majority-class prediction, on the same test sets")
	params := fs.StringArray("param", nil, "only runs with this hyper-parameter value, key=value (unset: without the key); repeatable; methods without the key are kept")
	metric := fs.String("metric", "accuracy", "sensitivity: the metric against the parameter; scorers: the metric of the cells (default there ood_auroc)")
	perDataset := fs.Bool("per-dataset", false, "scorers: one table per dataset (its ratios × scores), in the paper's column order, instead of one table of every dataset")
	plotFile := fs.String("plot", "", "sensitivity: also draw the panel (paper Figure 4) to FILE.svg, .png or .pdf")
	sensDBs := fs.StringSlice("sensitivity-db", nil, "results, html: databases of sensitivity grids; every parameter they sweep gets a Figure 4 table (comma-separated or repeated)")
	out := fs.StringP("out", "o", "", "html: the page's file (default: standard output)")
	curveNames := fs.StringSlice("curves", []string{"loss"}, "html: the training curves drawn, a panel per curve and ratio (none: no curves)")
	tsneRuns := fs.Int("tsne", 4, "html: the most t-SNE panels (paper Figure 6), one run per row, dataset and ratio with stored embeddings (0: none)")
	tsneIters := fs.Int("tsne-iterations", 1000, "html: t-SNE gradient-descent steps per panel (about 20 ms each on Letter-high)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("which table? accuracy, f1, ablation, metric NAME, scorers (rows × unknown scores), claims (the paper's Table 2 claim checked column by column), results (the results document), sensitivity PARAM or html (every table and figure as one page)")
	}
	if *perDataset && fs.Arg(0) != "scorers" {
		return fmt.Errorf("--per-dataset: only with report scorers")
	}
	if *plotFile != "" && fs.Arg(0) != "sensitivity" {
		return fmt.Errorf("--plot: only with report sensitivity")
	}
	if len(*sensDBs) > 0 && fs.Arg(0) != "results" && fs.Arg(0) != "html" {
		return fmt.Errorf("--sensitivity-db: only with report results and html (report sensitivity PARAM reads --db)")
	}
	if fs.Arg(0) != "html" {
		for _, f := range []string{"out", "curves", "tsne", "tsne-iterations"} {
			if fs.Changed(f) {
				return fmt.Errorf("--%s: only with report html", f)
			}
		}
	}
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("--db %s: %w (run `bench grid --db %s ...` first)", *db, err, *db)
	}
	store, err := runs.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.QuickCheck(); err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	want, err := parseParams(*params)
	if err != nil {
		return err
	}
	pick := runsel.Selection{Filter: runs.Filter{Methods: *methods, Datasets: *dsets, Ratios: *ratios}, Params: want}
	rs, err := pick.Load(store)
	if err != nil {
		return err
	}
	opts := reports.Options{Methods: *methods, Datasets: *dsets, Chance: *chance}
	var scoreNotes []string // --score du_choice: the scores chosen
	switch kind := fs.Arg(0); {
	case *score == reports.NativeScore:
	case kind == "scorers" || kind == "results" || kind == "html":
		return fmt.Errorf("--score: report %s shows every score; --score is for accuracy, f1, ablation, metric, claims and sensitivity", kind)
	default:
		if rs, scoreNotes, err = reports.ResolveScore(rs, *score); err != nil {
			return fmt.Errorf("--score: %w", err)
		}
		opts.Score = *score
	}
	switch *names {
	case "registry":
	case "paper":
		opts.Names = reports.PaperNames()
	default:
		return fmt.Errorf("--names %q: want registry or paper", *names)
	}
	var t *table.Table
	switch kind := fs.Arg(0); kind {
	case "results":
		if *format != "md" && *format != "text" {
			return fmt.Errorf("report results writes Markdown; --format %s is not for it", *format)
		}
		sens, err := loadSensitivity(*sensDBs, pick)
		if err != nil {
			return err
		}
		return reports.Results(stdout, rs, opts, "bench "+strings.Join(append([]string{"report"}, args...), " "), sens)
	case "html":
		if fs.Changed("format") {
			return fmt.Errorf("report html writes HTML; --format is not for it")
		}
		sens, err := loadSensitivity(*sensDBs, pick)
		if err != nil {
			return err
		}
		in := html.Input{
			Runs: rs, Options: opts, DB: *db, SelectionArgs: selectionArgs(fs),
			Command: "bench " + strings.Join(append([]string{"report"}, args...), " "),
			Sens:    sens, SensDBs: *sensDBs,
			Embeddings: store.Embeddings, TSNERuns: *tsneRuns,
			TSNE: figures.TSNEConfig{Perplexity: 30, Iterations: *tsneIters, LearningRate: figures.DefaultTSNELearningRate, MaxPoints: figures.DefaultTSNEMaxPoints},
		}
		return writeHTMLReport(stdout, *out, in, store, *curveNames)
	case "accuracy":
		t = reports.AccuracyTable(rs, opts)
	case "claims":
		if *standalone {
			return fmt.Errorf("--standalone: not for report claims (a plain table)")
		}
		opts.Chance = false
		acc := reports.AccuracyTable(rs, opts)
		p := reports.ClaimsPlain(reports.Claims(acc), opts.Names)
		p.Notes = slices.Concat(acc.Notes, scoreNotes)
		for _, w := range acc.Warnings {
			p.Warnings = append(p.Warnings, w.String())
		}
		return table.RenderPlain(stdout, p, *format)
	case "f1":
		t = reports.F1Table(rs, opts)
	case "ablation":
		t = reports.AblationTable(rs, opts)
	case "metric":
		if fs.NArg() != 2 {
			return fmt.Errorf("report metric NAME: give one metric, e.g. ood_auroc, known_acc, unknown_acc, ood_auroc_msp")
		}
		if s, _ := reports.SplitScoredMetric(fs.Arg(1)); s != reports.NativeScore && opts.Score != "" {
			return fmt.Errorf("report metric %s names its score already; drop --score %s", fs.Arg(1), opts.Score)
		}
		// Rows that never store the metric (the kernels' epoch_seconds) are
		// left out rather than warned about seed by seed.
		t = reports.MetricTable(reports.MethodsWithMetric(rs, reports.ScoredMetric(opts.Score, fs.Arg(1))), fs.Arg(1), opts)
	case "scorers":
		if fs.NArg() != 1 {
			return fmt.Errorf("report scorers takes no argument; choose the metric with --metric (default ood_auroc)")
		}
		m := suite.MetricOODAUROC
		if fs.Changed("metric") {
			m = *metric
		}
		if *perDataset {
			return renderEach(stdout, reports.ScorersTablesByDataset(rs, m, opts), *format)
		}
		t = reports.ScorersTable(rs, m, opts)
	case "sensitivity":
		if fs.NArg() != 2 {
			return fmt.Errorf("report sensitivity PARAM: give one parameter: tau (τ), unknown_prototypes (R), alpha (α) or any hyper-parameter")
		}
		method := "ugnn"
		switch len(*methods) {
		case 0:
		case 1:
			method = (*methods)[0]
		default:
			return fmt.Errorf("--methods: report sensitivity shows one method, got %d", len(*methods))
		}
		opts.Methods = nil
		if t, err = reports.SensitivityTable(rs, method, fs.Arg(1), *metric, opts); err != nil {
			if v := (*reports.VaryingError)(nil); errors.As(err, &v) {
				return fmt.Errorf("%w: choose one with --param %s=VALUE", err, v.Field)
			}
			return err
		}
		if *plotFile != "" {
			p, err := figures.SensitivityPlot(t)
			if err != nil {
				return err
			}
			if err := figures.SavePlot(p, *plotFile); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown table %q: want accuracy, f1, ablation, metric NAME, scorers, claims, results, sensitivity PARAM or html", kind)
	}
	t.Notes = append(t.Notes, scoreNotes...)
	if *standalone {
		if *format != "latex" {
			return fmt.Errorf("--standalone needs --format latex")
		}
		return table.RenderLaTeXDocument(stdout, t)
	}
	return table.Render(stdout, t, *format)
}

// selectionArgs are the flags of fs that select runs or name rows, as
// given, so that the page's tables name the bench report command that
// prints them.
func selectionArgs(fs *pflag.FlagSet) []string {
	var out []string
	for _, name := range []string{"methods", "datasets", "ratios", "names", "chance"} {
		if f := fs.Lookup(name); f.Changed {
			v := f.Value.String()
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				v = strings.Join(sv.GetSlice(), ",")
			}
			out = append(out, "--"+name+"="+v)
		}
	}
	if f := fs.Lookup("param"); f.Changed {
		for _, v := range f.Value.(pflag.SliceValue).GetSlice() {
			out = append(out, "--param", v)
		}
	}
	return out
}

// loadSensitivity lists the runs of the --sensitivity-db files that pick
// selects.
func loadSensitivity(files []string, pick runsel.Selection) ([]runs.Run, error) {
	var sens []runs.Run
	for _, file := range files {
		store, more, err := loadRuns(file, pick)
		if err != nil {
			return nil, fmt.Errorf("--sensitivity-db %s: %w", file, err)
		}
		store.Close()
		sens = append(sens, more...)
	}
	return sens, nil
}

// writeHTMLReport adds the curves named by curveNames ("none": none) of
// in's finished runs from store to in, and writes the page to out, or to
// stdout when out is "".
func writeHTMLReport(stdout io.Writer, out string, in html.Input, store *runs.Store, curveNames []string) error {
	if names := slices.DeleteFunc(slices.Clone(curveNames), func(s string) bool { return s == "none" }); len(names) > 0 {
		in.CurveNames = names
		in.Curves = map[int64][]suite.CurvePoint{}
		for _, r := range in.Runs {
			if r.Status != runs.StatusFinished {
				continue
			}
			var err error
			if in.Curves[r.ID], err = store.Curves(r.ID); err != nil {
				return err
			}
		}
	}
	if out == "" {
		return html.Write(stdout, in)
	}
	var buf bytes.Buffer
	if err := html.Write(&buf, in); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// renderEach renders tables one after another in format, a blank line
// between them; none renders "(no results)" as an empty table does.
func renderEach(w io.Writer, tables []*table.Table, format string) error {
	if len(tables) == 0 {
		return table.Render(w, &table.Table{}, format)
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := table.Render(w, t, format); err != nil {
			return err
		}
	}
	return nil
}
