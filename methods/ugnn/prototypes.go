package ugnn

import (
	"math"
	"math/rand/v2"
)

// normalize scales v to unit L2 norm in place (a zero vector stays zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// ClassPrototypes is eq. (8): the mean embedding of each known class's
// labelled graphs, L2-normalised (as in SwAV, which the paper follows).
// emb is [n][D]; labels[i] in 0..numClasses−1 is the class of emb[i]. A class
// without graphs gets a zero prototype.
func ClassPrototypes(emb [][]float32, labels []int, numClasses int) [][]float32 {
	d := len(emb[0])
	out := make([][]float32, numClasses)
	count := make([]int, numClasses)
	for c := range out {
		out[c] = make([]float32, d)
	}
	for i, e := range emb {
		c := labels[i]
		count[c]++
		for k, x := range e {
			out[c][k] += x
		}
	}
	for c := range out {
		if count[c] > 0 {
			for k := range out[c] {
				out[c][k] /= float32(count[c])
			}
		}
		normalize(out[c])
	}
	return out
}

// KMeans clusters points ([n][D]) into k centroids with k-means++ seeding
// (Arthur & Vassilvitskii 2007) and Lloyd iterations until assignments
// stop changing (at most maxIter). It is deterministic given rng. With
// fewer points than k, the missing centroids repeat points (so that R
// unknown prototypes always exist). It returns the centroids and each
// point's cluster.
//
// No Go k-means library could be fetched here (the module proxy refused
// github.com/muesli/kmeans, mpraski/clusters and bugra/kmeans), so this is
// our own, tested against hand-made clusters.
func KMeans(points [][]float32, k, maxIter int, rng *rand.Rand) (centroids [][]float32, assign []int) {
	n := len(points)
	d := len(points[0])
	dist := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			x := float64(a[i] - b[i])
			s += x * x
		}
		return s
	}
	centroids = make([][]float32, 0, k)
	centroids = append(centroids, append([]float32(nil), points[rng.IntN(n)]...))
	best := make([]float64, n)
	for i := range best {
		best[i] = dist(points[i], centroids[0])
	}
	for len(centroids) < k {
		var total float64
		for _, b := range best {
			total += b
		}
		next := rng.IntN(n)
		if total > 0 {
			r := rng.Float64() * total
			for i, b := range best {
				r -= b
				if r <= 0 {
					next = i
					break
				}
			}
		}
		c := append([]float32(nil), points[next]...)
		centroids = append(centroids, c)
		for i := range best {
			best[i] = min(best[i], dist(points[i], c))
		}
	}
	assign = make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	for iter := 0; iter < maxIter; iter++ {
		changed := false
		for i, p := range points {
			bi, bd := 0, math.Inf(1)
			for c, cen := range centroids {
				if dd := dist(p, cen); dd < bd {
					bi, bd = c, dd
				}
			}
			if assign[i] != bi {
				assign[i], changed = bi, true
			}
		}
		if !changed {
			break
		}
		sums := make([][]float64, k)
		counts := make([]int, k)
		for c := range sums {
			sums[c] = make([]float64, d)
		}
		for i, p := range points {
			counts[assign[i]]++
			for j, x := range p {
				sums[assign[i]][j] += float64(x)
			}
		}
		for c := range centroids {
			if counts[c] == 0 {
				continue // an empty cluster keeps its centroid
			}
			for j := range centroids[c] {
				centroids[c][j] = float32(sums[c][j] / float64(counts[c]))
			}
		}
	}
	return centroids, assign
}

// MomentumUpdate is eq. (14): each prototype h_c with at least one batch
// embedding assigned to it (pseudo-label = nearest prototype by inner
// product) moves to η·h_c + (1−η)·mean of those embeddings, then is
// L2-normalised. protos [E][D] is updated in place; emb is [B][D].
// It returns the pseudo-labels.
func MomentumUpdate(protos, emb [][]float32, eta float64) []int {
	e := len(protos)
	d := len(protos[0])
	labels := make([]int, len(emb))
	sums := make([][]float64, e)
	counts := make([]int, e)
	for c := range sums {
		sums[c] = make([]float64, d)
	}
	for i, z := range emb {
		bi, bs := 0, math.Inf(-1)
		for c, h := range protos {
			var s float64
			for k := range h {
				s += float64(h[k]) * float64(z[k])
			}
			if s > bs {
				bi, bs = c, s
			}
		}
		labels[i] = bi
		counts[bi]++
		for k, x := range z {
			sums[bi][k] += float64(x)
		}
	}
	for c, h := range protos {
		if counts[c] == 0 {
			continue
		}
		for k := range h {
			h[k] = float32(eta*float64(h[k]) + (1-eta)*sums[c][k]/float64(counts[c]))
		}
		normalize(h)
	}
	return labels
}
