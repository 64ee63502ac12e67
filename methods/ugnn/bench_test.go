package ugnn

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ugbench/ugbench/internal/cputime"
	"github.com/ugbench/ugbench/methods/gnn"
)

// BenchmarkPhases times UGNN's three phases with docs/protocol.md §5's defaults
// (hidden 128, batch 256, size_chunks 3, I = 3 subgraphs) on the low-ratio
// split (seed 0) of real COIL-DEL and COLORS-3, from untrained weights:
//
//   - warmup-epoch: one warm-up epoch (cross-entropy + supervised
//     contrastive) over D^l;
//   - semi-epoch: one prototype-aware epoch over D^u, each batch of 256
//     unlabelled graphs (two perturbed views) paired with a labelled batch;
//   - scoring: s~ (μ − σ over I node-deleted subgraphs) of every graph of
//     D^u, which every cycle and the final prediction do once.
//
// COIL-DEL (≤ 77 nodes) runs in the default layout (gnn.ParamLayout: the
// edge list since it became the default, dense under auto before), so
// that contrib/perf/before-after.sh times what a grid's run does at each
// commit; COLORS-3 (≤ 200 nodes) in both layouts (sub-benchmarks dense and
// edges).
//
// A full run costs about warmup_epochs·warmup-epoch (saved by the warm-up
// cache for all but the first variant) + (epochs − warmup_epochs)·semi-epoch
// + (T + 1)·scoring. The first call of each phase, which compiles, is
// outside the timer. Besides the wall time each phase reports its CPU
// seconds (cpu-s/op, all threads), and the compilations of new input-shape
// signatures inside the timer (compiles/op) with their wall time
// (compile-s/op; gnn.Executable.CompileTime).
func BenchmarkPhases(b *testing.B) {
	for _, c := range []struct {
		name    string
		layouts []gnn.Layout
	}{
		{"COIL-DEL", []gnn.Layout{""}}, // the default
		{"COLORS-3", []gnn.Layout{gnn.LayoutDense, gnn.LayoutEdges}},
	} {
		b.Run(c.name, func(b *testing.B) {
			lt := newProtocolTask(b, c.name)
			for _, layout := range c.layouts {
				if len(c.layouts) == 1 {
					benchPhases(b, lt, layout)
					continue
				}
				b.Run(string(layout), func(b *testing.B) { benchPhases(b, lt, layout) })
			}
		})
	}
}

// benchPhases runs BenchmarkPhases' three phases on lt in layout ("":
// the default).
func benchPhases(b *testing.B, lt *protocolTask, layout gnn.Layout) {
	p := method{Variants[0]}.Defaults()
	if layout != "" {
		p["layout"] = string(layout)
	}
	var reported [][]int
	r := startRun(b, lt.task(p, 1, &reported), Variants[0])
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(0, 1))
	phase := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			if err := f(); err != nil { // compiles
				b.Fatal(err)
			}
			cpu0, _ := cputime.Seconds()
			n0, t0 := r.net.execs.Compiled()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
			cpu1, _ := cputime.Seconds()
			n1, t1 := r.net.execs.Compiled()
			b.ReportMetric((cpu1-cpu0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(n1-n0)/float64(b.N), "compiles/op")
			b.ReportMetric((t1-t0).Seconds()/float64(b.N), "compile-s/op")
		})
	}
	phase("warmup-epoch", func() error { _, err := r.labelledEpoch(ctx, rng, 1<<30); return err })
	protos, err := r.cycleStart(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	phase("semi-epoch", func() error { _, err := r.semiEpoch(ctx, rng, protos, 1<<30); return err })
	phase("scoring", func() error { _, _, err := r.confidence(ctx, r.task.Unlabelled, 1); return err })
}
