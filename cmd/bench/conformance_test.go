package main

import (
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/suitetest"
)

// TestConformance runs suitetest.CheckMethod over every registered method
// (cmd/bench registers them all) on the embedded Letter-high, so a new
// method is checked for aligned outputs, determinism, blindness to test
// labels and cancellation without a test of its own.
func TestConformance(t *testing.T) {
	ds, err := datasets.LoadEmbedded("Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	names := suite.Names()
	if len(names) < 17 {
		t.Fatalf("%d methods registered: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { suitetest.CheckMethod(t, ds, name) })
	}
}
