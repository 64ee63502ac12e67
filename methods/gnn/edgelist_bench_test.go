package gnn

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// BenchmarkTrainEpochLayouts times one gin-topk training epoch (hidden
// 128, 2 GIN layers per stage, TopK 0.8, random batches in 3 size-sorted
// chunks) in the dense and the edge-list layout: on the low-ratio labelled
// sets of Letter-high (≤ 9 nodes), COIL-DEL (≤ 77 nodes, batch 256) and COLORS-3 (≤ 200 nodes,
// batch 256), and on synthetic graphs of 4,000 nodes (synthetic4000: 32
// graphs, batch 16; synthetic4000-b2: 4 graphs, batch 2, small enough for
// the dense layout's [B, N, N] tensors). Besides time and cpu-s/op it
// reports the process's peak resident memory (peak-rss-MB, /proc VmHWM:
// a high-water mark of the whole process, so run one sub-benchmark per
// process, e.g. -bench 'Layouts/COLORS-3/dense$') and the Go runtime's
// memory obtained from the OS (sys-MB).
func BenchmarkTrainEpochLayouts(b *testing.B) {
	gin := EncoderConfig{Conv: ConvGIN}
	for _, c := range []struct {
		name          string
		task          func(testing.TB) *suite.Task
		batch, chunks int
		denseSkip     string // why the dense layout is not run, if it is not
	}{
		{"Letter-high", func(tb testing.TB) *suite.Task { return protocolTask(tb, "Letter-high", "low", nil) }, 256, 3, ""},
		{"COIL-DEL", func(tb testing.TB) *suite.Task { return protocolTask(tb, "COIL-DEL", "low", nil) }, 256, 3, ""},
		{"COLORS-3", func(tb testing.TB) *suite.Task { return protocolTask(tb, "COLORS-3", "low", nil) }, 256, 3, ""},
		{"synthetic4000", func(testing.TB) *suite.Task { return syntheticTask(32, 4000) }, 16, 1,
			"dense at 4,000 nodes, batch 16: ~1 GB per graph slot (synthetic4000-b2/dense measured 1.96 GB at batch 2), ~15 GB"},
		{"synthetic4000-b2", func(testing.TB) *suite.Task { return syntheticTask(4, 4000) }, 2, 1, ""},
	} {
		for _, layout := range []Layout{LayoutDense, LayoutEdges} {
			b.Run(c.name+"/"+string(layout), func(b *testing.B) {
				if layout == LayoutDense && c.denseSkip != "" {
					b.Skip(c.denseSkip)
				}
				benchTaskEpoch(b, c.task(b), gin, BatchingRandom, c.chunks, c.batch, layout)
				reportMemory(b)
			})
		}
	}
}

// reportMemory adds peak-rss-MB (VmHWM) and sys-MB (runtime.MemStats.Sys).
func reportMemory(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return // not Linux: no VmHWM
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
				b.ReportMetric(kb/1024, "peak-rss-MB")
			}
		}
	}
}

// syntheticTask is a task of count random graphs of n nodes each, shaped
// like REDDIT threads (sparse, hub-dominated: node v > 0 answers a node
// chosen with probability ∝ its degree + 1, plus n/10 random extra edges;
// undirected), with the node degree as the one feature and two classes
// (alternating), all labelled.
func syntheticTask(count, n int) *suite.Task {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	graphs := make([]datasets.Graph, count)
	labelled, labels := make([]int, count), make([]int, count)
	for i := range graphs {
		deg := make([]int, n)
		var ends []int32 // one entry per edge end, for the degree-proportional draw
		g := datasets.Graph{NumNodes: n}
		add := func(u, v int32) {
			g.Src, g.Dst = append(g.Src, u, v), append(g.Dst, v, u)
			deg[u]++
			deg[v]++
			ends = append(ends, u, v)
		}
		for v := 1; v < n; v++ {
			u := int32(rng.IntN(v))
			if len(ends) > 0 && rng.IntN(2) == 0 {
				u = ends[rng.IntN(len(ends))]
			}
			add(u, int32(v))
		}
		for k := 0; k < n/10; k++ {
			if u, v := int32(rng.IntN(n)), int32(rng.IntN(n)); u != v {
				add(u, v)
			}
		}
		g.Features = make([]float32, n)
		for v, d := range deg {
			g.Features[v] = float32(d)
		}
		graphs[i], labelled[i], labels[i] = g, i, i%2
	}
	return &suite.Task{
		Graphs: graphs, FeatureDim: 1, NumKnown: 2, Labelled: labelled, Labels: labels,
		Params: nil, Seed: 0, Backend: "go", Log: discardLog{}, Dataset: "synthetic",
	}
}

