package kernels

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
)

func TestFeatureCacheComputesOnce(t *testing.T) {
	var calls atomic.Int32
	cache := NewFeatureCache(func(g []datasets.Graph, h int) (*FeatureMap, error) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond) // let the other goroutines pile up
		return WLFeatures(g, h)
	})
	graphs := []datasets.Graph{mkGraph(4, cycle(4), nil), mkGraph(3, path(3), nil)}

	const n = 32
	got := make([]*FeatureMap, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			fm, err := cache.Get("toy", graphs, 3)
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
	// the same key again is a hit.
	cache.Get("toy", graphs, 2)
	cache.Get("other", graphs, 3)
	cache.Get("toy", graphs[:1], 3)
	relabelled := []datasets.Graph{mkGraph(4, cycle(4), []int32{0, 0, 0, 1}), mkGraph(3, path(3), []int32{0, 0, 0})}
	cache.Get("toy", relabelled, 3)
	cache.Get("toy", graphs, 3)
	if c := calls.Load(); c != 5 {
		t.Errorf("computations = %d, want 5", c)
	}
	if cache.Len() != 5 {
		t.Errorf("Len = %d, want 5", cache.Len())
	}
}
