package kernels

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// spKernel is the shortest-path feature map; it has no parameters.
var spKernel = &FeatureKernel{
	Name:   "sp",
	Params: suite.Declare(),
	Compute: func(graphs []datasets.Graph, _ suite.Params) (*FeatureMap, error) {
		return SPFeatures(graphs)
	},
}

// SP is the paper's "SP Kernel" baseline: the shortest-path kernel of
// Borgwardt and Kriegel ("Shortest-path kernels on graphs", ICDM 2005) with
// the delta kernel on (label, label, length) triples, as an explicit
// feature map (see SPFeatures), normalised per graph, then the one-vs-rest
// linear SVM of wl (see FitKernel) trained on the labelled graphs. The
// unknown score is minus the max decision value (docs/protocol.md §3).
//
// Hyper-parameters: "norm" ("l2", "l1" or "none"; default "l2") and "C"
// (SVM cost, default 1); the feature map has none and is computed once per
// dataset and process (see FeatureCache). Continuous node attributes are
// not used, as in the paper's kernel rows: node labels are the discrete
// node labels where the dataset has them, else node degrees.
type SP struct{}

// Name returns "sp".
func (SP) Name() string { return "sp" }

// Doc describes the method and cites its source.
func (SP) Doc() string {
	return "shortest-path kernel features (Borgwardt & Kriegel, ICDM 2005) + one-vs-rest linear SVM on the labelled graphs"
}

// Defaults returns norm=l2, C=1.0.
func (SP) Defaults() suite.Params { return spKernel.Defaults() }

// ParamSet declares norm and C (suite.ParamSetter).
func (SP) ParamSet() suite.ParamSet { return spKernel.ParamSet() }

// Fit computes (or reuses) the shortest-path feature map of all task
// graphs, trains the one-vs-rest SVM on task.Labelled and predicts
// task.Eval.
func (SP) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return FitKernel(ctx, task, spKernel, defaultCache)
}

// spFieldBits is the width of each of the three fields (label, label,
// distance) packed into a 64-bit feature key.
const spFieldBits = 21

