package figures

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand"
	"slices"
	"sync"

	"github.com/danaugrs/go-tsne/tsne"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TSNEConfig configures TSNE, the t-SNE of van der Maaten & Hinton (2008)
// as github.com/danaugrs/go-tsne implements it (exact O(n²) gradients,
// plain gradient descent; no early exaggeration).
type TSNEConfig struct {
	// Perplexity is the effective number of neighbours of each point's
	// Gaussian kernel; it must be > 0 and below the number of points
	// (typical: 5–50; 30 by default in bench plot tsne).
	Perplexity float64
	// Iterations is the number of gradient-descent steps (≥ 1).
	Iterations int
	// LearningRate is the step size (> 0); DefaultTSNELearningRate is a
	// good start. go-tsne adds every step's gradient to the previous ones
	// (its gradient buffer is never reset: momentum 1), so the map keeps
	// expanding and a large rate overshoots: on 5 synthetic clusters in
	// 32-D, rate 200 (go-tsne's examples use 100–300) left 12% of the
	// points beside another cluster's, rate 10 none.
	LearningRate float64
	// Seed seeds the initial map (go-tsne draws it, N(0, 10⁻⁴), from
	// math/rand's global source; see TSNE) and, in TSNEPlots, the sample
	// of MaxPoints graphs.
	Seed int64
	// MaxPoints, if > 0, is the most test graphs TSNEPlots maps per
	// panel: a larger test set is cut to a uniform sample of MaxPoints
	// graphs (SampleEmbeddings), the same graphs in every panel of one
	// split. t-SNE here is O(n²) in time and memory a step: MNIST's
	// 11,000 test graphs would take ~12 s a step and 1 GB a matrix;
	// DefaultTSNEMaxPoints graphs take ~0.4 s and 32 MB.
	MaxPoints int
}

// DefaultTSNEMaxPoints is the sample size bench plot tsne and bench report
// html use unless told otherwise (TSNEConfig.MaxPoints): above every test
// set of the TU datasets here (COIL-DEL's 780 is the largest), so only the
// superpixel datasets are sampled.
const DefaultTSNEMaxPoints = 2000

// SampleEmbeddings returns e cut to maxRows rows drawn uniformly without
// replacement by seed, in ascending graph order, or e itself if it has
// at most maxRows rows or maxRows ≤ 0. The draw depends only on
// len(e.Graphs), maxRows and seed, so runs of one split (one test set)
// keep the same graphs.
func SampleEmbeddings(e *suite.Embeddings, maxRows int, seed int64) *suite.Embeddings {
	n := len(e.Graphs)
	if maxRows <= 0 || n <= maxRows {
		return e
	}
	keep := rand.New(rand.NewSource(seed)).Perm(n)[:maxRows]
	slices.Sort(keep)
	out := &suite.Embeddings{Dim: e.Dim, Graphs: make([]int, maxRows), Truth: make([]int, maxRows), Data: make([]float32, 0, maxRows*e.Dim)}
	for k, i := range keep {
		out.Graphs[k], out.Truth[k] = e.Graphs[i], e.Truth[i]
		out.Data = append(out.Data, e.Row(i)...)
	}
	return out
}

// DefaultTSNELearningRate is the learning rate bench plot tsne uses
// unless told otherwise (see TSNEConfig.LearningRate).
const DefaultTSNELearningRate = 10

// tsneMu serialises TSNE: go-tsne draws from math/rand's global source,
// which TSNE seeds. This is the one package-level mutable state of the
// reports packages, and it is go-tsne's: its API takes no source (NewTSNE
// has no parameter for one, and EmbedData draws the initial map in the
// unexported initSolution through the top-level rand.NormFloat64), so a
// seeded *rand.Rand cannot be handed to it. The ways out are a fork of
// go-tsne (one file, BSD-licensed) that takes a *rand.Rand, which would
// also free cmd/bench of //go:debug randseednop=0, or another t-SNE.
var tsneMu sync.Mutex