// topKSelectSorted is TopKSelectEdges by a sort instead of the radix
// select, for comparison: GoMLX's SortFunc over (graph, score, index) with
// the order graph ↑, score ↓, index ↑; a node's rank in its graph is its
// sorted position minus its graph's first position. Same arguments and
// result.
func topKSelectSorted(score, mask *Node, e EdgeGraph, ratio float64) *Node {
	g := score.Graph()
	nodes := score.Shape().Dim(0)
	nseg := e.NumGraphs + 1
	valid := GreaterThan(mask, ZerosLike(mask))
	s := Where(valid, StopGradient(score), BroadcastToDims(Scalar(g, score.DType(), -math.MaxFloat32), nodes))
	gid := Reshape(e.Graph, nodes)
	idx := Iota(g, shapes.Make(dtypes.Int32, nodes), 0)
	cmp := NewClosure(g, func(g *Graph) []*Node {
		gl, gr := Parameter(g, "gl", shapes.Make(dtypes.Int32)), Parameter(g, "gr", shapes.Make(dtypes.Int32))
		sl, sr := Parameter(g, "sl", shapes.Make(score.DType())), Parameter(g, "sr", shapes.Make(score.DType()))
		il, ir := Parameter(g, "il", shapes.Make(dtypes.Int32)), Parameter(g, "ir", shapes.Make(dtypes.Int32))
		return []*Node{Or(LessThan(gl, gr), And(Equal(gl, gr), Or(GreaterThan(sl, sr), And(Equal(sl, sr), LessThan(il, ir)))))}
	})
	sorted := SortFunc(cmp, 0, false, gid, s, idx)
	sgid, perm := InsertAxes(sorted[0], -1), InsertAxes(sorted[2], -1)
	pos := Iota(g, shapes.Make(dtypes.Int32, nodes), 0)
	first := ScatterMin(BroadcastToDims(Scalar(g, dtypes.Int32, int32(math.MaxInt32)), nseg), sgid, pos, false, false)
	rank := ConvertDType(Sub(pos, Reshape(Gather(first, sgid), nodes)), mask.DType())
	count := segmentSum(mask, e.Graph, nseg)
	keep := Ceil(AddScalar(MulScalar(count, ratio), -1e-6))
	kept := ConvertDType(LessThan(rank, Reshape(Gather(keep, sgid), nodes)), mask.DType())
	out := ScatterSum(ZerosLike(mask), perm, kept, false, true)
	return StopGradient(Mul(out, mask))
}

// randomSelectBatch is an edge batch of graphs of random sizes in [1, maxN]
// totalling about nodes nodes, and random scores with many exact ties
// (multiples of 1/8 in [−2, 2]).
func randomSelectBatch(nodes, maxN int, seed uint64) (*EdgeBatch, []float32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var graphs []datasets.Graph
	for total := 0; total < nodes; {
		n := 1 + rng.IntN(maxN)
		graphs = append(graphs, datasets.Graph{NumNodes: n})
		total += n
	}
	feats := &Features{Dim: 1, Nodes: make([][]float32, len(graphs))}
	idx := make([]int, len(graphs))
	for i, g := range graphs {
		feats.Nodes[i], idx[i] = make([]float32, g.NumNodes), i
	}
	b := NewEdgeBatch(graphs, feats, idx, len(graphs))
	s := make([]float32, b.Nodes)
	for v := range s {
		s[v] = float32(rng.IntN(33)-16) / 8
	}
	return b, s
}

// TestTopKSelectEdgesMatchesSort: the radix select keeps exactly the nodes
// the sort-based selection keeps, on random batches with many ties.
func TestTopKSelectEdgesMatchesSort(t *testing.T) {
	for seed := uint64(0); seed < 3; seed++ {
		b, s := randomSelectBatch(2000, 80, seed)
		in := b.Tensors()
		outs := MustExecOnceN(testBackend(t), func(s, src, dst, w, gr, m *Node) []*Node {
			e := NewEdgeGraph(src, dst, w, gr, b.B)
			return []*Node{TopKSelectEdges(s, m, e, 0.8), topKSelectSorted(s, m, e, 0.8)}
		}, tensors.FromFlatDataAndDimensions(s, b.Nodes), in[1], in[2], in[3], in[4], in[5])
		radix, sorted := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1])
		if !slices.Equal(radix, sorted) {
			t.Fatalf("seed %d: radix select and sort disagree", seed)
		}
		var kept float32
		for _, k := range radix {
			kept += k
		}
		if kept == 0 {
			t.Fatalf("seed %d: nothing kept", seed)
		}
	}
}

// BenchmarkTopKSelectEdges compares the radix select (TopKSelectEdges)
// with the sort-based selection (topKSelectSorted) on one batch of about
// 16k nodes (graphs of 1–120 nodes, a COLORS-3-sized batch) and 128k
// nodes (graphs of 1–1,000 nodes); compilation is outside the timer.
func BenchmarkTopKSelectEdges(b *testing.B) {
	for _, c := range []struct {
		name        string
		nodes, maxN int
	}{{"16k", 16000, 120}, {"128k", 128000, 1000}} {
		batch, s := randomSelectBatch(c.nodes, c.maxN, 1)
		in := batch.Tensors()
		args := []any{tensors.FromFlatDataAndDimensions(s, batch.Nodes), in[1], in[2], in[3], in[4], in[5]}
		for _, m := range []struct {
			name string
			sel  func(score, mask *Node, e EdgeGraph, ratio float64) *Node
		}{{"radix", TopKSelectEdges}, {"sort", topKSelectSorted}} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				exec := MustNewExec(testBackend(b), func(s, src, dst, w, gr, mk *Node) *Node {
					return m.sel(s, mk, NewEdgeGraph(src, dst, w, gr, batch.B), 0.8)
				})
				exec.MustExec(args...)
				b.ResetTimer()
				for b.Loop() {
					exec.MustExec(args...)
				}
			})
		}
	}
}
