package ugnn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
)

// luRef is L^u of paper eqs. (9)–(13) in float64 for real graphs only:
// Q = Sinkhorn-Knopp of exp(factor·z1·Hᵀ/ε) (sinkhornRef), p =
// softmax(z2·Hᵀ/τ), L^u = −mean_i Σ_e Q_ie log p_ie. z1, z2 [n][D],
// protos [E][D].
func luRef(z1, z2, protos [][]float32, factor, eps, tau float64, iters int) float64 {
	dot := func(a, b []float32) float64 {
		var s float64
		for k := range a {
			s += float64(a[k]) * float64(b[k])
		}
		return s
	}
	n, e := len(z1), len(protos)
	s := make([][]float64, n)
	w := make([]float64, n)
	for i := range s {
		s[i], w[i] = make([]float64, e), 1
		for c := range protos {
			s[i][c] = factor * dot(z1[i], protos[c])
		}
	}
	q := sinkhornRef(s, w, eps, iters)
	var lu float64
	for i := range z2 {
		logits := make([]float64, e)
		m := math.Inf(-1)
		for c := range protos {
			logits[c] = dot(z2[i], protos[c]) / tau
			m = max(m, logits[c])
		}
		var z float64
		for _, l := range logits {
			z += math.Exp(l - m)
		}
		for c, l := range logits {
			lu -= q[i][c] * (l - m - math.Log(z))
		}
	}
	return lu / float64(n)
}

// TestSemiStepWiring: one prototype-aware step (network.semi) on real
// Letter-high graphs, several size chunks, reports as L^u what luRef
// computes from the embeddings the predict pass gives the same two views
// just before the step: Q from the edge-deleted view 1 with the paper's
// exp(2HᵀZ/ε), p from the node-deleted view 2 at temperature τ. It also
// returns view 1's embeddings in the rows semiInputs names. The wrong
// wirings (views swapped, no factor 2, no τ) are checked to give values the
// tolerance tells apart, so the test can fail.
func TestSemiStepWiring(t *testing.T) {
	lt := newLetterTask(t)
	var reported [][]int
	r := startRun(t, lt.task(lt.params(1), 1, &reported), Variants[0])
	ctx := context.Background()
	// Untrained, every graph's embedding points nearly the same way and p
	// is almost uniform whatever the wiring: train the embeddings apart.
	rng := rand.New(rand.NewPCG(0, 1))
	for range 8 {
		if _, err := r.labelledEpoch(ctx, rng, 1<<30); err != nil {
			t.Fatal(err)
		}
	}
	protos, err := r.cycleStart(ctx, 1) // 10 known-class means + R = 3 k-means centroids
	if err != nil {
		t.Fatal(err)
	}
	part := lt.split.Unlabelled[:150]
	args, kl, chunks := r.semiInputs(lt.split.Labelled[:64], part, protos, 0)
	if len(chunks) < 2 {
		t.Fatalf("%d unlabelled chunks: the test wants several", len(chunks))
	}
	var v1, v2 []view
	for _, c := range chunks {
		for _, g := range c.graphs {
			v1 = append(v1, r.edgeDropView(g, "view1", r.tr.Epoch, 0))
			v2 = append(v2, r.nodeDropView(g, "view2", r.tr.Epoch, 0))
		}
	}
	if len(v1) != len(part) {
		t.Fatalf("chunks hold %d graphs, want %d", len(v1), len(part))
	}
	_, z1, err := r.predictViews(ctx, v1)
	if err != nil {
		t.Fatal(err)
	}
	_, z2, err := r.predictViews(ctx, v2)
	if err != nil {
		t.Fatal(err)
	}
	semi, err := r.net.semi(kl)
	if err != nil {
		t.Fatal(err)
	}
	out, err := semi.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gnn.CheckedScalar(out[2], "L^u")
	if err != nil {
		t.Fatal(err)
	}

	// View 1's embeddings, in the rows semiInputs says.
	zOut := tensors.MustCopyFlatData[float32](out[3])
	d := out[3].Shape().Dim(1)
	row := 0
	for _, c := range chunks {
		for i := range c.graphs {
			for k := 0; k < d; k++ {
				if x, want := zOut[(c.first+i)*d+k], z1[row][k]; math.Abs(float64(x-want)) > 1e-4 {
					t.Fatalf("z1 row %d (graph %d) dim %d: step %v, predict %v", c.first+i, c.graphs[i], k, x, want)
				}
			}
			row++
		}
	}

	cfg := r.cfg
	want := luRef(z1, z2, protos, 2, cfg.SinkhornEps, cfg.Tau, cfg.SinkhornIters)
	tol := 1e-4 * max(1, math.Abs(want)) // float32 step vs float64 reference: ~1e-6 seen
	if math.Abs(got-want) > tol {
		t.Errorf("L^u = %.6f, reference %.6f", got, want)
	}
	wrong := map[string]float64{
		"views swapped": luRef(z2, z1, protos, 2, cfg.SinkhornEps, cfg.Tau, cfg.SinkhornIters),
		"exp(HᵀZ/ε)":    luRef(z1, z2, protos, 1, cfg.SinkhornEps, cfg.Tau, cfg.SinkhornIters),
		"τ = 1":         luRef(z1, z2, protos, 2, cfg.SinkhornEps, 1, cfg.SinkhornIters),
	}
	for name, x := range wrong {
		if math.Abs(x-want) <= 3*tol {
			t.Errorf("%s gives %.6f, within the tolerance of the reference %.6f: the test cannot tell them apart", name, x, want)
		}
	}
	t.Logf("L^u %.6f, reference %.6f; wrong wirings %v", got, want, wrong)
}
