// Package kernels holds the graph-kernel baselines of ugbench (the paper's
// "WL Kernel", "SP Kernel" and "Graphlet Kernel" rows of Table 2): a graph
// kernel's explicit feature map (WLFeatures, SPFeatures, GraphletFeatures)
// followed by a one-vs-rest linear SVM trained on the labelled graphs
// (FitKernel, shared by the three methods). The unknown score of a kernel +
// SVM baseline is minus the largest one-vs-rest decision value (docs/protocol.md §3).
// Feature maps depend only on the graphs and the kernel's parameters, so a
// process computes each once (FeatureCache).
package kernels

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ugbench/ugbench/datasets"
)

// SparseVector is a sparse feature vector: Index holds strictly increasing
// feature ids and Value the matching (non-zero) values.
type SparseVector struct {
	// Index holds the feature ids, strictly increasing.
	Index []int32
	// Value holds the value of each feature in Index.
	Value []float64
}

// Dot returns v·w. Feature ids of v must be below len(w).
func (v SparseVector) Dot(w []float64) float64 {
	var s float64
	for k, j := range v.Index {
		s += v.Value[k] * w[j]
	}
	return s
}

// SquaredNorm returns ||v||².
func (v SparseVector) SquaredNorm() float64 {
	var s float64
	for _, x := range v.Value {
		s += x * x
	}
	return s
}

// FeatureMap is the explicit feature map of a graph kernel over a list of
// graphs: Rows[g] is graph g's feature vector, and the kernel value of two
// graphs is the dot product of their rows (before normalisation). For WL,
// Rows[g] is the concatenation, over iterations 0..Iterations, of the
// histogram of graph g's node labels at that iteration.
type FeatureMap struct {
	// Kernel names the map: "wl", "sp" or "graphlet".
	Kernel string
	// Iterations is h, the number of WL relabelling iterations (0 for
	// the other kernels).
	Iterations int
	// Dim is the total feature dimension: every id in Rows is below it.
	Dim int
	// Offsets delimit blocks of features: block i holds the ids in
	// [Offsets[i], Offsets[i+1]). WL: one block per iteration (length
	// Iterations+2); graphlet: graphlets of size 3, then of size 4; sp:
	// a single block.
	Offsets []int
	// NodeLabels is true if the node labels were the graphs' discrete
	// node labels, false if they were node degrees (and for graphlets,
	// which are unlabelled).
	NodeLabels bool
	// Names holds a readable name of every feature id where the kernel
	// has few enough features to name them (sp, graphlet), else nil.
	Names []string
	// Sampled is the number of graphs whose features were estimated by
	// sampling rather than computed exactly (graphlet; 0 otherwise).
	Sampled int
	// Rows holds one sparse vector per graph, in input order. Rows share
	// backing arrays and must not be modified.
	Rows []SparseVector
}

// WLFeatures computes the Weisfeiler-Lehman subtree feature map
// (Shervashidze et al., "Weisfeiler-Lehman Graph Kernels", JMLR 12, 2011)
// of graphs with the given number of relabelling iterations h (GraKeL's
// default is 5).
//
// The initial label of a node is its discrete node label
// (datasets.Graph.NodeLabels) when the dataset has them, else its degree,
// GraKeL's convention for unlabelled graphs. Continuous node attributes
// (Letter and COIL coordinates, COLORS-3 colours) are not used, as in the
// paper's kernel rows. At each iteration a node's new label is the
// compressed id of the pair (own label, sorted multiset of its neighbours'
// labels). Compression dictionaries are shared by all graphs, one per
// iteration, and ids are given in order of first appearance (graphs in
// order, nodes in order), so the map is deterministic and the features of
// different graphs are comparable.
//
// Either every graph with nodes has NodeLabels or none has; a mix is an
// error, as are a negative h and malformed graphs.
func WLFeatures(graphs []datasets.Graph, iterations int) (*FeatureMap, error) {
	return wlFeatures(graphs, iterations, hashSignature)
}

