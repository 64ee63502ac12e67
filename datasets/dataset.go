// Package datasets holds the graph data of ugbench: the in-memory Graph and
// Dataset types, the TU text-format reader, dataset statistics (the paper's
// Table 1), and the protocol split of PROTOCOL.md §2.
//
// A Graph carries no class label: labels live in Dataset.Labels, so that code
// handed only graphs (a method under evaluation) cannot read the labels of
// unlabelled graphs.
package datasets

// Graph is one undirected graph with node features.
//
// Edges are stored in both directions, sorted by (Src, Dst), without
// self-loops or duplicates; node ids are 0-based and local to the graph.
type Graph struct {
	// NumNodes is the number of nodes n.
	NumNodes int
	// Src and Dst hold the directed edge list: edge e goes Src[e] → Dst[e].
	// Every undirected edge {u, v} appears twice, as (u, v) and (v, u).
	Src, Dst []int32
	// Features is the node feature matrix, shape [NumNodes, Dataset.FeatureDim],
	// row-major.
	Features []float32
	// NodeLabels holds the discrete node labels (0-based, dense) where the
	// dataset has a node_labels file, else nil. Graph kernels use them.
	NodeLabels []int32
}

// NumEdges is the number of undirected edges (half the directed edge count).
func (g *Graph) NumEdges() int { return len(g.Src) / 2 }

// Degrees returns the degree of every node, shape [NumNodes].
func (g *Graph) Degrees() []int {
	d := make([]int, g.NumNodes)
	for _, s := range g.Src {
		d[s]++
	}
	return d
}

// FeatureKind says where a dataset's node features came from (PROTOCOL §1).
type FeatureKind string

const (
	// FeaturesAttributes: the dataset's node_attributes file (Letter, COIL:
	// 2-d coordinates; COLORS-3: 4-d colour one-hot).
	FeaturesAttributes FeatureKind = "attributes"
	// FeaturesNodeLabels: one-hot encoding of the node_labels file.
	FeaturesNodeLabels FeatureKind = "node-labels"
	// FeaturesDegree: constant 1 plus the node degree, for datasets with
	// neither attributes nor labels (REDDIT, IMDB).
	FeaturesDegree FeatureKind = "degree"
)

// Dataset is a list of graphs with one class label each.
type Dataset struct {
	// Name is the dataset's name, e.g. "Letter-high".
	Name string
	// Graphs holds the graphs, in file order.
	Graphs []Graph
	// Labels holds the class of each graph, remapped to 0..NumClasses-1 in
	// ascending order of the original label value.
	Labels []int
	// NumClasses is |C|.
	NumClasses int
	// FeatureDim is d, the width of every Graph.Features row.
	FeatureDim int
	// FeatureKind says where the features came from.
	FeatureKind FeatureKind
	// NumNodeLabels is the number of distinct discrete node labels, 0 if the
	// dataset has none.
	NumNodeLabels int
}
