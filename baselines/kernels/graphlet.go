package kernels

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// The graphlet types: the 4 graphs on 3 nodes and the 11 graphs on 4 nodes
// up to isomorphism, connected or not (as in Shervashidze et al., AISTATS
// 2009), ordered by size, then number of edges. Feature id t of a
// GraphletFeatures row is type t.
const (
	numGraphlets3 = 4
	numGraphlets4 = 11
	numGraphlets  = numGraphlets3 + numGraphlets4
)

// GraphletNames names the graphlet types (feature ids 0..14): size 3 —
// empty, one edge, path, triangle; size 4 — empty, one edge, two disjoint
// edges, path of two edges plus a node, triangle plus a node, star K1,3,
// path P4, cycle C4, paw (triangle with a pendant edge), diamond (K4 minus
// an edge), K4.
var GraphletNames = [numGraphlets]string{
	"3K1", "K2+K1", "P3", "K3",
	"4K1", "K2+2K1", "2K2", "P3+K1", "K3+K1", "K1,3", "P4", "C4", "paw", "diamond", "K4",
}

// GraphletSampleBound is the number of uniformly drawn graphlets that
// Shervashidze et al. (AISTATS 2009, from the L1 deviation inequality of
// Weissman et al., 2003) show to suffice for the empirical distribution over a graphlet types to be
// within ε of the true one in L1 distance with probability at least 1 − δ:
// m = ⌈2(a ln 2 + ln(1/δ))/ε²⌉.
func GraphletSampleBound(a int, eps, delta float64) int {
	return int(math.Ceil(2 * (float64(a)*math.Ln2 + math.Log(1/delta)) / (eps * eps)))
}

// DefaultGraphletSamples is GraphletSampleBound(15, 0.05, 0.05) = 10,715:
// ε = 0.05 and δ = 0.05 with a = 15, all graphlet types of sizes 3 and 4.
// Each sample is a uniformly random 4-subset whose first three nodes are a
// uniformly random 3-subset, so there are m samples of each size; since
// 2⁴ + 2¹¹ ≤ 2¹⁵, the union bound gives probability ≥ 0.95 that both the
// size-3 and the size-4 distribution are within ε = 0.05 in L1. (Bounding
// the 11 size-4 types alone would take 8,497 samples.)
const DefaultGraphletSamples = 10715

// DefaultGraphletExactThreshold is the default "exact_threshold": graphs
// with C(n,4) ≤ 4·10⁶ 4-subsets (n ≤ 100 nodes) are counted exactly, larger
// ones sampled. Up to about that size exact counting (see
// graphletWorker.exact) took no more time than drawing
// DefaultGraphletSamples samples, on sparse graphs of average degree 3
// (0.2–0.3 ms per graph either way on an AMD EPYC core).
const DefaultGraphletExactThreshold = 4_000_000

// graphletKernel is the graphlet feature map with its three parameters.
var graphletKernel = &FeatureKernel{
	Name:   "graphlet",
	Params: suite.Declare(graphletExact, graphletSamples, graphletSeed),
	Compute: func(graphs []datasets.Graph, p suite.Params) (*FeatureMap, error) {
		return GraphletFeatures(graphs, graphletExact.Get(p), graphletSamples.Get(p), int64(graphletSeed.Get(p)))
	},
}

// The graphlet feature map's parameters, valid as checkGraphletParams
// checks them.
var (
	graphletExact = suite.Int("exact_threshold", DefaultGraphletExactThreshold, suite.NonNegative,
		"graphs with C(n,4) above it are sampled, the others counted exactly")
	graphletSamples = suite.Int("samples", DefaultGraphletSamples, suite.Range{Min: 1, Max: math.MaxInt32},
		"graphlets drawn per sampled graph (the paper's bound for ε = δ = 0.05)")
	graphletSeed = suite.Int("sampling_seed", 0, suite.AnyFinite, "seed of the graphlet sampling (with the graph's index; never the run's seed)")
)

func checkGraphletParams(exactThreshold, samples int) error {
	if exactThreshold < 0 {
		return fmt.Errorf("exact_threshold must be ≥ 0, got %d", exactThreshold)
	}
	if samples < 1 || samples > math.MaxInt32 {
		return fmt.Errorf("samples must be in [1, 2³¹), got %d", samples)
	}
	return nil
}

