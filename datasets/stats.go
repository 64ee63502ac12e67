package datasets

// Stats are a dataset's summary statistics, the columns of the paper's
// Table 1 plus a few more.
type Stats struct {
	// Name is the dataset name.
	Name string
	// Graphs is the number of graphs.
	Graphs int
	// Classes is the number of classes.
	Classes int
	// AvgNodes is the mean number of nodes per graph.
	AvgNodes float64
	// AvgEdges is the mean of Graph.NumEdges: undirected edges, each
	// unordered pair {u, v} counted once (self-loops and duplicates were
	// dropped by the loader), or the directed edges of Directed graphs
	// (MNIST, CIFAR10), as the paper's Table 1 counts them.
	AvgEdges float64
	// Directed is true when the graphs are Directed (AvgEdges then counts
	// directed edges).
	Directed bool
	// MinNodes and MaxNodes are the smallest and largest graph sizes.
	MinNodes, MaxNodes int
	// FeatureDim and FeatureKind describe the node features.
	FeatureDim  int
	FeatureKind FeatureKind
	// NumNodeLabels is the number of discrete node labels (0 if none).
	NumNodeLabels int
	// ClassCounts is the number of graphs of each class, shape [Classes].
	ClassCounts []int
}

// ComputeStats summarises ds. An empty dataset gives zero averages.
func ComputeStats(ds *Dataset) Stats {
	s := Stats{
		Name:          ds.Name,
		Graphs:        len(ds.Graphs),
		Classes:       ds.NumClasses,
		FeatureDim:    ds.FeatureDim,
		FeatureKind:   ds.FeatureKind,
		NumNodeLabels: ds.NumNodeLabels,
		ClassCounts:   make([]int, ds.NumClasses),
	}
	var nodes, edges int
	for i := range ds.Graphs {
		g := &ds.Graphs[i]
		nodes += g.NumNodes
		edges += g.NumEdges()
		s.Directed = s.Directed || g.Directed
		if i == 0 || g.NumNodes < s.MinNodes {
			s.MinNodes = g.NumNodes
		}
		if g.NumNodes > s.MaxNodes {
			s.MaxNodes = g.NumNodes
		}
	}
	for _, y := range ds.Labels {
		if y >= 0 && y < ds.NumClasses {
			s.ClassCounts[y]++
		}
	}
	if s.Graphs > 0 {
		s.AvgNodes = float64(nodes) / float64(s.Graphs)
		s.AvgEdges = float64(edges) / float64(s.Graphs)
	}
	return s
}
