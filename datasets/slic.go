package datasets

import (
	"math"
)

// This file is SLIC superpixel segmentation with the exact semantics of
// scikit-image 0.15.0 (skimage/segmentation/slic_superpixels.py and
// _slic.pyx), the version Dwivedi et al. pinned when they built the MNIST
// and CIFAR10 superpixel graphs (docs/datasets.md, "SLIC as scikit-image
// 0.15"). Later skimage versions give different superpixel counts.

// slicImage is an image in SLIC's working space: H×W pixels of C channels,
// row-major [y][x][c], every value already multiplied by 1/compactness.
type slicImage struct {
	H, W, C int
	Pix     []float64
}

// slicGrid is the seed grid of skimage's regular_grid for the shape
// (1, H, W): seeds at rows StartY, StartY+StepY, … < H and columns likewise.
type slicGrid struct {
	StartY, StepY, StartX, StepX int
}

// regularGrid is skimage 0.15's util.regular_grid for the shape (1, h, w)
// and n points (skimage/util/_regular_grid.py): every pixel when h·w ≤ n, else both spatial
// axes get s = (h·w/n)^(1/2) (the depth axis of size 1 takes step 1), start
// floor(s/2) and step round-half-even(s); the generic fall-back for an s
// larger than a side is kept.
func regularGrid(h, w, n int) slicGrid {
	if float64(h*w) <= float64(n) {
		return slicGrid{0, 1, 0, 1}
	}
	// sorted dims with their original axes; depth (size 1) sorts first.
	dims := []float64{1, float64(h), float64(w)}
	axis := []int{0, 1, 2}
	if h > w { // argsort is stable: equal sides keep y before x
		dims[1], dims[2] = dims[2], dims[1]
		axis[1], axis[2] = 2, 1
	}
	space := float64(h * w)
	steps := make([]float64, 3)
	for i := range steps {
		steps[i] = math.Pow(space/float64(n), 1.0/3)
	}
	anyLess := false
	for i := range dims {
		if dims[i] < steps[i] {
			anyLess = true
		}
	}
	if anyLess {
		for dim := 0; dim < 3; dim++ {
			steps[dim] = dims[dim]
			rest := 1.0
			for _, d := range dims[dim+1:] {
				rest *= d
			}
			if dim < 2 {
				v := math.Pow(rest/float64(n), 1.0/float64(3-dim-1))
				for j := dim + 1; j < 3; j++ {
					steps[j] = v
				}
			}
			all := true
			for i := range dims {
				if dims[i] < steps[i] {
					all = false
				}
			}
			if all {
				break
			}
		}
	}
	var g slicGrid
	for i, a := range axis {
		start, step := int(math.Floor(steps[i]/2)), int(math.RoundToEven(steps[i]))
		switch a {
		case 1:
			g.StartY, g.StepY = start, step
		case 2:
			g.StartX, g.StepX = start, step
		}
	}
	return g
}