// Graphlet is the paper's "Graphlet Kernel" baseline: the graphlet kernel
// of Shervashidze, Vishwanathan, Petri, Mehlhorn and Borgwardt ("Efficient
// graphlet kernels for large graph comparison", AISTATS 2009) over
// graphlets of sizes 3 and 4 as an explicit feature map (see
// GraphletFeatures), normalised per graph, then the one-vs-rest linear SVM
// of wl (see FitKernel) trained on the labelled graphs. The unknown score
// is minus the max decision value (docs/protocol.md §3). Graphlets are unlabelled:
// neither node labels nor continuous node attributes are used.
//
// Hyper-parameters: "exact_threshold" (graphs with C(n,4) above it are
// sampled; default DefaultGraphletExactThreshold), "samples" (graphlets
// drawn per sampled graph; default DefaultGraphletSamples, the paper's bound
// for ε = δ = 0.05), "sampling_seed" (default 0), "norm" ("l2", "l1" or
// "none"; default "l2") and "C" (SVM cost, default 1). Sampling is seeded
// from sampling_seed and the graph's index, never from the run's seed, so
// the feature map depends only on the dataset and these three parameters and
// is computed once per process (see FeatureCache) for all ratios and seeds.
type Graphlet struct{}

// Name returns "graphlet".
func (Graphlet) Name() string { return "graphlet" }

// Doc describes the method and cites its source.
func (Graphlet) Doc() string {
	return "graphlet kernel features, sizes 3 and 4, exact or sampled (Shervashidze et al., AISTATS 2009) + one-vs-rest linear SVM on the labelled graphs"
}

// Defaults returns exact_threshold=4000000, samples=10715,
// sampling_seed=0, norm=l2, C=1.0.
func (Graphlet) Defaults() suite.Params { return graphletKernel.Defaults() }

// ParamSet declares exact_threshold, samples, sampling_seed, norm and C
// (suite.ParamSetter).
func (Graphlet) ParamSet() suite.ParamSet { return graphletKernel.ParamSet() }

// Fit computes (or reuses) the graphlet feature map of all task graphs,
// trains the one-vs-rest SVM on task.Labelled and predicts task.Eval.
func (Graphlet) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return FitKernel(ctx, task, graphletKernel, defaultCache)
}

