package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/reports/html/htmltest"
	"github.com/ugbench/ugbench/suite"
)

// htmlElement is a parsed element of a page of bench report html.
type htmlElement = htmltest.Element

// parsePage checks that page is well-formed XHTML and returns its elements
// in document order (htmltest.Parse).
func parsePage(t *testing.T, page string) []*htmlElement { return htmltest.Parse(t, page) }

// pageCell is one value cell of a page's result table.
type pageCell struct {
	key           string // the CSV's method,dataset,ratio,metric
	mean, std, n  string // as shown: "0.512", "±0.010", "n=3" ("" when not shown)
	paper, differ bool
}

// pageTables returns the page's result tables by their data-args (the
// bench report command), each with its value cells.
func pageTables(els []*htmlElement) (order []string, cells map[string][]pageCell) {
	cells = map[string][]pageCell{}
	var args, row string
	var leaves []*htmlElement
	col := -1
	var cur *pageCell
	flush := func() {
		if cur != nil {
			cells[args] = append(cells[args], *cur)
			cur = nil
		}
	}
	for _, e := range els {
		switch {
		case e.Name == "table":
			flush()
			args, leaves, cur = "", nil, nil
			if e.Attrs["class"] == "results" {
				args = e.Attrs["data-args"]
				order = append(order, args)
			}
		case args == "":
		case e.Name == "th" && strings.HasPrefix(e.Attrs["class"], "leaf"):
			leaves = append(leaves, e)
		case e.Name == "tr":
			flush()
			row, col = e.Attrs["data-row"], -1
		case e.Name == "td":
			flush()
			col++
			if strings.HasPrefix(e.Attrs["class"], "v") {
				l := leaves[col]
				cur = &pageCell{key: strings.Join([]string{row, l.Attrs["data-dataset"], l.Attrs["data-ratio"], l.Attrs["data-metric"]}, ",")}
			}
		case cur != nil && e.Name == "span":
			switch e.Attrs["class"] {
			case "m":
				cur.mean = e.Text
			case "s":
				cur.std = e.Text
			case "n":
				cur.n = e.Text
			case "pv":
				cur.paper = true
			case "up", "down", "same":
				cur.differ = true
			}
		}
	}
	flush()
	return order, cells
}

// TestReportHTMLMatchesCSV: every number of every table of the page is
// the number `bench report ... --format csv` (the command the table
// names) prints for the same cell, rounded as shown, and every cell of
// that CSV is on the page.
func TestReportHTMLMatchesCSV(t *testing.T) {
	db := scoredDB(t)
	var sens []planted
	for _, tau := range []float64{0.1, 0.5, 1} {
		for s := range 2 {
			sens = append(sens, planted{method: "ugnn", dataset: "Letter-high", ratio: "low", seed: int64(s),
				params:  suite.Params{"epochs": 20, "tau": tau},
				metrics: map[string]float64{"accuracy": 0.4 + tau/10 + 0.01*float64(s)}})
		}
	}
	sensDB := makeDB(t, sens)
	out := filepath.Join(t.TempDir(), "report.html")
	var stdout bytes.Buffer
	if err := runReport([]string{"html", "--db", db, "--sensitivity-db", sensDB, "-o", out, "--methods", "sage-topk,gin-topk,ugnn"}, &stdout); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	order, cells := pageTables(parsePage(t, string(page)))
	// accuracy, F1, ablation and AUROC under native, knn and msp;
	// closed-set accuracy and epoch time have no value here; the scorers
	// tables of accuracy, ood_auroc and ood_f1; one sensitivity table.
	if want := 4*3 + 3 + 1; len(order) != want {
		t.Errorf("%d tables on the page, want %d: %v", len(order), want, order)
	}
	checked := 0
	for _, argsJSON := range order {
		var args []string
		if err := json.Unmarshal([]byte(argsJSON), &args); err != nil || len(args) < 2 || args[0] != "report" {
			t.Fatalf("table command %q: %v", argsJSON, err)
		}
		var b bytes.Buffer
		if err := runReport(append(args[1:], "--format", "csv"), &b); err != nil {
			t.Fatalf("bench %s --format csv: %v", strings.Join(args, " "), err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("bench %s --format csv: %v\n%s", strings.Join(args, " "), err, b.String())
		}
		want := map[string][]string{}
		for _, r := range recs[1:] { // method,dataset,ratio,metric,mean,std,n
			want[strings.Join(r[:4], ",")] = r[4:]
		}
		if got := len(cells[argsJSON]); got != len(want) {
			t.Errorf("bench %s: %d cells on the page, %d in its CSV", strings.Join(args, " "), got, len(want))
		}
		for _, c := range cells[argsJSON] {
			w, ok := want[c.key]
			if !ok {
				t.Errorf("bench %s: cell %s is not in the CSV", strings.Join(args, " "), c.key)
				continue
			}
			var mean, std float64
			fmt.Sscan(w[0], &mean)
			fmt.Sscan(w[1], &std)
			if c.mean != fmt.Sprintf("%.3f", mean) {
				t.Errorf("bench %s: %s mean %q on the page, %s in the CSV", strings.Join(args, " "), c.key, c.mean, w[0])
			}
			if c.std != "" && c.std != fmt.Sprintf("±%.3f", std) {
				t.Errorf("bench %s: %s std %q on the page, %s in the CSV", strings.Join(args, " "), c.key, c.std, w[1])
			}
			if c.n != "" && c.n != "n="+w[2] {
				t.Errorf("bench %s: %s %q on the page, n %s in the CSV", strings.Join(args, " "), c.key, c.n, w[2])
			}
			if c.std == "" && w[2] != "1" {
				t.Errorf("bench %s: %s shows no std with n %s", strings.Join(args, " "), c.key, w[2])
			}
			if c.paper != c.differ {
				t.Errorf("bench %s: %s shows the paper's value without the difference, or the reverse", strings.Join(args, " "), c.key)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("%d cells checked: too few", checked)
	}
	for _, bad := range []string{"--format", "--curves x"} {
		if err := runReport([]string{"html", "--db", db, bad, "md"}, &stdout); err == nil {
			t.Errorf("report html %s: no error", bad)
		}
	}
	if err := runReport([]string{"accuracy", "--db", db, "-o", out}, &stdout); err == nil || !strings.Contains(err.Error(), "only with report html") {
		t.Errorf("report accuracy -o: %v, want an error", err)
	}
}

// chromium returns the path of a Chromium (Debian's chromium, or
// chromium-browser, google-chrome), "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs a headless Chromium on url with args and returns its
// standard output and the console messages and uncaught errors of its
// log (standard error).
func runChromium(t *testing.T, bin, url string, args ...string) (stdout string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, errb.String())
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			console = append(console, l)
		}
	}
	return out.String(), console
}

