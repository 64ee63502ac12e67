package datasets

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// SuperpixelParams are the parameters of the superpixel-graph builder of
// Knyazev et al. / Dwivedi et al. (docs/datasets.md, "MNIST and CIFAR10:
// superpixel graphs"): each
// image is cut into at most MaxNodes SLIC superpixels (skimage 0.15
// semantics), one node per superpixel, each node joined to its K most
// similar superpixels by directed, weighted edges.
type SuperpixelParams struct {
	// MaxNodes is the cap n_sp on the number of superpixels (75 MNIST,
	// 150 CIFAR10).
	MaxNodes int
	// ExtraAsk is added to MaxNodes to give the first n_segments asked of
	// SLIC (20 MNIST, 50 CIFAR10); each retry asks for one fewer.
	ExtraAsk int
	// Compactness is SLIC's compactness (0.25 MNIST, 10 CIFAR10); pixel
	// values are multiplied by 1/Compactness.
	Compactness float64
	// MaxIter is the number of k-means iterations (10).
	MaxIter int
	// K is the number of out-edges per node (8).
	K int
}

// MNISTSuperpixels and CIFAR10Superpixels are the parameters of MNIST-75sp
// and CIFAR10-150sp (Knyazev's bknyaz/graph_attention_pool extract_superpixels.py
// defaults and scripts/prepare_data.sh).
var (
	MNISTSuperpixels   = SuperpixelParams{MaxNodes: 75, ExtraAsk: 20, Compactness: 0.25, MaxIter: 10, K: 8}
	CIFAR10Superpixels = SuperpixelParams{MaxNodes: 150, ExtraAsk: 50, Compactness: 10, MaxIter: 10, K: 8}
)

// superpixelNodes segments one image and returns its node features,
// shape [n, C+2] row-major: the mean of every channel over the
// superpixel's pixels in [0, 1] (intensity, or R, G, B), then the centroid
// row and column divided by the image side (Dwivedi's data/superpixels.py; the side is
// H, the images being square; a non-square image divides rows by H and
// columns by W). Nodes are numbered by the superpixel's first pixel in
// raster order. pix is the H×W×C image, row-major, channels last. It
// returns an error if SLIC cannot get down to MaxNodes superpixels.
func superpixelNodes(pix []uint8, H, W, C int, p SuperpixelParams) ([]float32, int, error) {
	// u8/255 in float64, rounded to float32 (Knyazev's extract_superpixels.py).
	f32 := make([]float32, len(pix))
	for i, v := range pix {
		f32[i] = float32(float64(v) / 255)
	}
	img := &slicImage{H: H, W: W, C: C, Pix: make([]float64, len(pix))}
	ratio := 1 / p.Compactness
	switch C {
	case 1:
		for i, v := range f32 {
			img.Pix[i] = float64(v) * ratio
		}
	case 3:
		for i := 0; i < len(f32); i += 3 {
			L, A, B := rgbToLab(f32[i], f32[i+1], f32[i+2])
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = L*ratio, A*ratio, B*ratio
		}
	default:
		return nil, 0, fmt.Errorf("superpixels: %d channels, want 1 (grayscale) or 3 (RGB)", C)
	}
	seg := &slicSegmenter{img: img, maxIter: p.MaxIter}
	var labels []int32
	n := 0
	for q := p.MaxNodes + p.ExtraAsk; ; q-- {
		if q < 1 {
			return nil, 0, fmt.Errorf("superpixels: SLIC gave more than %d superpixels for every request", p.MaxNodes)
		}
		labels, n = seg.segment(q)
		if n <= p.MaxNodes {
			break
		}
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("superpixels: SLIC gave no superpixel")
	}
	d := C + 2
	sum := make([]float64, n*d)
	cnt := make([]int, n)
	for y := range H {
		for x := range W {
			s := int(labels[y*W+x])
			cnt[s]++
			row := sum[s*d : (s+1)*d]
			for c := range C {
				row[c] += float64(f32[(y*W+x)*C+c])
			}
			row[C] += float64(y)
			row[C+1] += float64(x)
		}
	}
	feats := make([]float32, n*d)
	for s := range n {
		k := float64(cnt[s])
		for c := range C {
			feats[s*d+c] = float32(sum[s*d+c] / k)
		}
		feats[s*d+C] = float32(sum[s*d+C]/k) / float32(H)
		feats[s*d+C+1] = float32(sum[s*d+C+1]/k) / float32(W)
	}
	return feats, n, nil
}

