package ugnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func vecNear(a []float32, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(float64(a[i]), b[i], tol) {
			return false
		}
	}
	return true
}

func clone2D(v [][]float32) [][]float32 {
	out := make([][]float32, len(v))
	for i := range v {
		out[i] = slices.Clone(v[i])
	}
	return out
}

// TestMomentumUpdateHand: h0 = (1, 0), h1 = (0, 1), η = 0.5.
// z0 = (0.8, 0.6): h·z = 0.8, 0.6 → 0; z1 = (0.6, 0.8) → 1;
// z2 = (0.6, −0.8): 0.6, −0.8 → 0.
// h0 ← normalise(0.5·(1, 0) + 0.5·mean(z0, z2) = (0.5, 0) + (0.35, −0.05))
// = (0.85, −0.05)/√0.725 = (0.998274, −0.058722);
// h1 ← normalise((0, 0.5) + (0.3, 0.4)) = (0.3, 0.9)/√0.9 = (0.316228, 0.948683).
func TestMomentumUpdateHand(t *testing.T) {
	protos := [][]float32{{1, 0}, {0, 1}}
	emb := [][]float32{{0.8, 0.6}, {0.6, 0.8}, {0.6, -0.8}}
	embCopy := clone2D(emb)
	labels := MomentumUpdate(protos, emb, 0.5)
	if !slices.Equal(labels, []int{0, 1, 0}) {
		t.Errorf("pseudo-labels %v, want [0 1 0]", labels)
	}
	n0 := math.Sqrt(0.85*0.85 + 0.05*0.05)
	want0 := []float64{0.85 / n0, -0.05 / n0}
	want1 := []float64{0.3 / math.Sqrt(0.9), 0.9 / math.Sqrt(0.9)}
	if !near(want0[0], 0.998274, 1e-6) || !near(want1[0], 0.316228, 1e-6) {
		t.Fatalf("test arithmetic: %v %v", want0, want1)
	}
	if !vecNear(protos[0], want0, 1e-6) || !vecNear(protos[1], want1, 1e-6) {
		t.Errorf("prototypes %v, want [%v %v]", protos, want0, want1)
	}
	for i := range emb {
		if !slices.Equal(emb[i], embCopy[i]) {
			t.Fatal("MomentumUpdate modified the embeddings")
		}
	}
}

// TestMomentumUpdateCases: a prototype nobody is assigned to stays exactly
// as it is (even when not unit-norm); ties go to the lower index; η = 1
// keeps a unit prototype; η = 0 moves it to the normalised mean.
func TestMomentumUpdateCases(t *testing.T) {
	// All embeddings lean to h0 = (1, 0); h1 = (0, 2) wins none of them
	// (z = (0.9, 0.1): h0·z = 0.9 > h1·z = 0.2).
	protos := [][]float32{{1, 0}, {0, 2}}
	labels := MomentumUpdate(protos, [][]float32{{0.9, 0.1}, {1, 0.3}}, 0.5)
	if !slices.Equal(labels, []int{0, 0}) {
		t.Errorf("labels %v, want [0 0]", labels)
	}
	if !slices.Equal(protos[1], []float32{0, 2}) {
		t.Errorf("unassigned prototype became %v, want (0, 2) unchanged", protos[1])
	}
	// (0.5, 0) + 0.5·(0.95, 0.2) = (0.975, 0.1).
	n := math.Hypot(0.975, 0.1)
	if !vecNear(protos[0], []float64{0.975 / n, 0.1 / n}, 1e-6) {
		t.Errorf("assigned prototype %v", protos[0])
	}
	// Tie: z = (1, 1) has inner product 1 with both → the first.
	protos = [][]float32{{1, 0}, {0, 1}}
	if labels := MomentumUpdate(protos, [][]float32{{1, 1}}, 0.5); labels[0] != 0 {
		t.Errorf("tie went to %d, want 0", labels[0])
	}
	if !slices.Equal(protos[1], []float32{0, 1}) {
		t.Errorf("tie: prototype 1 moved to %v", protos[1])
	}
	// η = 1: no movement.
	protos = [][]float32{{0.6, 0.8}, {0, -1}}
	MomentumUpdate(protos, [][]float32{{1, 0}, {0.5, 0.5}}, 1)
	if !vecNear(protos[0], []float64{0.6, 0.8}, 1e-6) {
		t.Errorf("η = 1 moved the prototype to %v", protos[0])
	}
	// η = 0: the normalised mean of the assigned embeddings, (0.75, 0.25).
	protos = [][]float32{{0.6, 0.8}, {0, -1}}
	MomentumUpdate(protos, [][]float32{{1, 0}, {0.5, 0.5}}, 0)
	n = math.Hypot(0.75, 0.25)
	if !vecNear(protos[0], []float64{0.75 / n, 0.25 / n}, 1e-6) {
		t.Errorf("η = 0 gave %v, want (%.6f, %.6f)", protos[0], 0.75/n, 0.25/n)
	}
}

