package kernels

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// countingKernel wraps k so that calls counts its feature-map computations
// (and delay makes each one slow enough for concurrent requests to pile up).
func countingKernel(k *FeatureKernel, calls *atomic.Int32, delay time.Duration) *FeatureKernel {
	c := *k
	c.Compute = func(g []datasets.Graph, p suite.Params) (*FeatureMap, error) {
		calls.Add(1)
		time.Sleep(delay)
		return k.Compute(g, p)
	}
	return &c
}

func TestFeatureCacheComputesOnce(t *testing.T) {
	var calls atomic.Int32
	wl := countingKernel(wlKernel, &calls, 20*time.Millisecond)
	cache := NewFeatureCache()
	graphs := []datasets.Graph{mkGraph(4, cycle(4), nil), mkGraph(3, path(3), nil)}
	h3 := suite.Params{"iterations": 3}

	const n = 32
	got := make([]*FeatureMap, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			fm, err := cache.Get("toy", graphs, wl, h3)
			if err != nil {
				t.Error(err)
			}
			got[i] = fm
		})
	}
	wg.Wait()
	if c := calls.Load(); c != 1 {
		t.Fatalf("%d concurrent Gets computed %d times, want 1", n, c)
	}
	for i := range got {
		if got[i] != got[0] || got[i] == nil {
			t.Fatalf("Get %d returned a different map", i)
		}
	}

	// Another h, another dataset name or other graphs are other entries;
	// the same key again is a hit, also with other non-feature params.
	cache.Get("toy", graphs, wl, suite.Params{"iterations": 2})
	cache.Get("other", graphs, wl, h3)
	cache.Get("toy", graphs[:1], wl, h3)
	relabelled := []datasets.Graph{mkGraph(4, cycle(4), []int32{0, 0, 0, 1}), mkGraph(3, path(3), []int32{0, 0, 0})}
	cache.Get("toy", relabelled, wl, h3)
	cache.Get("toy", graphs, wl, h3)
	cache.Get("toy", graphs, wl, suite.Params{"iterations": 3, "C": 7.0, "norm": "l1"})
	if c := calls.Load(); c != 5 {
		t.Errorf("computations = %d, want 5", c)
	}
	if cache.Len() != 5 {
		t.Errorf("Len = %d, want 5", cache.Len())
	}
	if _, err := cache.Get("toy", graphs, wl, suite.Params{"C": 1.0}); err == nil {
		t.Error("missing feature-map parameter: no error")
	}
}

// TestFeatureCacheKernels: one cache holds the maps of all three kernels
// side by side; a grid over ratios, seeds and classifier parameters
// computes each map once, and changing any feature-map parameter computes a
// new one.
func TestFeatureCacheKernels(t *testing.T) {
	var wlCalls, spCalls, glCalls atomic.Int32
	kernels := []*FeatureKernel{
		countingKernel(wlKernel, &wlCalls, 0),
		countingKernel(spKernel, &spCalls, 0),
		countingKernel(graphletKernel, &glCalls, 0),
	}
	cache := NewFeatureCache()
	base, _ := toyTask(nil)
	fit := func(k *FeatureKernel, seed int64, set suite.Params) {
		t.Helper()
		task := *base
		task.Params = k.Defaults()
		for name, v := range set {
			task.Params[name] = v
		}
		task.Seed = seed
		if _, err := FitKernel(context.Background(), &task, k, cache); err != nil {
			t.Fatalf("%s %v: %v", k.Name, set, err)
		}
	}
	for _, k := range kernels {
		for seed := range int64(3) {
			for _, set := range []suite.Params{{}, {"C": 10.0}, {"norm": "l1"}} {
				fit(k, seed, set)
			}
		}
	}
	if w, s, g := wlCalls.Load(), spCalls.Load(), glCalls.Load(); w != 1 || s != 1 || g != 1 {
		t.Fatalf("computations wl %d sp %d graphlet %d, want 1 each", w, s, g)
	}
	if cache.Len() != 3 {
		t.Errorf("Len = %d, want 3", cache.Len())
	}

	fit(kernels[0], 0, suite.Params{"iterations": 2})
	fit(kernels[2], 0, suite.Params{"samples": 100})
	fit(kernels[2], 0, suite.Params{"sampling_seed": 1})
	fit(kernels[2], 0, suite.Params{"exact_threshold": 0})
	fit(kernels[2], 1, suite.Params{"exact_threshold": 0, "C": 2.0}) // hit
	if w, g := wlCalls.Load(), glCalls.Load(); w != 2 || g != 4 {
		t.Errorf("after parameter changes: computations wl %d graphlet %d, want 2 and 4", w, g)
	}
	if cache.Len() != 7 {
		t.Errorf("Len = %d, want 7", cache.Len())
	}
}