// GraphletFeatures computes the explicit feature map of the graphlet
// kernel (Shervashidze et al., "Efficient graphlet kernels for large graph
// comparison", AISTATS 2009) over graphlets of sizes 3 and 4: Rows[g] holds
// the distribution of the induced subgraphs of graph g on 3 nodes over the 4
// graphlet types of size 3 (feature ids 0..3, summing to 1), then the
// distribution of its induced subgraphs on 4 nodes over the 11 types of
// size 4 (ids 4..14, summing to 1); see GraphletNames. These are the
// paper's normalised count vectors, one per size, concatenated; a graph
// with fewer than 4 (3) nodes has an empty size-4 (size-3) part.
//
// A graph of n nodes with C(n,4) ≤ exactThreshold is counted exactly: every
// 3- and 4-subset is counted once, though not one by one (sums over nodes
// and bit-parallel set intersections over an adjacency bit matrix,
// O(n²·d·n/64) for maximum degree d). A larger graph is sampled:
// samples times, 4 distinct nodes are drawn uniformly; the induced subgraph
// on all four is one size-4 sample and the one on the first three a
// size-3 sample (uniform over 3-subsets), and the distributions are
// estimated by the sample frequencies. The random stream of graph g is PCG
// seeded with (samplingSeed, g), so the map depends only on the graphs and
// the three arguments — not on any run's seed — and is the same whatever
// the parallelism (graphs are processed on runtime.GOMAXPROCS(0)
// goroutines). FeatureMap.Sampled counts the sampled graphs.
//
// Graphlets are unlabelled: node labels and attributes are ignored.
func GraphletFeatures(graphs []datasets.Graph, exactThreshold, samples int, samplingSeed int64) (*FeatureMap, error) {
	if err := checkGraphletParams(exactThreshold, samples); err != nil {
		return nil, fmt.Errorf("graphlet: %w", err)
	}
	if err := checkStructure("graphlet", graphs); err != nil {
		return nil, err
	}
	exact := make([]bool, len(graphs))
	for g := range graphs {
		n := graphs[g].NumNodes
		exact[g] = choose(n, 4) <= float64(exactThreshold)
		if exact[g] && n > graphletMaxExactNodes {
			return nil, fmt.Errorf("graphlet: graph %d: %d nodes are too many to count exactly (lower exact_threshold)", g, n)
		}
	}
	freq := make([][numGraphlets]float64, len(graphs))
	err := forEachGraph(len(graphs), func() func(int) error {
		w := &graphletWorker{pcg: rand.NewPCG(0, 0)}
		return func(g int) error {
			gr := &graphs[g]
			if exact[g] {
				freq[g] = w.exact(gr)
				return nil
			}
			w.pcg.Seed(uint64(samplingSeed), uint64(g))
			freq[g] = w.sample(gr, samples)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	fm := &FeatureMap{
		Kernel:  "graphlet",
		Dim:     numGraphlets,
		Offsets: []int{0, numGraphlets3, numGraphlets},
		Names:   slices.Clone(GraphletNames[:]),
		Rows:    make([]SparseVector, len(graphs)),
	}
	index := make([]int32, 0, len(graphs)*numGraphlets)
	value := make([]float64, 0, len(graphs)*numGraphlets)
	for g := range graphs {
		if !exact[g] {
			fm.Sampled++
		}
		start := len(index)
		for t, f := range freq[g] {
			if f != 0 {
				index = append(index, int32(t))
				value = append(value, f)
			}
		}
		end := len(index)
		fm.Rows[g] = SparseVector{Index: index[start:end:end], Value: value[start:end:end]}
	}
	return fm, nil
}

// graphletMaxExactNodes bounds the graphs counted exactly (exact_threshold
// would have to be ≥ C(4097,4) ≈ 1.2·10¹³ for a larger one to be): the
// suffix counts take 4n² bytes, 64 MiB at this size.
const graphletMaxExactNodes = 1 << 12

// graphletSampleBitsMaxNodes: sampled graphs up to this size get an
// adjacency bit matrix (n²/8 bytes, 8 MiB at most), larger ones binary
// search in sorted adjacency lists.
const graphletSampleBitsMaxNodes = 1 << 13

// choose returns the binomial coefficient C(n, k) as a float64 (exact below
// 2⁵³, which covers every n for which it is compared with a threshold that
// fits an int).
func choose(n, k int) float64 {
	if n < k {
		return 0
	}
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return math.Round(c)
}

// graphlet4Type maps the 6-bit edge mask of a 4-node induced subgraph to
// its size-4 type (0..10). Bit order of the mask, for nodes v0..v3: {0,1},
// {0,2}, {1,2}, {0,3}, {1,3}, {2,3}; the first three bits are the mask of
// the subgraph on v0, v1, v2, whose type is its number of edges.
var graphlet4Type = func() (t [64]uint8) {
	pairs := [6][2]int{{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}}
	for mask := range 64 {
		var deg [4]int
		for b, p := range pairs {
			if mask>>b&1 != 0 {
				deg[p[0]]++
				deg[p[1]]++
			}
		}
		maxDeg, minDeg := slices.Max(deg[:]), slices.Min(deg[:])
		switch bits.OnesCount(uint(mask)) {
		case 0:
			t[mask] = 0 // 4K1
		case 1:
			t[mask] = 1 // K2+2K1
		case 2:
			if maxDeg == 2 {
				t[mask] = 3 // P3+K1
			} else {
				t[mask] = 2 // 2K2
			}
		case 3:
			switch {
			case maxDeg == 3:
				t[mask] = 5 // K1,3
			case minDeg == 0:
				t[mask] = 4 // K3+K1
			default:
				t[mask] = 6 // P4
			}
		case 4:
			if maxDeg == 3 {
				t[mask] = 8 // paw
			} else {
				t[mask] = 7 // C4
			}
		case 5:
			t[mask] = 9 // diamond
		case 6:
			t[mask] = 10 // K4
		}
	}
	return t
}()

// graphletWorker holds one goroutine's scratch buffers for
// GraphletFeatures.
type graphletWorker struct {
	words  int      // 64-bit words per bit-matrix row
	matrix []uint64 // adjacency bit matrix, row v at v*words
	suffix []int32  // suffix[v*(n+1)+k] = neighbours of v with index ≥ k
	pair   []uint64 // row i AND row j
	adjOff []int32  // sorted adjacency lists, for large sampled graphs
	adj    []int32
	pcg    *rand.PCG
}

// buildMatrix fills the adjacency bit matrix of gr.
func (w *graphletWorker) buildMatrix(gr *datasets.Graph) {
	n := gr.NumNodes
	w.words = (n + 63) / 64
	size := n * w.words
	w.matrix = slices.Grow(w.matrix[:0], size)[:size]
	clear(w.matrix)
	for e, s := range gr.Src {
		d := int(gr.Dst[e])
		if int(s) != d {
			w.matrix[int(s)*w.words+d>>6] |= 1 << (d & 63)
		}
	}
}

// has reports whether u and v are adjacent in the bit matrix.
func (w *graphletWorker) has(u, v int32) uint8 {
	return uint8(w.matrix[int(u)*w.words+int(v)>>6] >> (v & 63) & 1)
}

// exact returns the exact graphlet distributions of gr.
//
// Every 4-subset {i < j < k < l} is counted once, from its 3-subset
// {i, j, k}: with x, y, z the neighbour sets of i, j and k restricted to
// the nodes l > k, the number of l whose edges to (i, j, k) follow each of
// the 8 patterns is an inclusion-exclusion over T = |{l > k}|, |x|, |y|,
// |z|, |x∩y|, |x∩z|, |y∩z| and |x∩y∩z|. These eight sizes are linear, so
// they are summed per 3-subset edge mask and turned into pattern counts at
// the end. For a pair i < j, the nodes k > j adjacent to neither i nor j
// (the many, in sparse graphs) all have the same mask; their sums are the
// sums over all k > j, which have closed forms over the neighbours of i
// and j above j (e.g. Σ_k |x| = Σ_{l ∈ N(i), l > j} (l − j − 1)), minus
// the sums over the few k adjacent to i or j, which are computed one by
// one with bit-parallel intersections. The cost is
// O(n² (n/64 + d · n/64)) for maximum degree d, instead of the O(n⁴) of
// enumerating every 4-subset; the result is the same, exactly.
func (w *graphletWorker) exact(gr *datasets.Graph) (f [numGraphlets]float64) {
	n := gr.NumNodes
	if n < 3 {
		return f
	}
	w.buildMatrix(gr)
	words := w.words
	n1 := n + 1
	// suffix[v*(n+1)+x]: neighbours of v among nodes x..n-1.
	w.suffix = slices.Grow(w.suffix[:0], n*n1)[:n*n1]
	for v := range n {
		s := w.suffix[v*n1 : (v+1)*n1]
		s[n] = 0
		for x := n - 1; x >= 0; x-- {
			s[x] = s[x+1] + int32(w.matrix[v*words+x>>6]>>(x&63)&1)
		}
	}
	// above[j]: edges {k, l} with j < k < l.
	above := make([]int64, n1)
	for j := n - 2; j >= 0; j-- {
		above[j] = above[j+1] + int64(w.suffix[(j+1)*n1+j+2])
	}
	w.pair = slices.Grow(w.pair[:0], words)[:words]

	// sums[m3] = Σ over 3-subsets {i, j, k} with edge mask m3 of
	// (T, |x|, |y|, |z|, |x∩y|, |x∩z|, |y∩z|, |x∩y∩z|).
	var count3 [8]int64
	var sums [8][8]int64
	for i := 0; i < n-2; i++ {
		ri := w.matrix[i*words : (i+1)*words]
		si := w.suffix[i*n1 : (i+1)*n1]
		for j := i + 1; j < n-1; j++ {
			rj := w.matrix[j*words : (j+1)*words]
			sj := w.suffix[j*n1 : (j+1)*n1]
			for q := range words {
				w.pair[q] = ri[q] & rj[q]
			}
			aij := int(ri[j>>6] >> (j & 63) & 1)
			// Sums over every k > j, as if all had mask aij.
			r := int64(n - 1 - j)
			total := [8]int64{0: r * (r - 1) / 2, 3: above[j]}
			adjacent := int64(0)
			for q := (j + 1) >> 6; q < words; q++ {
				nb := ri[q] | rj[q]
				if q == (j+1)>>6 {
					nb &= ^uint64(0) << ((j + 1) & 63)
				}
				for ; nb != 0; nb &= nb - 1 {
					b := bits.TrailingZeros64(nb)
					l := q<<6 | b
					inI, inJ := int(ri[q]>>b&1), int(rj[q]>>b&1)
					// As the l of a 4-subset: l's contributions to the
					// sums over all k in (j, l).
					sl := w.suffix[l*n1 : (l+1)*n1]
					gap, inner := int64(l-j-1), int64(sl[j+1]-sl[l])
					if inI == 1 {
						total[1] += gap
						total[5] += inner
					}
					if inJ == 1 {
						total[2] += gap
						total[6] += inner
					}
					if inI&inJ == 1 {
						total[4] += gap
						total[7] += inner
					}
					// As the k of a 3-subset: its mask is not aij.
					k := l
					var xy, xz, yz, xyz int
					q0 := (k + 1) >> 6
					if q0 < words {
						first := ^uint64(0) << ((k + 1) & 63)
						rk := w.matrix[k*words : (k+1)*words]
						for p := q0; p < words; p++ {
							pp, zp := w.pair[p], rk[p]
							if p == q0 {
								pp &= first
								zp &= first
							}
							xy += bits.OnesCount64(pp)
							xz += bits.OnesCount64(ri[p] & zp)
							yz += bits.OnesCount64(rj[p] & zp)
							xyz += bits.OnesCount64(pp & zp)
						}
					}
					own := [8]int64{
						int64(n - 1 - k), int64(si[k+1]), int64(sj[k+1]), int64(sl[k+1]),
						int64(xy), int64(xz), int64(yz), int64(xyz),
					}
					m3 := aij | inI<<1 | inJ<<2
					for t := range own {
						sums[m3][t] += own[t]
						total[t] -= own[t]
					}
					count3[m3]++
					adjacent++
				}
			}
			for t := range total {
				sums[aij][t] += total[t]
			}
			count3[aij] += r - adjacent
		}
	}

	var count4 [numGraphlets4]int64
	for m3, s := range sums {
		t, x, y, z, xy, xz, yz, xyz := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
		// Pattern p: bit 0 = l~i, bit 1 = l~j, bit 2 = l~k.
		pattern := [8]int64{
			0: t - x - y - z + xy + xz + yz - xyz,
			1: x - xy - xz + xyz,
			2: y - xy - yz + xyz,
			3: xy - xyz,
			4: z - xz - yz + xyz,
			5: xz - xyz,
			6: yz - xyz,
			7: xyz,
		}
		for p, c := range pattern {
			count4[graphlet4Type[m3|p<<3]] += c
		}
		f[bits.OnesCount(uint(m3))] += float64(count3[m3])
	}
	total3 := choose(n, 3)
	for t := range numGraphlets3 {
		f[t] /= total3
	}
	if total4 := choose(n, 4); total4 > 0 {
		for t, c := range count4 {
			f[numGraphlets3+t] = float64(c) / total4
		}
	}
	return f
}

// sample returns the graphlet distributions of gr estimated from m draws
// of 4 distinct uniform nodes from w.pcg (n ≥ 4).
func (w *graphletWorker) sample(gr *datasets.Graph, m int) (f [numGraphlets]float64) {
	n := gr.NumNodes
	lists := n > graphletSampleBitsMaxNodes
	if lists {
		w.buildLists(gr)
	} else {
		w.buildMatrix(gr)
	}
	d := uniformDrawer{pcg: w.pcg}
	un := uint32(n)
	var count4 [64]int
	// For n ≤ 2¹⁶ each draw starts from a fresh 64-bit PCG output, whose
	// four 16-bit pieces drawFour consumes first. When Lemire's method
	// accepts all four and they are distinct (nearly always), drawFour's
	// result is just the four pieces scaled, which the fast path computes
	// inline; otherwise drawFour redoes the draw from the same output.
	small := n <= 1<<16
	t := uint64((1 << 16) % n) // Lemire's rejection threshold for 16 bits
	for range m {
		var v [4]int32
		fast := false
		if small {
			x := w.pcg.Uint64()
			p0, p1, p2, p3 := (x&0xffff)*uint64(n), (x>>16&0xffff)*uint64(n), (x>>32&0xffff)*uint64(n), (x>>48)*uint64(n)
			if p0&0xffff >= t && p1&0xffff >= t && p2&0xffff >= t && p3&0xffff >= t {
				v = [4]int32{int32(p0 >> 16), int32(p1 >> 16), int32(p2 >> 16), int32(p3 >> 16)}
				fast = v[0] != v[1] && v[0] != v[2] && v[0] != v[3] && v[1] != v[2] && v[1] != v[3] && v[2] != v[3]
			}
			if !fast {
				d.buf, d.left = x, 64
			}
		}
		if !fast {
			v = d.drawFour(un)
		}
		var mask uint8
		if lists {
			mask = w.hasList(v[0], v[1]) | w.hasList(v[0], v[2])<<1 | w.hasList(v[1], v[2])<<2 |
				w.hasList(v[0], v[3])<<3 | w.hasList(v[1], v[3])<<4 | w.hasList(v[2], v[3])<<5
		} else {
			mask = w.has(v[0], v[1]) | w.has(v[0], v[2])<<1 | w.has(v[1], v[2])<<2 |
				w.has(v[0], v[3])<<3 | w.has(v[1], v[3])<<4 | w.has(v[2], v[3])<<5
		}
		count4[mask]++
	}
	return freqFromMasks(&count4, m)
}

// freqFromMasks turns the counts of m sampled 4-node edge masks into the
// graphlet distributions: the size-4 type of each mask, and the size-3 type
// (number of edges) of its first three bits.
func freqFromMasks(count4 *[64]int, m int) (f [numGraphlets]float64) {
	var count3 [8]int
	for mask, c := range count4 {
		count3[mask&7] += c
		f[numGraphlets3+int(graphlet4Type[mask])] += float64(c)
	}
	for m3, c := range count3 {
		f[bits.OnesCount8(uint8(m3))] += float64(c)
	}
	for t := range numGraphlets {
		f[t] /= float64(m)
	}
	return f
}

// uniformDrawer draws exactly uniform integers from a PCG stream by
// Lemire's multiply-and-reject method: below 2¹⁶ from 16-bit pieces of the
// 64-bit outputs (four per output), else from 32-bit pieces.
type uniformDrawer struct {
	pcg  *rand.PCG
	buf  uint64
	left uint // unused bits in buf
}

// next returns the next b ≤ 32 random bits.
func (d *uniformDrawer) next(b uint) uint64 {
	if d.left < b {
		d.buf, d.left = d.pcg.Uint64(), 64
	}
	x := d.buf & (1<<b - 1)
	d.buf >>= b
	d.left -= b
	return x
}

// drawFour draws 4 distinct uniform integers in [0, n), n ≥ 4, one after
// the other, redrawing rejected and repeated values.
func (d *uniformDrawer) drawFour(n uint32) (v [4]int32) {
	for i := range v {
	redraw:
		v[i] = d.below(n)
		for _, u := range v[:i] {
			if u == v[i] {
				goto redraw
			}
		}
	}
	return v
}

// below returns a uniform integer in [0, n), 1 ≤ n < 2³¹.
func (d *uniformDrawer) below(n uint32) int32 {
	b := uint(32)
	if n <= 1<<16 {
		b = 16
	}
	m := d.next(b) * uint64(n)
	if low := m & (1<<b - 1); low < uint64(n) {
		t := (1<<b - uint64(n)) % uint64(n)
		for low < t {
			m = d.next(b) * uint64(n)
			low = m & (1<<b - 1)
		}
	}
	return int32(m >> b)
}

// buildLists fills sorted adjacency lists of gr.
func (w *graphletWorker) buildLists(gr *datasets.Graph) {
	n := gr.NumNodes
	w.adjOff = slices.Grow(w.adjOff[:0], n+1)[:n+1]
	clear(w.adjOff)
	for _, s := range gr.Src {
		w.adjOff[s+1]++
	}
	for v := range n {
		w.adjOff[v+1] += w.adjOff[v]
	}
	w.adj = slices.Grow(w.adj[:0], len(gr.Src))[:len(gr.Src)]
	fill := slices.Clone(w.adjOff[:n])
	for e, s := range gr.Src {
		w.adj[fill[s]] = gr.Dst[e]
		fill[s]++
	}
	for v := range n {
		slices.Sort(w.adj[w.adjOff[v]:w.adjOff[v+1]])
	}
}

// hasList reports whether u and v are adjacent in the adjacency lists.
func (w *graphletWorker) hasList(u, v int32) uint8 {
	_, found := slices.BinarySearch(w.adj[w.adjOff[u]:w.adjOff[u+1]], v)
	if found {
		return 1
	}
	return 0
}
