package datasets

import (
	"math"
	"reflect"
	"testing"
)

func TestRegularGrid(t *testing.T) {
	cases := []struct {
		h, w, n int
		want    slicGrid
	}{
		{28, 28, 95, slicGrid{1, 3, 1, 3}},  // s = 2.87: MNIST's 9×9 grid
		{28, 28, 65, slicGrid{1, 3, 1, 3}},  // s = 3.47
		{28, 28, 64, slicGrid{1, 4, 1, 4}},  // s = 3.5: round half to even gives 4
		{32, 32, 200, slicGrid{1, 2, 1, 2}}, // CIFAR's first 16×16 grid
		{32, 32, 164, slicGrid{1, 2, 1, 2}}, // s = 2.4988
		{32, 32, 163, slicGrid{1, 3, 1, 3}}, // s = 2.5064: 11×11
		{4, 4, 16, slicGrid{0, 1, 0, 1}},    // as many points as pixels: all
		{4, 4, 4, slicGrid{1, 2, 1, 2}},
	}
	for _, c := range cases {
		if got := regularGrid(c.h, c.w, c.n); got != c.want {
			t.Errorf("regularGrid(%d, %d, %d) = %+v, want %+v", c.h, c.w, c.n, got, c.want)
		}
	}
	ys, _ := regularGrid(32, 32, 163).seeds(32, 32)
	if len(ys) != 121 {
		t.Errorf("CIFAR q=163: %d seeds, want 121", len(ys))
	}
}

// TestSLICKMeansTiny: a 4×4 image, left half 0, right half 1, compactness
// 1, four seeds at (1,1), (1,3), (3,1), (3,3), S = 2. Worked by hand: the
// seeds start with colour 0, so in the first iteration every pixel pays
// the same colour cost to every seed and goes to the spatially nearest,
// ties (column 2, row 2) to the lower cluster. From the second iteration
// on the colours pull column 2 right and the split is the fixed point
// below (row 2 stays with the top clusters by the tie rule).
func TestSLICKMeansTiny(t *testing.T) {
	img := &slicImage{H: 4, W: 4, C: 1, Pix: make([]float64, 16)}
	for y := range 4 {
		img.Pix[y*4+2], img.Pix[y*4+3] = 1, 1
	}
	grid := regularGrid(4, 4, 4)
	cases := []struct {
		iters int
		want  []int32
	}{
		{1, []int32{
			0, 0, 0, 1,
			0, 0, 0, 1,
			0, 0, 0, 1,
			2, 2, 2, 3}},
		{10, []int32{
			0, 0, 1, 1,
			0, 0, 1, 1,
			0, 0, 1, 1,
			2, 2, 3, 3}},
	}
	for _, c := range cases {
		if got := slicKMeans(img, grid, 2, c.iters); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d iterations: labels %v, want %v", c.iters, got, c.want)
		}
	}
	// Through segment (q = 4: min size int(0.5·4) = 2, max size 12) the
	// four regions survive as labels 0..3.
	seg := &slicSegmenter{img: img, maxIter: 10}
	labels, n := seg.segment(4)
	if n != 4 || !reflect.DeepEqual(labels, cases[1].want) {
		t.Errorf("segment(4) = %v (%d labels), want %v (4)", labels, n, cases[1].want)
	}
}

// TestEnforceConnectivity checks skimage 0.15's connectivity pass on
// hand-made label maps.
func TestEnforceConnectivity(t *testing.T) {
	cases := []struct {
		name             string
		labels           []int32
		h, w, minS, maxS int
		want             []int32
		n                int
	}{
		{"merge into the last labelled neighbour", []int32{
			0, 0, 1,
			0, 1, 1,
			2, 1, 1}, 3, 3, 2, 100, []int32{
			0, 0, 1,
			0, 1, 1,
			0, 1, 1}, 2},
		{"max size splits a region", []int32{0, 0, 0, 0, 0}, 1, 5, 1, 2, []int32{0, 0, 1, 1, 2}, 3},
		{"a small first component shares label 0", []int32{5, 7, 7}, 1, 3, 2, 10, []int32{0, 0, 0}, 1},
		{"disconnected parts of one label split", []int32{
			3, 4, 3,
			3, 4, 3}, 2, 3, 1, 10, []int32{
			0, 1, 2,
			0, 1, 2}, 3},
	}
	for _, c := range cases {
		got, n := enforceConnectivity(c.labels, c.h, c.w, c.minS, c.maxS)
		if n != c.n || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v (%d labels), want %v (%d)", c.name, got, n, c.want, c.n)
		}
	}
}

// TestKNNGraph: five points on a line at 0, 1, 3, 6, 10 with k = 2.
// σ = (2, 1.5, 2.5, 3.5, 5.5); weights A_ij = ½[exp(−(d/σ_i)²) +
// exp(−(d/σ_j)²)] worked out to 6 decimals. Node 2 picks node 3 (d = 3)
// over node 0 (also d = 3) because σ_3 > σ_0: selection is by similarity,
// not distance.
func TestKNNGraph(t *testing.T) {
	xs := []float64{0, 1, 3, 6, 10}
	coords := make([]float64, 0, 10)
	for _, x := range xs {
		coords = append(coords, 0, x)
	}
	src, dst, w := knnGraph(coords, 5, 2)
	wantSrc := []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}
	wantDst := []int32{1, 2, 0, 2, 1, 3, 2, 4, 2, 3}
	wantW := []float64{0.709991, 0.171163, 0.709991, 0.348153, 0.348153, 0.358290, 0.358290, 0.430053, 0.099163, 0.430053}
	if !reflect.DeepEqual(src, wantSrc) || !reflect.DeepEqual(dst, wantDst) {
		t.Fatalf("edges %v → %v, want %v → %v", src, dst, wantSrc, wantDst)
	}
	for e := range w {
		if math.Abs(float64(w[e])-wantW[e]) > 1e-6 {
			t.Errorf("weight of %d→%d = %.6f, want %.6f", src[e], dst[e], w[e], wantW[e])
		}
	}
	// n ≤ k+1: fully connected without self-loops, σ = 1 when n ≤ k.
	src, dst, w = knnGraph([]float64{0, 0, 0, 1, 0, 3}, 3, 8)
	if len(src) != 6 {
		t.Fatalf("3 nodes, k = 8: %d edges, want 6", len(src))
	}
	want01 := 0.5 * 2 * math.Exp(-1/((1+1e-8)*(1+1e-8)))
	if src[0] != 0 || dst[0] != 1 || math.Abs(float64(w[0])-want01) > 1e-6 {
		t.Errorf("first edge %d→%d w %.6f, want 0→1 w %.6f", src[0], dst[0], w[0], want01)
	}
}
