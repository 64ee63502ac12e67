package reports

import (
	"fmt"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/reports/table"
)

// DatasetRow is one row of the paper's Table 1: measured statistics of a
// dataset next to its protocol entry.
type DatasetRow struct {
	Stats datasets.Stats
	Info  datasets.Info // zero if the dataset has no protocol entry
}

// DatasetsTable is the paper's Table 1 for rows: graphs, classes, average
// nodes and edges (undirected edges counted once; the directed kNN edges
// of MNIST/CIFAR10 each, marked "(directed)"), known/unknown classes, node
// features, low/high labelled ratio, and the paper's own figures where it
// gives them.
func DatasetsTable(rows []DatasetRow) *table.Plain {
	p := &table.Plain{
		Title:  "Datasets (paper Table 1; undirected edges counted once, directed edges each)",
		Header: []string{"Dataset", "# Graphs", "# Classes", "Avg. # Nodes", "Avg. # Edges", "# Known", "# Unknown", "Node feature", "Low Ratio", "High Ratio", "Paper: graphs/classes/nodes/edges"},
	}
	for _, r := range rows {
		s, in := r.Stats, r.Info
		edges := fmt.Sprintf("%.2f", s.AvgEdges)
		if s.Directed {
			edges += " (directed)"
		}
		row := []string{
			s.Name, fmt.Sprint(s.Graphs), fmt.Sprint(s.Classes),
			fmt.Sprintf("%.2f", s.AvgNodes), edges,
			"–", "–", string(s.FeatureKind), "–", "–", "–",
		}
		if in.Name != "" {
			row[5], row[6] = fmt.Sprint(in.Known), fmt.Sprint(in.Unknown())
			row[7] = in.NodeFeature
			row[8], row[9] = fmt.Sprintf("%g%%", 100*in.Low), fmt.Sprintf("%g%%", 100*in.High)
		}
		if in.InPaper {
			row[10] = fmt.Sprintf("%d/%d/%.2f/%.2f", in.PaperGraphs, in.PaperClasses, in.PaperAvgNodes, in.PaperAvgEdges)
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}