// knnGraph builds the directed kNN graph of Dwivedi et al. over the node
// centroids (benchmarking-gnns data/superpixels.py, coordinates only): with d_ij the Euclidean
// distance of the centroids and σ_i = (sum of the k smallest d_ij, j ≠ i)/k
// + 1e-8 (σ_i = 1 + 1e-8 when n ≤ k), the similarity is
// A_ij = ½[exp(−(d_ij/σ_i)²) + exp(−(d_ij/σ_j)²)]. Every node i gets edges
// i → j to the k nodes j ≠ i of largest A_ij (ties: smaller j), or to all
// other nodes when n ≤ k+1. This is the rule the code intends (docs/datasets.md): the
// original's argpartition slice drops a pseudo-random one of the 9 most
// similar nodes instead; counts (8 edges per node) are the same. coords
// holds (row, col) per node, shape [n, 2]. The edges come sorted by
// (src, dst) with weight A_ij.
func knnGraph(coords []float64, n, k int) (src, dst []int32, w []float32) {
	dist := make([]float64, n*n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			dy, dx := coords[2*i]-coords[2*j], coords[2*i+1]-coords[2*j+1]
			d := math.Sqrt(dy*dy + dx*dx)
			dist[i*n+j], dist[j*n+i] = d, d
		}
	}
	// σ_i from the k smallest off-diagonal distances of row i (kept in a
	// small sorted buffer; the diagonal's 0 adds nothing to the sum).
	sigma := make([]float64, n)
	small := make([]float64, 0, k)
	for i := range n {
		if n <= k {
			sigma[i] = 1 + 1e-8
			continue
		}
		small = small[:0]
		for j, d := range dist[i*n : (i+1)*n] {
			if j == i || (len(small) == k && d >= small[k-1]) {
				continue
			}
			if len(small) < k {
				small = append(small, d)
			} else {
				small[k-1] = d
			}
			for p := len(small) - 1; p > 0 && small[p] < small[p-1]; p-- {
				small[p], small[p-1] = small[p-1], small[p]
			}
		}
		s := 0.0
		for _, v := range small {
			s += v
		}
		sigma[i] = s/float64(k) + 1e-8
	}
	// e[i*n+j] = exp(−(d_ij/σ_i)²); A_ij = ½(e_ij + e_ji).
	e := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if j != i {
				a := dist[i*n+j] / sigma[i]
				e[i*n+j] = math.Exp(-a * a)
			}
		}
	}
	deg := min(k, n-1)
	src = make([]int32, 0, n*deg)
	dst = make([]int32, 0, n*deg)
	w = make([]float32, 0, n*deg)
	type cand struct {
		j int
		a float64
	}
	// better: larger similarity, then smaller j.
	better := func(x, y cand) bool { return x.a > y.a || (x.a == y.a && x.j < y.j) }
	top := make([]cand, 0, deg)
	for i := range n {
		top = top[:0]
		for j := range n {
			if j == i {
				continue
			}
			c := cand{j, 0.5 * (e[i*n+j] + e[j*n+i])}
			if len(top) == deg {
				if !better(c, top[deg-1]) {
					continue
				}
				top[deg-1] = c
			} else {
				top = append(top, c)
			}
			for p := len(top) - 1; p > 0 && better(top[p], top[p-1]); p-- {
				top[p], top[p-1] = top[p-1], top[p]
			}
		}
		slices.SortFunc(top, func(x, y cand) int { return cmp.Compare(x.j, y.j) })
		for _, c := range top {
			src = append(src, int32(i))
			dst = append(dst, int32(c.j))
			w = append(w, float32(c.a))
		}
	}
	return src, dst, w
}

// superpixelGraph turns node features (as superpixelNodes returns them,
// d = C+2 columns, the last two the normalised centroid) into a directed
// Graph with the kNN edges of knnGraph.
func superpixelGraph(feats []float32, n, d, k int) Graph {
	coords := make([]float64, 2*n)
	for i := range n {
		coords[2*i] = float64(feats[i*d+d-2])
		coords[2*i+1] = float64(feats[i*d+d-1])
	}
	src, dst, w := knnGraph(coords, n, k)
	return Graph{NumNodes: n, Src: src, Dst: dst, Directed: true, EdgeWeight: w, Features: feats}
}

// imageSet is a list of same-sized uint8 images with a class each.
type imageSet struct {
	H, W, C int
	// Pix holds the images one after another, each H×W×C, channels last.
	Pix []uint8
	// Labels is the raw class of each image.
	Labels []uint8
}

// Len is the number of images.
func (s *imageSet) Len() int { return len(s.Labels) }

// Image returns image i, shape [H, W, C].
func (s *imageSet) Image(i int) []uint8 {
	sz := s.H * s.W * s.C
	return s.Pix[i*sz : (i+1)*sz]
}

// buildWorkers is the number of goroutines building superpixel graphs:
// $UGBENCH_BUILD_WORKERS if set to a positive integer, else GOMAXPROCS.
func buildWorkers() int {
	if n := envInt("UGBENCH_BUILD_WORKERS"); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// buildSuperpixelGraphs segments every image of set in parallel (workers
// goroutines) and returns its superpixel graph; progress, if not nil, is
// called as Loader.Progress.
func buildSuperpixelGraphs(name string, set *imageSet, p SuperpixelParams, workers int, progress func(name string, done, total int)) ([]Graph, error) {
	n := set.Len()
	graphs := make([]Graph, n)
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f, c, err := superpixelNodes(set.Image(i), set.H, set.W, set.C, p)
				if err == nil {
					graphs[i] = superpixelGraph(f, c, set.C+2, p.K)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("image %d: %w", i, err)
					next.Store(int64(n))
				}
				d := done.Add(1)
				if progress != nil {
					progress(name, int(d), n)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return graphs, firstErr
}

// superpixelDataset wraps built or cached graphs and their raw classes.
func superpixelDataset(name string, graphs []Graph, dim int, rawLabels []uint8) *Dataset {
	ds := &Dataset{Name: name, Graphs: graphs, FeatureDim: dim, FeatureKind: FeaturesSuperpixel}
	raw := make([]float64, len(rawLabels))
	for i, l := range rawLabels {
		raw[i] = float64(l)
	}
	ds.Labels, ds.NumClasses, _ = remap(raw)
	return ds
}