// TSNE maps the n rows of e (n × e.Dim) to 2-D with go-tsne and returns
// one point per row, index-aligned with e.Graphs. The result is a pure
// function of e and cfg in a program where math/rand's top-level Seed
// works: Go ≥ 1.24 ignores it unless the program sets the GODEBUG
// randseednop=0 (cmd/bench and this package's tests do, with a //go:debug
// directive); elsewhere TSNE returns an error rather than an unseeded
// map. It returns an error for a bad cfg, fewer than 2 rows, a perplexity
// not below n, or a NaN or infinite value (naming its row). Time and
// memory are O(n²) a step: for 450 points of width 256 (Letter-high's test
// set, the GNN rows) the set-up took about 0.2 s of CPU and each step
// about 20 ms (BenchmarkTSNE), so 1000 steps about 20 s.
func TSNE(e *suite.Embeddings, cfg TSNEConfig) (plotter.XYs, error) {
	n := len(e.Graphs)
	switch {
	case !(cfg.Perplexity > 0):
		return nil, fmt.Errorf("t-SNE perplexity %g: must be > 0", cfg.Perplexity)
	case cfg.Iterations < 1:
		return nil, fmt.Errorf("t-SNE iterations %d: must be ≥ 1", cfg.Iterations)
	case !(cfg.LearningRate > 0):
		return nil, fmt.Errorf("t-SNE learning rate %g: must be > 0", cfg.LearningRate)
	case e.Dim < 1 || len(e.Data) != n*e.Dim:
		return nil, fmt.Errorf("t-SNE: %d values for %d rows of width %d", len(e.Data), n, e.Dim)
	case n < 2:
		return nil, fmt.Errorf("t-SNE of %d points: need at least 2", n)
	case cfg.Perplexity >= float64(n):
		return nil, fmt.Errorf("t-SNE perplexity %g: must be below the number of points, %d", cfg.Perplexity, n)
	}
	x := mat.NewDense(n, e.Dim, nil)
	for i := range n {
		for j, v := range e.Row(i) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("t-SNE: row %d (graph %d) has the value %v at %d", i, e.Graphs[i], v, j)
			}
			x.Set(i, j, float64(v))
		}
	}
	tsneMu.Lock()
	defer tsneMu.Unlock()
	if !seedGlobalRand(cfg.Seed) {
		return nil, fmt.Errorf("t-SNE seed: math/rand's global source cannot be seeded in this program (Go ≥ 1.24 ignores rand.Seed); build it with //go:debug randseednop=0, as cmd/bench is")
	}
	t := tsne.NewTSNE(2, cfg.Perplexity, cfg.LearningRate, cfg.Iterations, false)
	y := t.EmbedData(x, nil)
	out := make(plotter.XYs, n)
	for i := range out {
		out[i] = plotter.XY{X: y.At(i, 0), Y: y.At(i, 1)}
		if math.IsNaN(out[i].X) || math.IsNaN(out[i].Y) {
			return nil, fmt.Errorf("t-SNE diverged (NaN at point %d); try a smaller learning rate", i)
		}
	}
	return out, nil
}

// seedGlobalRand seeds math/rand's global source with seed and reports
// whether that took effect (rand.Seed is a no-op under randseednop=1,
// which leaves the source randomly seeded).
func seedGlobalRand(seed int64) bool {
	want := rand.New(rand.NewSource(seed)).Int63()
	rand.Seed(seed) //nolint:staticcheck // go-tsne draws from the global source
	ok := rand.Int63() == want
	rand.Seed(seed) //nolint:staticcheck
	return ok
}

// TSNEPanel is one run's panel of the paper's Figure 6.
type TSNEPanel struct {
	// Title names the run, e.g. "ugnn · Letter-high low · split 0 seed 0".
	Title string
	// Points are the 2-D map of the test graphs (TSNE).
	Points plotter.XYs
	// Truth is, index-aligned with Points, the known class index or
	// suite.Unknown (suite.Embeddings.Truth).
	Truth []int
}

// unknownGrey is the colour of unknown-class graphs.
var unknownGrey = color.NRGBA{R: 150, G: 150, B: 150, A: 160}

