package main

// The binary decides which methods exist: each import registers its
// package's methods with the suite registry in init (ARCHITECTURE.md:
// methods/ never imports baselines/). Adding a method package is one line
// here.
import (
	_ "github.com/ugbench/ugbench/baselines/kernels"    // wl, sp, graphlet
	_ "github.com/ugbench/ugbench/baselines/semisup"    // infograph, graphcl, gla, rgcl
	_ "github.com/ugbench/ugbench/baselines/supervised" // gin-topk, gcn-topk, sage-topk, gin-sag, gin-asap
	_ "github.com/ugbench/ugbench/methods/ugnn"         // ugnn and its ablations
)