// seeds returns the seed coordinates of g on an h×w image, y-major.
func (g slicGrid) seeds(h, w int) (ys, xs []int) {
	for y := g.StartY; y < h; y += g.StepY {
		for x := g.StartX; x < w; x += g.StepX {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	return ys, xs
}

// slicKMeans runs skimage 0.15's _slic_cython on img from the seeds of
// grid, for maxIter iterations (_slic.pyx): seed colours start at 0; the
// distance is ((cy−y)² + (cx−x)²)·(1/S²) + Σ_c (pix_c − μ_c)², S = spatial
// (the largest step of the grid asked for); each cluster searches a box of
// half-width 2w around its centre, w the step of the grid regular_grid
// gives for the number of seeds; ties keep the lower cluster; a cluster
// left without pixels is dead for good. It returns the label of every
// pixel, shape [H·W], values in 0..K−1.
func slicKMeans(img *slicImage, grid slicGrid, spatial float64, maxIter int) []int32 {
	H, W, C := img.H, img.W, img.C
	ys, xs := grid.seeds(H, W)
	K := len(ys)
	win := regularGrid(H, W, K)
	wy, wx := float64(win.StepY), float64(win.StepX)
	nf := 2 + C
	seg := make([]float64, K*nf) // cy, cx, colour… per cluster
	for k := range K {
		seg[k*nf], seg[k*nf+1] = float64(ys[k]), float64(xs[k])
	}
	dead := make([]bool, K)
	labels := make([]int32, H*W)
	dist := make([]float64, H*W)
	count := make([]int, K)
	sw := 1 / (spatial * spatial)
	for range maxIter {
		for i := range dist {
			dist[i] = math.MaxFloat64
		}
		for k := range K {
			if dead[k] {
				continue
			}
			c := seg[k*nf : (k+1)*nf]
			cy, cx := c[0], c[1]
			y0, y1 := int(max(cy-2*wy, 0)), int(min(cy+2*wy+1, float64(H)))
			x0, x1 := int(max(cx-2*wx, 0)), int(min(cx+2*wx+1, float64(W)))
			for y := y0; y < y1; y++ {
				dy := (cy - float64(y)) * (cy - float64(y))
				row := y * W
				for x := x0; x < x1; x++ {
					dx := cx - float64(x)
					d := (dy + dx*dx) * sw
					p := img.Pix[(row+x)*C : (row+x+1)*C]
					dc := 0.0
					for ch, v := range p {
						t := v - c[2+ch]
						dc += t * t
					}
					d += dc
					if dist[row+x] > d {
						labels[row+x] = int32(k)
						dist[row+x] = d
					}
				}
			}
		}
		clear(seg)
		clear(count)
		for y := range H {
			for x := range W {
				k := int(labels[y*W+x])
				count[k]++
				s := seg[k*nf : (k+1)*nf]
				s[0] += float64(y)
				s[1] += float64(x)
				for ch, v := range img.Pix[(y*W+x)*C : (y*W+x+1)*C] {
					s[2+ch] += v
				}
			}
		}
		for k := range K {
			if count[k] == 0 {
				dead[k] = true // 0/0 = NaN in skimage: never assigned again
				continue
			}
			n := float64(count[k])
			for j := range nf {
				seg[k*nf+j] /= n
			}
		}
	}
	return labels
}

// enforceConnectivity is skimage 0.15's _enforce_label_connectivity_cython
// (_slic.pyx): scanning pixels in raster order, each unlabelled pixel
// starts a breadth-first search over 4-neighbours (x+1, x−1, y+1, y−1) of
// the same k-means label, capped at maxSize pixels; a component smaller
// than minSize takes the last differently labelled neighbour seen (0 if
// none), else it gets the next new label. It returns the new labels, shape
// [H·W], and their count; labels are 0..count−1 in order of first raster
// appearance.
func enforceConnectivity(labels []int32, H, W, minSize, maxSize int) ([]int32, int) {
	out := make([]int32, H*W)
	for i := range out {
		out[i] = -1
	}
	queue := make([]int, 0, max(maxSize, 1))
	next := int32(0)
	dx := [4]int{1, -1, 0, 0}
	dy := [4]int{0, 0, 1, -1}
	for p := range out {
		if out[p] >= 0 {
			continue
		}
		orig := labels[p]
		adjacent := int32(0)
		out[p] = next
		queue = append(queue[:0], p)
		for head := 0; head < len(queue) && len(queue) < maxSize; head++ {
			y, x := queue[head]/W, queue[head]%W
			for i := range 4 {
				yy, xx := y+dy[i], x+dx[i]
				if xx < 0 || xx >= W || yy < 0 || yy >= H {
					continue
				}
				q := yy*W + xx
				if labels[q] == orig && out[q] == -1 {
					out[q] = next
					queue = append(queue, q)
					if len(queue) >= maxSize {
						break
					}
				} else if out[q] >= 0 && out[q] != next {
					adjacent = out[q]
				}
			}
		}
		if len(queue) < minSize {
			for _, q := range queue {
				out[q] = adjacent
			}
		} else {
			next++
		}
	}
	return out, int(next)
}

// rgbToLab converts one RGB pixel in [0,1] (float32, as the image is) to
// CIE-Lab (D65, 2° observer) with skimage 0.15's formulas (skimage/color/colorconv.py rgb2xyz,
// xyz2lab): the
// sRGB linearisation in float32, the rest in float64.
func rgbToLab(r, g, b float32) (L, A, B float64) {
	lin := func(c float32) float64 {
		if c > 0.04045 {
			return float64(float32(math.Pow(float64((c+0.055)/1.055), 2.4)))
		}
		return float64(c / 12.92)
	}
	R, G, Bl := lin(r), lin(g), lin(b)
	X := 0.412453*R + 0.357580*G + 0.180423*Bl
	Y := 0.212671*R + 0.715160*G + 0.072169*Bl
	Z := 0.019334*R + 0.119193*G + 0.950227*Bl
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116.0
	}
	fx, fy, fz := f(X/0.95047), f(Y/1.0), f(Z/1.08883)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// slicSegmenter segments one image at several requested counts, caching
// the k-means labels per seed grid (the k-means result depends on the
// request q only through the seed grid; the connectivity pass, whose
// thresholds depend on q, is redone for every request).
type slicSegmenter struct {
	img     *slicImage
	maxIter int
	cache   map[slicGrid][]int32
}

// segment is skimage 0.15's slic(image, n_segments=q, max_iter, sigma=0,
// enforce_connectivity=True, min_size_factor=0.5, max_size_factor=3) on
// the prepared image; it returns the labels and their count.
func (s *slicSegmenter) segment(q int) ([]int32, int) {
	H, W := s.img.H, s.img.W
	grid := regularGrid(H, W, q)
	km, ok := s.cache[grid]
	if !ok {
		spatial := float64(max(1, grid.StepY, grid.StepX))
		km = slicKMeans(s.img, grid, spatial, s.maxIter)
		if s.cache == nil {
			s.cache = map[slicGrid][]int32{}
		}
		s.cache[grid] = km
	}
	size := float64(H*W) / float64(q)
	return enforceConnectivity(km, H, W, int(0.5*size), int(3*size))
}