// TSNEPlot draws a panel (gonum/plot): the test graphs as dots, each known
// class in its own colour of plotutil's palette (legend "class k", k the
// known-class index of the split), the unknown-class graphs in grey,
// drawn first, under the known ones (legend "unknown"). The axes of a
// t-SNE map carry no meaning and are hidden. Lengths of Points and Truth
// that differ are an error.
func TSNEPlot(panel TSNEPanel) (*plot.Plot, error) {
	if len(panel.Points) != len(panel.Truth) {
		return nil, fmt.Errorf("figures: t-SNE panel %s: %d points, %d classes", panel.Title, len(panel.Points), len(panel.Truth))
	}
	p := plot.New()
	p.Title.Text = panel.Title
	p.HideAxes()
	p.Legend.Top = true
	p.Legend.Left = false
	byClass := map[int]plotter.XYs{}
	maxClass := -1
	for i, t := range panel.Truth {
		byClass[t] = append(byClass[t], panel.Points[i])
		maxClass = max(maxClass, t)
	}
	add := func(pts plotter.XYs, c color.Color, name string) error {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.Color = c
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(1.8)
		p.Add(s)
		if name != "" {
			p.Legend.Add(name, s)
		}
		return nil
	}
	if pts := byClass[suite.Unknown]; len(pts) > 0 {
		if err := add(pts, unknownGrey, "unknown"); err != nil {
			return nil, err
		}
	}
	for k := 0; k <= maxClass; k++ {
		if pts := byClass[k]; len(pts) > 0 {
			name := fmt.Sprintf("class %d", k)
			if maxClass >= maxLegendClasses {
				name = "" // too many to name: the colours only tell classes apart
			}
			if err := add(pts, classColor(k, maxClass+1), name); err != nil {
				return nil, err
			}
		}
	}
	if maxClass >= maxLegendClasses {
		p.Legend.Add(fmt.Sprintf("%d known classes", maxClass+1))
	}
	// Room for the legend at the right, beside the points rather than on
	// them.
	if len(panel.Points) > 0 {
		xmin, xmax, _, _ := plotter.XYRange(panel.Points)
		p.X.Max = xmax + legendRoom*(xmax-xmin)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p, nil
}

// legendRoom is the width TSNEPlot adds right of the points for the
// legend, as a fraction of the points' width.
const legendRoom = 0.3

// maxLegendClasses is the most known classes the legend names one by one.
const maxLegendClasses = 12

// classColor is the colour of known class k of n: plotutil's palette for
// n ≤ 7, else n hues evenly spaced around the colour wheel, alternating
// two brightnesses.
func classColor(k, n int) color.Color {
	if n <= len(plotutil.SoftColors) {
		return plotutil.Color(k)
	}
	h := float64(k) / float64(n) * 6
	v := 0.85
	if k%2 == 1 {
		v = 0.6
	}
	c := v * 0.8 // chroma at saturation 0.8
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	var r, g, b float64
	switch int(h) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	return color.NRGBA{R: uint8(255 * (r + m)), G: uint8(255 * (g + m)), B: uint8(255 * (b + m)), A: 255}
}

// MaxTSNERuns is the most runs TSNEPlots draws (one panel each).
const MaxTSNERuns = 8

// TSNEPlots draws the paper's Figure 6 for rs: one TSNEPlot panel per run,
// in rs's order, of the t-SNE (TSNE, cfg) of the run's stored test-set
// embeddings, which emb returns (runs.Store.Embeddings), cut to
// cfg.MaxPoints graphs (SampleEmbeddings with cfg.Seed), titled with the
// method, dataset, ratio, split seed, seed and run id (and, on a second
// line, "m of n test graphs" when sampled). Every run is mapped with the
// same cfg, so two panels differ only in their embeddings. It
// returns an error for no run or more than MaxTSNERuns, and for a run
// without stored embeddings (emb's error wraps runs.ErrNoEmbeddings),
// naming the run and saying why that can be.
func TSNEPlots(rs []runs.Run, emb func(id int64) (*suite.Embeddings, error), cfg TSNEConfig) ([]*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("t-SNE: no run selected")
	}
	if len(rs) > MaxTSNERuns {
		return nil, fmt.Errorf("t-SNE: %d runs selected, at most %d panels; narrow the selection", len(rs), MaxTSNERuns)
	}
	var out []*plot.Plot
	for _, r := range rs {
		e, err := emb(r.ID)
		if errors.Is(err, runs.ErrNoEmbeddings) {
			return nil, fmt.Errorf("run %d (%s) has no stored embeddings: it predates them (stored by a ugbench before database schema 6) or its method hands over none (the kernel baselines); rerun it into a new database with a current bench grid", r.ID, r.Spec)
		}
		if err != nil {
			return nil, err
		}
		all := len(e.Graphs)
		e = SampleEmbeddings(e, cfg.MaxPoints, cfg.Seed)
		pts, err := TSNE(e, cfg)
		if err != nil {
			return nil, fmt.Errorf("run %d (%s): %w", r.ID, r.Spec, err)
		}
		s := r.Spec
		title := fmt.Sprintf("%s · %s %s · split %d seed %d (run %d)", s.Method, s.Dataset, s.RatioLabel(), s.SplitSeed, s.Seed, r.ID)
		if len(e.Graphs) < all {
			title += fmt.Sprintf("\n%d of %d test graphs", len(e.Graphs), all) // a second line: one line overflows a panel of two
		}
		p, err := TSNEPlot(TSNEPanel{Title: title, Points: pts, Truth: e.Truth})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
