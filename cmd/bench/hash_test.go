package main

import (
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// TestHashUnchanged pins the config hash of representative specs, computed
// on commit 7c881cd: stored results are found by it, so a change to
// RunSpec.Hash, to a method's legacy parameters or to what the grid writes
// into a spec would silently orphan every stored run.
func TestHashUnchanged(t *testing.T) {
	proto := suite.Protocol{ClassSplit: "first", TestFrac: 0.2, Alpha: 1}
	cases := []struct {
		spec suite.RunSpec
		want string
	}{
		{suite.RunSpec{Method: "gin-topk", Dataset: "Letter-high", RatioName: "low", Ratio: 0.1, Seed: 2,
			Params: suite.Params{"steps": 12, "batch_size": 64, "curve_every": 0, "lr": 1e-3, "hidden": 32, "layers": 2,
				"pool_ratio": 0.8, "batching": "random", "size_chunks": 3, "layout": "auto"}, Protocol: proto}, "5bc7d64dea154479"},
		{suite.RunSpec{Method: "wl", Dataset: "COIL-DEL", RatioName: "high", Ratio: 0.3, SplitSeed: 1,
			Params: suite.Params{"iterations": 5, "norm": "l2", "C": 1.0}, Protocol: suite.Protocol{ClassSplit: "random", TestFrac: 0.2, Alpha: 1.2}}, "7b62dc4387096228"},
		{suite.RunSpec{Method: "ugnn", Dataset: "Letter-high", RatioName: "high", Ratio: 0.3, Seed: 1,
			Params: suite.Params{"steps": 1500, "warmup_frac": 0.5, "cycles": 5, "batch_size": 64, "unlabelled_batch_size": 256,
				"lr": 1e-3, "curve_every": 0, "hidden": 128, "layers": 2, "pool_ratio": 0.8, "subgraphs": 3, "node_drop": 0.2,
				"edge_drop": 0.2, "unknown_prototypes": 3, "sinkhorn_eps": 0.05, "sinkhorn_iters": 3, "tau": 0.1, "eta": 0.99,
				"supcon_tau": 0.1, "supcon_weight": 1.0, "kmeans_iters": 100, "size_chunks": 3}, Protocol: proto}, "67f8ccea8fd67956"},
	}
	for _, c := range cases {
		if got := c.spec.Hash(); got != c.want {
			t.Errorf("%s: hash %s, want %s (stored runs would no longer be found)", c.spec, got, c.want)
		}
	}
}
