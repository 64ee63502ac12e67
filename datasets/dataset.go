// Package datasets holds the graph data of ugbench: the in-memory Graph and
// Dataset types, the TU text-format reader, dataset statistics (the paper's
// Table 1), and the protocol split of docs/protocol.md §2.
//
// A Graph carries no class label: labels live in Dataset.Labels, so that code
// handed only graphs (a method under evaluation) cannot read the labels of
// unlabelled graphs.
package datasets

// Graph is one graph with node features: undirected (the TU datasets) or
// directed (the kNN superpixel graphs of MNIST and CIFAR10, Directed set).
//
// Edges are sorted by (Src, Dst), without self-loops or duplicates; node
// ids are 0-based and local to the graph. Message passing follows the
// stored direction: edge e carries Src[e]'s message to Dst[e] (the GNN
// batch puts it at row Dst[e], column Src[e] of the adjacency).
type Graph struct {
	// NumNodes is the number of nodes n.
	NumNodes int
	// Src and Dst hold the directed edge list: edge e goes Src[e] → Dst[e].
	// Unless Directed, every undirected edge {u, v} appears twice, as
	// (u, v) and (v, u).
	Src, Dst []int32
	// Directed is true when the edge list is directed as stored: (u, v)
	// does not imply (v, u). The superpixel graphs have 8 out-edges per
	// node, to the 8 most similar superpixels (docs/datasets.md, "Nodes and edges").
	Directed bool
	// EdgeWeight, if non-nil, is the weight of each edge, shape [len(Src)]
	// (superpixel graphs: the Gaussian similarity of the two centroids,
	// Dwivedi et al.'s data/superpixels.py). Layers that ignore weights treat every edge as 1.
	EdgeWeight []float32
	// Features is the node feature matrix, shape [NumNodes, Dataset.FeatureDim],
	// row-major.
	Features []float32
	// NodeLabels holds the discrete node labels (0-based, dense) where the
	// dataset has a node_labels file, else nil. Graph kernels use them.
	NodeLabels []int32
}

// NumEdges is the number of edges as the paper's Table 1 counts them: the
// undirected edges (half the stored count) of an undirected graph, every
// stored edge of a Directed one.
func (g *Graph) NumEdges() int {
	if g.Directed {
		return len(g.Src)
	}
	return len(g.Src) / 2
}

// Degrees returns the degree of every node, shape [NumNodes]: the number
// of stored edges leaving it (the out-degree of a Directed graph).
func (g *Graph) Degrees() []int {
	d := make([]int, g.NumNodes)
	for _, s := range g.Src {
		d[s]++
	}
	return d
}

// FeatureKind says where a dataset's node features came from (docs/protocol.md §1).
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
	// FeaturesSuperpixel: mean intensity (MNIST, 1 column) or mean RGB
	// (CIFAR10, 3 columns) of a SLIC superpixel in [0, 1], then its
	// centroid (row, col) divided by the image side (docs/datasets.md, "Nodes and edges").
	FeaturesSuperpixel FeatureKind = "superpixel"
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
