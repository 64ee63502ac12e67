package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/ugbench/ugbench/reports/figures"
	"github.com/ugbench/ugbench/runs"
)

// runPlotTSNE is bench plot tsne: the paper's Figure 6 (figures.TSNEPlots).
func runPlotTSNE(args []string, stdout io.Writer) error {
	fs := newFlags("plot tsne", "plot tsne --db FILE [selection] --out FILE.svg|.png|.pdf [flags]")
	sel := addSelection(fs, "only runs of these statuses (default finished)")
	ids := fs.Int64Slice("ids", nil, "only these run ids (bench runs lists them)")
	out := fs.String("out", "", "the figure file: .svg, .png or .pdf (required)")
	perplexity := fs.Float64("perplexity", 30, "t-SNE perplexity: effective neighbours per point, below the number of test graphs")
	iterations := fs.Int("iterations", 1000, "t-SNE gradient-descent steps")
	lr := fs.Float64("learning-rate", figures.DefaultTSNELearningRate, "t-SNE learning rate (go-tsne accumulates gradients: keep it small)")
	seed := fs.Int64("tsne-seed", 0, "seed of t-SNE's initial map")
	maxPoints := fs.Int("max-points", figures.DefaultTSNEMaxPoints, "the most test graphs per panel: a larger test set (MNIST's, CIFAR10's) is cut to a uniform sample, the same graphs in every panel of a split, drawn by --tsne-seed (0: all; t-SNE is O(n²) a step)")
	cols := fs.Int("cols", 2, "panels per row")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("--out FILE.svg|.png|.pdf is required")
	}
	store, rs, err := sel.loadMatching()
	if err != nil {
		return err
	}
	defer store.Close()
	if len(*ids) > 0 {
		rs = slices.DeleteFunc(rs, func(r runs.Run) bool { return !slices.Contains(*ids, r.ID) })
		if len(rs) == 0 {
			return fmt.Errorf("--ids %v: no such run among the selection; check bench runs", *ids)
		}
	}
	// Panels follow --methods, then run id: `--methods ugnn,gin-topk` puts
	// UGNN on the left, as in the paper.
	slices.SortStableFunc(rs, func(a, b runs.Run) int {
		ia, ib := slices.Index(*sel.methods, a.Spec.Method), slices.Index(*sel.methods, b.Spec.Method)
		if ia != ib {
			return ia - ib
		}
		return int(a.ID - b.ID)
	})
	if len(rs) > figures.MaxTSNERuns {
		return fmt.Errorf("t-SNE: %d runs selected, at most %d panels; narrow the selection (--methods, --seeds, --ids)", len(rs), figures.MaxTSNERuns)
	}
	plots, err := figures.TSNEPlots(rs, store.Embeddings, figures.TSNEConfig{
		Perplexity: *perplexity, Iterations: *iterations, LearningRate: *lr, Seed: *seed, MaxPoints: *maxPoints})
	if err != nil {
		return err
	}
	if err := figures.SavePlots(plots, *cols, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d panel(s)\n", *out, len(plots))
	return nil
}
