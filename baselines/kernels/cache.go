package kernels

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// featureKey identifies a feature map: the kernel, every one of its
// feature-map parameters and the graphs (datasets.Fingerprint), never the
// split (ratio, seed) or the classifier's parameters.
type featureKey struct {
	dataset, kernel string
	params          string // canonical JSON of the feature-map parameters
	graphs          string // datasets.Fingerprint
}

// featureEntry is one cached feature map, computed once.
type featureEntry struct {
	once sync.Once
	fm   *FeatureMap
	err  error
}

// FeatureCache memoises feature maps in process, keyed by (dataset name,
// kernel name, all of the kernel's feature-map parameters,
// datasets.Fingerprint of the graphs), so that the runs of a grid over
// ratios and seeds share one computation per kernel and parameter setting,
// even when they start at the same time, and any change of a feature-map
// parameter computes a new map.
// Entries are never evicted: a process holds every map it has computed.
// The zero value is not usable; see NewFeatureCache.
type FeatureCache struct {
	mu      sync.Mutex
	entries map[featureKey]*featureEntry
}

// NewFeatureCache returns an empty cache.
func NewFeatureCache() *FeatureCache {
	return &FeatureCache{entries: map[featureKey]*featureEntry{}}
}

// defaultCache is the process-wide cache of the wl, sp and graphlet methods.
var defaultCache = NewFeatureCache()

// Get returns kernel k's feature map of graphs (named dataset) with the
// feature-map parameters (the names in k.Params) taken from params; other
// names in params are ignored and do not change the key. The map is
// computed on the first request for its key; concurrent requests for the
// same key wait for that one computation. Errors are cached too. k.Compute
// receives only the feature-map parameters, so a feature map cannot depend
// on a parameter that is not part of its key.
func (c *FeatureCache) Get(dataset string, graphs []datasets.Graph, k *FeatureKernel, params suite.Params) (*FeatureMap, error) {
	fp, err := k.featureParams(params)
	if err != nil {
		return nil, err
	}
	canon, err := json.Marshal(fp)
	if err != nil {
		return nil, fmt.Errorf("%s: feature-map parameters: %w", k.Name, err)
	}
	key := featureKey{dataset: dataset, kernel: k.Name, params: string(canon), graphs: datasets.Fingerprint(graphs)}
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &featureEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.fm, e.err = k.Compute(graphs, fp) })
	return e.fm, e.err
}

// Len returns the number of cached feature maps.
func (c *FeatureCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
