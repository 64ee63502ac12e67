//go:debug randseednop=0

package figures

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/ugbench/ugbench/suite"
)

// clusters returns k well-separated Gaussian clusters of m points each in
// d dimensions (centres 20 apart on the axes, unit noise), the last
// cluster's truth suite.Unknown.
func clusters(k, m, d int, seed uint64) *suite.Embeddings {
	rng := rand.New(rand.NewPCG(seed, 1))
	e := &suite.Embeddings{Dim: d}
	for c := range k {
		for i := range m {
			e.Graphs = append(e.Graphs, c*m+i)
			t := c
			if c == k-1 {
				t = suite.Unknown
			}
			e.Truth = append(e.Truth, t)
			for j := range d {
				v := rng.NormFloat64()
				if j == c {
					v += 20
				}
				e.Data = append(e.Data, float32(v))
			}
		}
	}
	return e
}

// nnPurity is the fraction of points whose nearest other point in the 2-D
// map has the same truth.
func nnPurity(e *suite.Embeddings, y [][2]float64) float64 {
	same := 0
	for i := range y {
		best, bestD := -1, math.Inf(1)
		for j := range y {
			if i == j {
				continue
			}
			if d := math.Hypot(y[i][0]-y[j][0], y[i][1]-y[j][1]); d < bestD {
				best, bestD = j, d
			}
		}
		if e.Truth[best] == e.Truth[i] {
			same++
		}
	}
	return float64(same) / float64(len(y))
}

func TestTSNEKeepsSeparatedClustersApart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k, m, d int
	}{
		{"3 clusters in 8-D", 3, 20, 8},
		{"5 clusters in 32-D", 5, 12, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := clusters(tc.k, tc.m, tc.d, 7)
			pts, err := TSNE(e, TSNEConfig{Perplexity: 10, Iterations: 300, LearningRate: DefaultTSNELearningRate, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			y := make([][2]float64, len(pts))
			for i, p := range pts {
				y[i] = [2]float64{p.X, p.Y}
			}
			if got := nnPurity(e, y); got < 0.95 {
				t.Errorf("nearest-neighbour purity of the 2-D map = %.3f, want ≥ 0.95", got)
			}
		})
	}
}