// TestClassPrototypes: class means then L2 normalisation, by hand; a class
// without graphs gets a zero prototype; the embeddings are not modified.
func TestClassPrototypes(t *testing.T) {
	emb := [][]float32{{1, 0}, {3, 0}, {0, 2}, {1, 1}, {0, -4}}
	labels := []int{0, 0, 1, 1, 3}
	embCopy := clone2D(emb)
	got := ClassPrototypes(emb, labels, 4)
	// class 0: mean (2, 0) → (1, 0); class 1: mean (0.5, 1.5) → /√2.5;
	// class 2: none → 0; class 3: (0, −4) → (0, −1).
	want := [][]float64{{1, 0}, {0.5 / math.Sqrt(2.5), 1.5 / math.Sqrt(2.5)}, {0, 0}, {0, -1}}
	if len(got) != 4 {
		t.Fatalf("%d prototypes, want 4", len(got))
	}
	for c := range want {
		if !vecNear(got[c], want[c], 1e-6) {
			t.Errorf("prototype %d = %v, want %v", c, got[c], want[c])
		}
	}
	for i := range emb {
		if !slices.Equal(emb[i], embCopy[i]) {
			t.Fatal("ClassPrototypes modified the embeddings")
		}
	}
}

// blobs returns 3 well-separated 2-d blobs of 20 points each (centres
// (0, 0), (10, 0), (0, 10), noise ±0.5), shuffled, with each point's blob.
func blobs(rng *rand.Rand) ([][]float32, []int) {
	centres := [][2]float32{{0, 0}, {10, 0}, {0, 10}}
	var pts [][]float32
	var blob []int
	for b, c := range centres {
		for i := 0; i < 20; i++ {
			pts = append(pts, []float32{c[0] + float32(rng.Float64()-0.5), c[1] + float32(rng.Float64()-0.5)})
			blob = append(blob, b)
		}
	}
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i]; blob[i], blob[j] = blob[j], blob[i] })
	return pts, blob
}

// TestKMeansBlobs: three well-separated blobs are recovered up to a
// permutation of cluster ids, each centroid is its blob's mean, the result
// is a function of the rng, and the input points are not modified.
func TestKMeansBlobs(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		pts, blob := blobs(rand.New(rand.NewPCG(seed, 100)))
		orig := clone2D(pts)
		cents, assign := KMeans(pts, 3, 100, rand.New(rand.NewPCG(seed, 7)))
		if len(cents) != 3 || len(assign) != len(pts) {
			t.Fatalf("seed %d: %d centroids, %d assignments", seed, len(cents), len(assign))
		}
		toCluster := map[int]int{}
		used := map[int]bool{}
		for i, b := range blob {
			c, ok := toCluster[b]
			if !ok {
				if used[assign[i]] {
					t.Fatalf("seed %d: two blobs share cluster %d", seed, assign[i])
				}
				toCluster[b], used[assign[i]] = assign[i], true
				continue
			}
			if assign[i] != c {
				t.Fatalf("seed %d: blob %d split over clusters %d and %d", seed, b, c, assign[i])
			}
		}
		for b, c := range toCluster {
			var sx, sy float64
			for i := range pts {
				if blob[i] == b {
					sx += float64(pts[i][0])
					sy += float64(pts[i][1])
				}
			}
			if !vecNear(cents[c], []float64{sx / 20, sy / 20}, 1e-4) {
				t.Errorf("seed %d: centroid of blob %d = %v, want its mean (%.4f, %.4f)", seed, b, cents[c], sx/20, sy/20)
			}
		}
		for i := range pts {
			if !slices.Equal(pts[i], orig[i]) {
				t.Fatalf("seed %d: KMeans modified point %d: %v → %v", seed, i, orig[i], pts[i])
			}
		}
		cents2, assign2 := KMeans(pts, 3, 100, rand.New(rand.NewPCG(seed, 7)))
		if !slices.Equal(assign, assign2) {
			t.Fatalf("seed %d: same rng, different assignments", seed)
		}
		for c := range cents {
			if !slices.Equal(cents[c], cents2[c]) {
				t.Fatalf("seed %d: same rng, different centroids", seed)
			}
		}
	}
}

// TestKMeansFewPoints: with fewer points than k (or identical points),
// KMeans still returns k centroids, each one of the points, and valid
// assignments.
func TestKMeansFewPoints(t *testing.T) {
	for _, c := range []struct {
		name string
		pts  [][]float32
		k    int
	}{
		{"2 points, k 3", [][]float32{{0, 0}, {5, 5}}, 3},
		{"1 point, k 3", [][]float32{{1, 2}}, 3},
		{"4 identical points, k 2", [][]float32{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, 2},
		{"3 points, k 3", [][]float32{{0, 0}, {5, 5}, {-5, 5}}, 3},
	} {
		cents, assign := KMeans(clone2D(c.pts), c.k, 100, rand.New(rand.NewPCG(1, 2)))
		if len(cents) != c.k {
			t.Errorf("%s: %d centroids, want %d", c.name, len(cents), c.k)
			continue
		}
		for _, cen := range cents {
			if !slices.ContainsFunc(c.pts, func(p []float32) bool { return slices.Equal(p, cen) }) {
				t.Errorf("%s: centroid %v is not one of the points %v", c.name, cen, c.pts)
			}
		}
		for i, a := range assign {
			if a < 0 || a >= c.k || !slices.Equal(cents[a], c.pts[i]) {
				t.Errorf("%s: point %v assigned to %d (%v)", c.name, c.pts[i], a, cents)
			}
		}
		if c.name == "3 points, k 3" {
			seen := map[int]bool{}
			for _, a := range assign {
				seen[a] = true
			}
			if len(seen) != 3 {
				t.Errorf("%s: assignments %v, want three distinct clusters", c.name, assign)
			}
		}
	}
}
