package main

import (
	"os"
	"sync"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
)

// crashOnceEnv names a file: a supervised child process of the test binary
// (TestGridRestartAfterCrash) that finds it absent creates it and dies of a
// runtime fatal error, so the first child crashes and the second runs;
// "always" crashes every child.
const crashOnceEnv = "UGBENCH_TEST_CRASH_ONCE"

// TestMain reports the tests skipped for lack of data. Started as the child
// of --restart-after-crash (supervisedEnv set), the test binary is bench:
// it runs main on its arguments ("grid", …).
func TestMain(m *testing.M) {
	if os.Getenv(supervisedEnv) != "" {
		if f := os.Getenv(crashOnceEnv); f != "" {
			if _, err := os.Stat(f); err != nil || f == "always" {
				if f != "always" {
					os.WriteFile(f, nil, 0o644)
				}
				var mu sync.Mutex
				mu.Unlock() //nolint:staticcheck // "fatal error: sync: unlock of unlocked mutex", on purpose
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(datasetstest.Main(m))
}
