package kernels

import (
	"sync"

	"github.com/ugbench/ugbench/datasets"
)

// featureKey identifies a WL feature map: it depends only on the graphs and
// h, never on the split (ratio, seed).
type featureKey struct {
	dataset     string
	iterations  int
	graphs      int
	nodes       int
	edges       int
	fingerprint uint64
}

// featureEntry is one cached feature map, computed once.
type featureEntry struct {
	once sync.Once
	fm   *FeatureMap
	err  error
}

// FeatureCache memoises WL feature maps in process, keyed by (dataset name,
// iterations, a fingerprint of the graphs), so that the runs of a grid over
// ratios and seeds share one computation, even when they start at the same
// time. The zero value is not usable; see NewFeatureCache.
type FeatureCache struct {
	compute func([]datasets.Graph, int) (*FeatureMap, error)

	mu      sync.Mutex
	entries map[featureKey]*featureEntry
}

// NewFeatureCache returns an empty cache that computes missing maps with
// compute (WLFeatures in production; tests pass a counting wrapper).
func NewFeatureCache(compute func([]datasets.Graph, int) (*FeatureMap, error)) *FeatureCache {
	return &FeatureCache{compute: compute, entries: map[featureKey]*featureEntry{}}
}

// defaultCache is the process-wide cache the wl method uses.
var defaultCache = NewFeatureCache(WLFeatures)

// Get returns the WL feature map of graphs (named dataset) with h =
// iterations, computing it on the first request for that key; concurrent
// requests for the same key wait for that one computation. Errors are
// cached too.
func (c *FeatureCache) Get(dataset string, graphs []datasets.Graph, iterations int) (*FeatureMap, error) {
	key := graphsKey(dataset, graphs, iterations)
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &featureEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.fm, e.err = c.compute(graphs, iterations) })
	return e.fm, e.err
}

// Len returns the number of cached feature maps.
func (c *FeatureCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// graphsKey builds the cache key: counts plus a 64-bit hash of every
// graph's nodes, edges and node labels. Hashing is O(total size) but cheap
// next to the feature map itself, and it tells apart different graph lists
// under the same dataset name (as in tests).
func graphsKey(dataset string, graphs []datasets.Graph, iterations int) featureKey {
	k := featureKey{dataset: dataset, iterations: iterations, graphs: len(graphs)}
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
		h ^= h >> 29
	}
	for g := range graphs {
		gr := &graphs[g]
		k.nodes += gr.NumNodes
		k.edges += len(gr.Src)
		mix(uint64(gr.NumNodes))
		mix(uint64(len(gr.Src)))
		for e, s := range gr.Src {
			mix(uint64(uint32(s))<<32 | uint64(uint32(gr.Dst[e])))
		}
		if gr.NodeLabels != nil {
			mix(1 << 63)
			for _, l := range gr.NodeLabels {
				mix(uint64(uint32(l)))
			}
		}
	}
	k.fingerprint = h
	return k
}
