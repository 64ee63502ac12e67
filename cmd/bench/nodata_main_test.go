package main

import (
	"os"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
)

// TestMain reports the tests skipped for lack of data.
func TestMain(m *testing.M) { os.Exit(datasetstest.Main(m)) }
