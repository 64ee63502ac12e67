// Package all registers every method of ugbench with the suite registry
// (import it for its side effects). Adding a method is one file in its
// package plus, for a new package, one import here.
package all

import (
	_ "github.com/ugbench/ugbench/baselines/kernels"    // wl
	_ "github.com/ugbench/ugbench/baselines/supervised" // gin-topk
	_ "github.com/ugbench/ugbench/methods/ugnn"         // ugnn and its ablations
)
