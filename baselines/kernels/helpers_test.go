package kernels

import (
	"slices"

	"github.com/ugbench/ugbench/datasets"
)

// mkGraph builds a Graph with n nodes from undirected edges, stored in both
// directions and sorted by (Src, Dst) as datasets.Graph requires. labels
// may be nil.
func mkGraph(n int, edges [][2]int, labels []int32) datasets.Graph {
	type e struct{ s, d int32 }
	var es []e
	for _, x := range edges {
		es = append(es, e{int32(x[0]), int32(x[1])}, e{int32(x[1]), int32(x[0])})
	}
	slices.SortFunc(es, func(a, b e) int {
		if a.s != b.s {
			return int(a.s - b.s)
		}
		return int(a.d - b.d)
	})
	g := datasets.Graph{NumNodes: n, NodeLabels: labels}
	for _, x := range es {
		g.Src = append(g.Src, x.s)
		g.Dst = append(g.Dst, x.d)
	}
	return g
}

func path(n int) [][2]int {
	var es [][2]int
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	return es
}

func cycle(n int) [][2]int { return append(path(n), [2]int{n - 1, 0}) }

func star(n int) [][2]int {
	var es [][2]int
	for i := 1; i < n; i++ {
		es = append(es, [2]int{0, i})
	}
	return es
}

func clique(n int) [][2]int {
	var es [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			es = append(es, [2]int{i, j})
		}
	}
	return es
}