// SPFeatures computes the explicit feature map of the shortest-path kernel
// (Borgwardt & Kriegel, "Shortest-path kernels on graphs", ICDM 2005) with
// the delta kernel on path end labels and lengths: Rows[g] counts, for every
// triple (a, b, d), the unordered node pairs {u, v} (u ≠ v) of graph g whose
// labels are a ≤ b (the pair of labels in canonical order, so that (a, b)
// and (b, a) coincide) and whose shortest-path distance is d ≥ 1. Distances
// are hop counts by breadth-first search from every node (the graphs are
// unweighted), O(n·(n+m)) per graph; unreachable pairs are not counted.
// The dot product of two rows is the shortest-path kernel value (each pair
// of the Floyd-transformed graphs counted once, not in both orientations).
//
// A node's label is its discrete node label (datasets.Graph.NodeLabels)
// when the dataset has them, else its degree (GraKeL's convention).
// Continuous node attributes (coordinates, colours) are not used, as in
// the paper's kernel rows. Feature ids follow the sorted order of (a, b, d)
// over the whole dataset; Names[id] is "(a,b,d)" with the label values (node
// labels or degrees). Graphs are processed in parallel on
// runtime.GOMAXPROCS(0) goroutines; the result does not depend on it.
//
// Either every graph with nodes has NodeLabels or none has; a mix is an
// error, as are malformed graphs and labels or graphs too many for the
// packed keys (2²¹ distinct labels, 2²¹ nodes per graph).
func SPFeatures(graphs []datasets.Graph) (*FeatureMap, error) {
	useLabels, err := checkGraphs("sp", graphs)
	if err != nil {
		return nil, err
	}
	nodeStart := make([]int, len(graphs)+1)
	for g := range graphs {
		nodeStart[g+1] = nodeStart[g] + graphs[g].NumNodes
		if graphs[g].NumNodes >= 1<<spFieldBits {
			return nil, fmt.Errorf("sp: graph %d has %d nodes, more than the %d the feature keys allow", g, graphs[g].NumNodes, 1<<spFieldBits-1)
		}
	}
	// Raw labels, then dense dataset-wide ids in increasing label order,
	// so that the canonical order of a label pair is that of its values.
	raw := nodeLabelsOrDegrees(graphs, nodeStart, useLabels)
	values := slices.Clone(raw)
	slices.Sort(values)
	values = slices.Compact(values)
	if len(values) >= 1<<spFieldBits {
		return nil, fmt.Errorf("sp: %d distinct node labels, more than the %d the feature keys allow", len(values), 1<<spFieldBits-1)
	}
	id := make(map[int32]int32, len(values))
	for k, v := range values {
		id[v] = int32(k)
	}
	lab := make([]int32, len(raw))
	for v, l := range raw {
		lab[v] = id[l]
	}

	keys := make([][]uint64, len(graphs))
	counts := make([][]float64, len(graphs))
	err = forEachGraph(len(graphs), func() func(int) error {
		var w spWorker
		return func(g int) error {
			keys[g], counts[g] = w.histogram(&graphs[g], lab[nodeStart[g]:nodeStart[g+1]])
			return nil
		}
	})
	if err != nil {
		return nil, err
	}

	// Feature ids: the rank of each key among all distinct keys.
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	all := make([]uint64, 0, total)
	for _, k := range keys {
		all = append(all, k...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > 1<<31-1 {
		return nil, errors.New("sp: too many features for int32 ids")
	}
	index := make([]int32, total)
	value := make([]float64, total)
	rows := make([]SparseVector, len(graphs))
	at := 0
	for g, ks := range keys {
		for k, key := range ks {
			j, _ := slices.BinarySearch(all, key)
			index[at+k] = int32(j)
		}
		copy(value[at:], counts[g])
		b := at + len(ks)
		rows[g] = SparseVector{Index: index[at:b:b], Value: value[at:b:b]}
		at = b
	}
	names := make([]string, len(all))
	const fieldMask = 1<<spFieldBits - 1
	for j, key := range all {
		a, b, d := key>>(2*spFieldBits), key>>spFieldBits&fieldMask, key&fieldMask
		names[j] = fmt.Sprintf("(%d,%d,%d)", values[a], values[b], d)
	}
	return &FeatureMap{
		Kernel:     "sp",
		Dim:        len(all),
		Offsets:    []int{0, len(all)},
		NodeLabels: useLabels,
		Names:      names,
		Rows:       rows,
	}, nil
}

// nodeLabelsOrDegrees returns every node's discrete label (useLabels) or
// degree, graph after graph (graph g's nodes at nodeStart[g]...).
func nodeLabelsOrDegrees(graphs []datasets.Graph, nodeStart []int, useLabels bool) []int32 {
	raw := make([]int32, nodeStart[len(graphs)])
	for g := range graphs {
		gr := &graphs[g]
		dst := raw[nodeStart[g]:nodeStart[g+1]]
		if useLabels {
			copy(dst, gr.NodeLabels)
			continue
		}
		for _, s := range gr.Src {
			dst[s]++
		}
	}
	return raw
}

// spWorker holds one goroutine's scratch buffers for SPFeatures.
type spWorker struct {
	local  []int32 // sorted distinct dataset-wide labels of the graph
	ll     []int32 // local label id of every node
	adjOff []int32 // CSR adjacency
	adj    []int32
	dist   []int32 // queueBFS distances, -1 = not reached
	queue  []int32
	rows   []uint64 // bitBFS adjacency bit rows
	bits   []uint64 // bitBFS visited, frontier and next sets
	base   []int    // count slot of distance 0 per label, for one source
	dense  []int32  // counts by (a*L+b)*n + d, all zero between graphs
	sparse map[uint64]int32
}

// spDenseMax bounds the dense count table of spWorker (entries); larger
// tables fall back to a map.
const spDenseMax = 1 << 20

// histogram returns graph gr's shortest-path triples as sorted packed keys
// (a<<42 | b<<21 | d, with a ≤ b the dataset-wide label ids of lab) and
// their counts.
func (w *spWorker) histogram(gr *datasets.Graph, lab []int32) ([]uint64, []float64) {
	n := gr.NumNodes
	if n < 2 || len(gr.Src) == 0 {
		return nil, nil
	}
	// Local label ids, in the order of the dataset-wide ids.
	w.local = append(w.local[:0], lab...)
	slices.Sort(w.local)
	w.local = slices.Compact(w.local)
	nl := len(w.local)
	w.ll = slices.Grow(w.ll[:0], n)[:n]
	for v, l := range lab {
		k, _ := slices.BinarySearch(w.local, l)
		w.ll[v] = int32(k)
	}
	// CSR adjacency (not assuming sorted edges).
	w.adjOff = slices.Grow(w.adjOff[:0], n+1)[:n+1]
	clear(w.adjOff)
	for _, s := range gr.Src {
		w.adjOff[s+1]++
	}
	for v := range n {
		w.adjOff[v+1] += w.adjOff[v]
	}
	w.adj = slices.Grow(w.adj[:0], len(gr.Src))[:len(gr.Src)]
	w.queue = slices.Grow(w.queue[:0], n)[:n]
	fill := w.queue // free until the BFS
	copy(fill, w.adjOff[:n])
	for e, s := range gr.Src {
		w.adj[fill[s]] = gr.Dst[e]
		fill[s]++
	}

	// Dense counts when the table is small and scanning it costs about as
	// much as the pairs themselves, else a map.
	dense := nl*nl <= 4*n+64 && nl*nl*n <= spDenseMax
	size := nl * nl * n
	if dense {
		if len(w.dense) < size {
			w.dense = make([]int32, size)
		}
	} else {
		if w.sparse == nil {
			w.sparse = map[uint64]int32{}
		}
		clear(w.sparse)
	}
	// base[b]: the slot of distance 0 for the current source's label and
	// label b; a pair at distance d is counted at base[label] + d.
	w.base = slices.Grow(w.base[:0], nl)[:nl]
	var maxD int
	if n <= spBitBFSMaxNodes {
		maxD = w.bitBFS(n, nl, dense)
	} else {
		maxD = w.queueBFS(n, nl, dense)
	}

	key := func(slot int) uint64 {
		d := slot % n
		pair := slot / n
		lo, hi := pair/nl, pair%nl
		return uint64(w.local[lo])<<(2*spFieldBits) | uint64(w.local[hi])<<spFieldBits | uint64(d)
	}
	var keys []uint64
	var counts []float64
	if dense {
		for lo := range nl {
			for hi := lo; hi < nl; hi++ {
				base := (lo*nl + hi) * n
				for d := 1; d <= maxD; d++ {
					if c := w.dense[base+d]; c != 0 {
						keys = append(keys, key(base+d))
						counts = append(counts, float64(c))
						w.dense[base+d] = 0
					}
				}
			}
		}
		return keys, counts
	}
	// Slots increase with (lo, hi, d), hence with the packed keys.
	slots := slices.Sorted(maps.Keys(w.sparse))
	for _, s := range slots {
		keys = append(keys, key(int(s)))
		counts = append(counts, float64(w.sparse[s]))
	}
	return keys, counts
}

// spBitBFSMaxNodes: graphs up to this size are searched with bitBFS, larger
// ones with queueBFS (a variable so that tests can exercise both).
var spBitBFSMaxNodes = 1024

// setBases fills w.base for a source of local label a.
func (w *spWorker) setBases(a int32, n, nl int) {
	for b := range int32(nl) {
		lo, hi := min(a, b), max(a, b)
		w.base[b] = (int(lo)*nl + int(hi)) * n
	}
}

// bitBFS runs a breadth-first search from every node u and counts every
// node v > u it reaches at distance d ≥ 1 at slot w.base[label of v] + d
// (see count); it returns the largest distance. Frontier and visited sets
// are bit sets and a level ORs the adjacency bit rows of its frontier,
// O(n/64) per frontier node and level without branches: faster than
// queueBFS on the small graphs of graph classification.
func (w *spWorker) bitBFS(n, nl int, dense bool) (maxD int) {
	words := (n + 63) / 64
	w.rows = slices.Grow(w.rows[:0], n*words)[:n*words]
	clear(w.rows)
	for v := range n {
		for _, x := range w.adj[w.adjOff[v]:w.adjOff[v+1]] {
			w.rows[v*words+int(x>>6)] |= 1 << (x & 63)
		}
	}
	w.bits = slices.Grow(w.bits[:0], 3*words)[:3*words]
	vis, front, next := w.bits[:words], w.bits[words:2*words], w.bits[2*words:]
	for u := range n {
		w.setBases(w.ll[u], n, nl)
		clear(vis)
		clear(front)
		vis[u>>6] |= 1 << (u & 63)
		front[u>>6] |= 1 << (u & 63)
		firstAbove := (u + 1) >> 6
		for d := 1; ; d++ {
			var any uint64
			if words == 1 {
				var nx uint64
				for f := front[0]; f != 0; f &= f - 1 {
					nx |= w.rows[bits.TrailingZeros64(f)]
				}
				nx &^= vis[0]
				vis[0] |= nx
				next[0], any = nx, nx
			} else {
				clear(next)
				for q, f := range front {
					for ; f != 0; f &= f - 1 {
						v := q<<6 | bits.TrailingZeros64(f)
						for r, x := range w.rows[v*words : (v+1)*words] {
							next[r] |= x
						}
					}
				}
				for q := range next {
					nx := next[q] &^ vis[q]
					next[q] = nx
					vis[q] |= nx
					any |= nx
				}
			}
			if any == 0 {
				break
			}
			maxD = max(maxD, d)
			for q := firstAbove; q < words; q++ {
				x := next[q]
				if q == firstAbove {
					x &= ^uint64(0) << ((u + 1) & 63)
				}
				for ; x != 0; x &= x - 1 {
					w.count(dense, w.base[w.ll[q<<6|bits.TrailingZeros64(x)]]+d)
				}
			}
			front, next = next, front
		}
	}
	return maxD
}

// count adds one pair at slot to the dense or the sparse counts.
func (w *spWorker) count(dense bool, slot int) {
	if dense {
		w.dense[slot]++
	} else {
		w.sparse[uint64(slot)]++
	}
}

// queueBFS is bitBFS with a queue and a distance array, O(n + m) per
// source whatever n, for large graphs.
func (w *spWorker) queueBFS(n, nl int, dense bool) (maxD int) {
	w.dist = slices.Grow(w.dist[:0], n)[:n]
	for v := range w.dist {
		w.dist[v] = -1
	}
	w.queue = slices.Grow(w.queue[:0], n)[:n]
	for u := range n {
		w.setBases(w.ll[u], n, nl)
		q := w.queue[:1]
		q[0] = int32(u)
		w.dist[u] = 0
		for head := 0; head < len(q); head++ {
			v := q[head]
			dv := w.dist[v]
			if int(v) > u {
				w.count(dense, w.base[w.ll[v]]+int(dv))
				maxD = max(maxD, int(dv))
			}
			for _, x := range w.adj[w.adjOff[v]:w.adjOff[v+1]] {
				if w.dist[x] < 0 {
					w.dist[x] = dv + 1
					q = append(q, x)
				}
			}
		}
		for _, v := range q {
			w.dist[v] = -1
		}
	}
	return maxD
}