// wlFeatures is WLFeatures with the signature hash as a parameter, so that
// tests can force hash collisions.
func wlFeatures(graphs []datasets.Graph, iterations int, hash func([]int32) uint64) (*FeatureMap, error) {
	if iterations < 0 || iterations >= math.MaxInt32 {
		return nil, fmt.Errorf("wl: iterations must be in [0, 2³¹−1), got %d", iterations)
	}
	useLabels, err := checkGraphs("wl", graphs)
	if err != nil {
		return nil, err
	}

	// Flatten all graphs into one CSR adjacency over global node ids.
	nodeStart := make([]int, len(graphs)+1)
	totalEdges := 0
	for g := range graphs {
		nodeStart[g+1] = nodeStart[g] + graphs[g].NumNodes
		totalEdges += len(graphs[g].Src)
	}
	n := nodeStart[len(graphs)]
	// Each iteration has at most n labels, so every feature id is below
	// n*(h+1); ids and edge offsets are int32.
	if n*(iterations+1) > math.MaxInt32 || totalEdges > math.MaxInt32 {
		return nil, errors.New("wl: graphs too large for int32 feature ids")
	}
	adjOff := make([]int32, n+1)
	for g := range graphs {
		base := nodeStart[g]
		for _, s := range graphs[g].Src {
			adjOff[base+int(s)+1]++
		}
	}
	for v := 0; v < n; v++ {
		adjOff[v+1] += adjOff[v]
	}
	adj := make([]int32, totalEdges)
	fill := slices.Clone(adjOff[:n])
	for g := range graphs {
		base := int32(nodeStart[g])
		gr := &graphs[g]
		for e, s := range gr.Src {
			u := base + s
			adj[fill[u]] = base + gr.Dst[e]
			fill[u]++
		}
	}

	// feat holds, per graph g with nodes [s, e), the global feature id of
	// every node at every iteration, at (h+1)*s + it*(e-s) + (v-s).
	h1 := iterations + 1
	feat := make([]int32, n*h1)
	offsets := make([]int, 1, iterations+2)
	cur := make([]int32, n)

	// Iteration 0: compress the raw labels.
	dict0 := map[int32]int32{}
	for g := range graphs {
		gr := &graphs[g]
		for v := 0; v < gr.NumNodes; v++ {
			var raw int32
			if useLabels {
				raw = gr.NodeLabels[v]
			} else {
				raw = adjOff[nodeStart[g]+v+1] - adjOff[nodeStart[g]+v]
			}
			id, ok := dict0[raw]
			if !ok {
				id = int32(len(dict0))
				dict0[raw] = id
			}
			cur[nodeStart[g]+v] = id
		}
	}
	offsets = append(offsets, len(dict0))
	writeFeat(feat, cur, nodeStart, h1, 0, 0)

	next := make([]int32, n)
	var dict signatureDict
	var nb []int32
	var count []int32
	for it := 1; it <= iterations; it++ {
		// A node whose label is unique in the dataset has a unique
		// signature (it contains that label), so it gets a fresh id
		// without a dictionary look-up; on most datasets nearly all labels
		// are unique after two or three iterations.
		k := offsets[it] - offsets[it-1]
		count = slices.Grow(count[:0], k)[:k]
		clear(count)
		shared := 0
		for _, l := range cur {
			count[l]++
		}
		for _, c := range count {
			if c > 1 {
				shared += int(c)
			}
		}
		dict.reset(hash, shared)
		for v := 0; v < n; v++ {
			if count[cur[v]] == 1 {
				next[v] = dict.fresh()
				continue
			}
			nb = append(nb[:0], cur[v])
			for _, u := range adj[adjOff[v]:adjOff[v+1]] {
				nb = append(nb, cur[u])
			}
			sortSmall(nb[1:])
			next[v] = dict.id(nb)
		}
		cur, next = next, cur
		writeFeat(feat, cur, nodeStart, h1, it, int32(offsets[it]))
		offsets = append(offsets, offsets[it]+dict.len())
	}
	dim := offsets[iterations+1]

	// Histogram every graph: sort its ids and run-length encode them.
	index := make([]int32, 0, n*h1)
	value := make([]float64, 0, n*h1)
	rowStart := make([]int, len(graphs)+1)
	for g := range graphs {
		ids := feat[h1*nodeStart[g] : h1*nodeStart[g+1]]
		slices.Sort(ids)
		for k := 0; k < len(ids); {
			j := k + 1
			for j < len(ids) && ids[j] == ids[k] {
				j++
			}
			index = append(index, ids[k])
			value = append(value, float64(j-k))
			k = j
		}
		rowStart[g+1] = len(index)
	}
	rows := make([]SparseVector, len(graphs))
	for g := range rows {
		a, b := rowStart[g], rowStart[g+1]
		rows[g] = SparseVector{Index: index[a:b:b], Value: value[a:b:b]}
	}
	return &FeatureMap{
		Kernel:     "wl",
		Iterations: iterations,
		Dim:        dim,
		Offsets:    offsets,
		NodeLabels: useLabels,
		Rows:       rows,
	}, nil
}