func TestTSNEIsDeterministicGivenSeed(t *testing.T) {
	e := clusters(3, 10, 4, 3)
	cfg := TSNEConfig{Perplexity: 5, Iterations: 50, LearningRate: 200, Seed: 42}
	a, err := TSNE(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := TSNE(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("point %d: %v then %v with one seed", i, a[i], b[i])
		}
	}
	cfg.Seed = 43
	c, err := TSNE(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a[0] == c[0] {
		t.Errorf("seeds 42 and 43 gave the same first point %v", a[0])
	}
}

func TestTSNERejectsBadInput(t *testing.T) {
	good := TSNEConfig{Perplexity: 5, Iterations: 10, LearningRate: 100}
	nan := clusters(2, 5, 3, 1)
	nan.Data[7] = float32(math.NaN())
	for _, tc := range []struct {
		name string
		e    *suite.Embeddings
		cfg  TSNEConfig
		want string
	}{
		{"perplexity 0", clusters(2, 5, 3, 1), TSNEConfig{Iterations: 10, LearningRate: 100}, "perplexity 0"},
		{"perplexity not below n", clusters(2, 5, 3, 1), TSNEConfig{Perplexity: 10, Iterations: 10, LearningRate: 100}, "below the number of points, 10"},
		{"no iterations", clusters(2, 5, 3, 1), TSNEConfig{Perplexity: 5, LearningRate: 100}, "iterations 0"},
		{"one point", clusters(1, 1, 3, 1), good, "need at least 2"},
		{"NaN", nan, good, "row 2 (graph 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TSNE(tc.e, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestTSNEPlotWritesFigure(t *testing.T) {
	e := clusters(4, 10, 6, 5)
	pts, err := TSNE(e, TSNEConfig{Perplexity: 8, Iterations: 100, LearningRate: 200, Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ext := range []string{".svg", ".png"} {
		a, err := TSNEPlot(TSNEPanel{Title: "run A", Points: pts, Truth: e.Truth})
		if err != nil {
			t.Fatal(err)
		}
		b, err := TSNEPlot(TSNEPanel{Title: "run B", Points: pts, Truth: e.Truth})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "tsne"+ext)
		if err := SavePlots([]*plot.Plot{a, b}, 2, file); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		checkFigure(t, file, data)
	}
	if _, err := TSNEPlot(TSNEPanel{Points: pts, Truth: e.Truth[1:]}); err == nil {
		t.Error("TSNEPlot accepted 40 points with 39 classes")
	}
}

// checkFigure checks that data, the contents of file, is a well-formed SVG
// (root svg, ≥ 5 kB, naming both panels) or a PNG of a full figure with
// many colours, by the file's extension.
func checkFigure(t *testing.T, file string, data []byte) {
	t.Helper()
	switch filepath.Ext(file) {
	case ".svg":
		if len(data) < 5000 {
			t.Errorf("%s: %d bytes; want a full figure", file, len(data))
		}
		dec := xml.NewDecoder(bytes.NewReader(data))
		root := ""
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s is not well-formed XML: %v", file, err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			t.Errorf("%s: root element %q, want svg", file, root)
		}
		for _, want := range []string{"run A", "run B", "unknown", "class 0"} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
	case ".png":
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s does not decode: %v", file, err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 600 || h < 200 {
			t.Errorf("%s is %d×%d; want two full panels", file, w, h)
		}
		colours := map[uint32]bool{}
		for y := 0; y < img.Bounds().Dy(); y++ {
			for x := 0; x < img.Bounds().Dx(); x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				colours[r>>8<<16|g>>8<<8|b>>8] = true
			}
		}
		if len(colours) < 8 {
			t.Errorf("%s has %d colours; 3 classes and grey dots give more", file, len(colours))
		}
	default:
		t.Fatalf("checkFigure: unknown extension of %s", file)
	}
}

// BenchmarkTSNE maps Letter-high's test-set size (450 graphs) of the GNN
// rows' width (256) with 10 steps an op: go-tsne's exact O(n²) steps.
func BenchmarkTSNE(b *testing.B) {
	e := clusters(9, 50, 256, 1)
	cfg := TSNEConfig{Perplexity: 30, Iterations: 10, LearningRate: DefaultTSNELearningRate}
	for b.Loop() {
		if _, err := TSNE(e, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSampleEmbeddings: a test set above max is cut to max rows in
// ascending graph order, each row still its graph's (data and truth); the
// draw depends on the size and the seed only, so two runs of one split
// keep the same graphs; at or under max, or with max ≤ 0, e is returned.
func TestSampleEmbeddings(t *testing.T) {
	a, b := clusters(3, 4, 2, 1), clusters(3, 4, 2, 2) // 12 rows each, other values
	for _, c := range []struct {
		name string
		max  int
		want int
	}{{"cut", 5, 5}, {"at n", 12, 12}, {"above n", 50, 12}, {"off", 0, 12}} {
		t.Run(c.name, func(t *testing.T) {
			sa, sb := SampleEmbeddings(a, c.max, 7), SampleEmbeddings(b, c.max, 7)
			if len(sa.Graphs) != c.want || len(sa.Truth) != c.want || len(sa.Data) != c.want*a.Dim {
				t.Fatalf("%d graphs, %d truths, %d values; want %d rows of width %d", len(sa.Graphs), len(sa.Truth), len(sa.Data), c.want, a.Dim)
			}
			if c.want == len(a.Graphs) && sa != a {
				t.Errorf("max %d: a copy, want e itself", c.max)
			}
			for k, g := range sa.Graphs {
				if k > 0 && g <= sa.Graphs[k-1] {
					t.Fatalf("graphs %v: not ascending", sa.Graphs)
				}
				if sb.Graphs[k] != g {
					t.Fatalf("graphs %v and %v: two runs of one test set sampled differently", sa.Graphs, sb.Graphs)
				}
				i := g // clusters numbers its graphs 0..n−1 in row order
				if sa.Truth[k] != a.Truth[i] || sa.Row(k)[0] != a.Row(i)[0] || sa.Row(k)[1] != a.Row(i)[1] {
					t.Errorf("row %d (graph %d) is not that graph's", k, g)
				}
			}
		})
	}
	if x, y := SampleEmbeddings(a, 5, 7).Graphs, SampleEmbeddings(a, 5, 8).Graphs; slices.Equal(x, y) {
		t.Errorf("seeds 7 and 8 drew the same graphs %v", x)
	}
}