// TestReportHTMLBrowser renders the page of a small real grid (gin-topk
// and wl on Letter-high, low ratio, seeds 0 and 1, 30 steps) in a real
// headless Chromium: screenshots 1280 and 390 px wide, with no console
// message or uncaught error, and a drill-down opened by its link (the
// page's script ran). The screenshots go to $UGBENCH_SCREENSHOTS when
// set. It skips, saying so, where Chromium is not installed (.ci/run
// installs Debian's chromium).
func TestReportHTMLBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium on the PATH (Debian: apt-get install chromium): the page is not checked in a browser")
	}
	dir := datasetstest.DirFor(t, "Letter-high")
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	var out bytes.Buffer
	if err := runGrid([]string{"--methods", "gin-topk,wl", "--datasets", "Letter-high", "--ratios", "low", "--seeds", "0,1",
		"--steps", "30", "--db", db, "--data-dir", dir, "--quiet"}, &out); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(tmp, "report.html")
	if err := runReport([]string{"html", "--db", db, "-o", page, "--tsne", "1", "--tsne-iterations", "100"}, &out); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="accuracy"`, `id="curves"`, `id="tsne"`, `id="runs-gin-topk-Letter-high-low"`} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the page lacks %s", want)
		}
	}
	shots := os.Getenv("UGBENCH_SCREENSHOTS")
	if shots == "" {
		shots = tmp
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	for _, width := range []int{1280, 390} {
		png := filepath.Join(shots, fmt.Sprintf("report-%d.png", width))
		_, console := runChromium(t, bin, url, fmt.Sprintf("--window-size=%d,2400", width), "--screenshot="+png)
		if len(console) > 0 {
			t.Errorf("%d px: the console says:\n%s", width, strings.Join(console, "\n"))
		}
		checkPNG(t, png, width)
	}
	// The script opens the runs a link targets.
	dom, console := runChromium(t, bin, url+"#runs-gin-topk-Letter-high-low", "--dump-dom")
	if len(console) > 0 {
		t.Errorf("--dump-dom: the console says:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, `<details id="runs-gin-topk-Letter-high-low" open="">`) {
		t.Errorf("the drill-down the address names is not open: the page's script did not run")
	}
}

// checkPNG checks that file is a PNG width pixels wide.
func checkPNG(t *testing.T, file string, width int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if cfg.Width != width {
		t.Errorf("%s: %d px wide, want %d", file, cfg.Width, width)
	}
}