// signatureDict compresses WL signatures (own label, sorted neighbour
// labels) to dense ids in order of first appearance. It keys a map by a
// 64-bit hash of the signature and checks every hit against the stored
// signature; the rare true collision falls back to a map keyed by the
// signature's bytes, so ids are exact whatever the hash.
type signatureDict struct {
	hash     func([]int32) uint64
	byHash   map[uint64]int32
	overflow map[string]int32
	sigStart []int // signature of id k is sigPool[sigStart[k]:sigStart[k+1]]
	sigPool  []int32
	key      []byte
}

// reset empties d for a new iteration over about n nodes.
func (d *signatureDict) reset(hash func([]int32) uint64, n int) {
	d.hash = hash
	d.byHash = make(map[uint64]int32, n)
	d.overflow = nil
	d.sigStart = append(d.sigStart[:0], 0)
	d.sigPool = d.sigPool[:0]
}

// len returns the number of distinct signatures seen.
func (d *signatureDict) len() int { return len(d.sigStart) - 1 }

// id returns the id of signature sig, adding it if new.
func (d *signatureDict) id(sig []int32) int32 {
	h := d.hash(sig)
	id, ok := d.byHash[h]
	if ok && slices.Equal(d.sigPool[d.sigStart[id]:d.sigStart[id+1]], sig) {
		return id
	}
	if ok { // a different signature with the same hash
		d.key = d.key[:0]
		for _, l := range sig {
			d.key = append(d.key, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
		}
		if id, found := d.overflow[string(d.key)]; found {
			return id
		}
		if d.overflow == nil {
			d.overflow = map[string]int32{}
		}
		id = d.add(sig)
		d.overflow[string(d.key)] = id
		return id
	}
	id = d.add(sig)
	d.byHash[h] = id
	return id
}

// fresh returns a new id for a signature known to be unique, without
// storing it.
func (d *signatureDict) fresh() int32 {
	id := int32(d.len())
	d.sigStart = append(d.sigStart, len(d.sigPool))
	return id
}

func (d *signatureDict) add(sig []int32) int32 {
	id := int32(d.len())
	d.sigPool = append(d.sigPool, sig...)
	d.sigStart = append(d.sigStart, len(d.sigPool))
	return id
}

// hashSignature hashes a label sequence to 64 bits (a multiply-xorshift
// mix per element, then the length).
func hashSignature(sig []int32) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, l := range sig {
		h ^= uint64(uint32(l))
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	h ^= uint64(len(sig))
	h *= 0x94D049BB133111EB
	h ^= h >> 29
	return h
}

// writeFeat stores the labels cur of iteration it, shifted by offset, into
// the graph-major layout of feat.
func writeFeat(feat, cur []int32, nodeStart []int, h1, it int, offset int32) {
	for g := 0; g+1 < len(nodeStart); g++ {
		s, e := nodeStart[g], nodeStart[g+1]
		dst := feat[h1*s+it*(e-s) : h1*s+(it+1)*(e-s)]
		for k, l := range cur[s:e] {
			dst[k] = l + offset
		}
	}
}

// sortSmall sorts a (usually short) neighbour label list.
func sortSmall(a []int32) {
	if len(a) > 16 {
		slices.Sort(a)
		return
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}

// checkGraphs validates graphs (see checkStructure) and reports whether
// they carry node labels: either every graph with nodes has NodeLabels, one
// per node, or none has. Errors are prefixed with kernel.
func checkGraphs(kernel string, graphs []datasets.Graph) (useLabels bool, err error) {
	if err := checkStructure(kernel, graphs); err != nil {
		return false, err
	}
	withLabels, withNodes := 0, 0
	for g := range graphs {
		gr := &graphs[g]
		if gr.NumNodes == 0 {
			continue
		}
		withNodes++
		if gr.NodeLabels != nil {
			if len(gr.NodeLabels) != gr.NumNodes {
				return false, fmt.Errorf("%s: graph %d: %d node labels for %d nodes", kernel, g, len(gr.NodeLabels), gr.NumNodes)
			}
			withLabels++
		}
	}
	if withLabels != 0 && withLabels != withNodes {
		return false, fmt.Errorf("%s: %d of %d non-empty graphs have node labels; need all or none", kernel, withLabels, withNodes)
	}
	return withLabels > 0, nil
}

// checkStructure checks that every graph has a non-negative node count and
// edges between its nodes; errors are prefixed with kernel.
func checkStructure(kernel string, graphs []datasets.Graph) error {
	for g := range graphs {
		gr := &graphs[g]
		if gr.NumNodes < 0 || len(gr.Src) != len(gr.Dst) {
			return fmt.Errorf("%s: graph %d: malformed (%d nodes, %d sources, %d targets)",
				kernel, g, gr.NumNodes, len(gr.Src), len(gr.Dst))
		}
		for e := range gr.Src {
			if s, d := gr.Src[e], gr.Dst[e]; s < 0 || d < 0 || int(s) >= gr.NumNodes || int(d) >= gr.NumNodes {
				return fmt.Errorf("%s: graph %d: edge %d (%d→%d) out of range for %d nodes", kernel, g, e, s, d, gr.NumNodes)
			}
		}
	}
	return nil
}

// Normalize returns rows scaled to unit norm: norm is "l2" (Euclidean, the
// same as GraKeL's normalised kernel k(x,y)/√(k(x,x)k(y,y))), "l1" (sum of
// absolute values) or "none" (a copy). All-zero rows stay zero. The result
// has fresh value arrays and shares the index arrays of rows.
func Normalize(rows []SparseVector, norm string) ([]SparseVector, error) {
	switch norm {
	case "l1", "l2", "none":
	default:
		return nil, fmt.Errorf("unknown norm %q (want l1, l2 or none)", norm)
	}
	total := 0
	for _, r := range rows {
		total += len(r.Value)
	}
	vals := make([]float64, 0, total)
	out := make([]SparseVector, len(rows))
	for i, r := range rows {
		var z float64
		switch norm {
		case "l1":
			for _, x := range r.Value {
				if x < 0 {
					x = -x
				}
				z += x
			}
		case "l2":
			z = math.Sqrt(r.SquaredNorm())
		case "none":
			z = 1
		}
		start := len(vals)
		for _, x := range r.Value {
			if z > 0 {
				x /= z
			}
			vals = append(vals, x)
		}
		out[i] = SparseVector{Index: r.Index, Value: vals[start:len(vals):len(vals)]}
	}
	return out, nil
}
