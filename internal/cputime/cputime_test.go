package cputime

import "testing"

// TestSecondsGrowsWithWork: a busy loop of the calling goroutine adds CPU
// time.
func TestSecondsGrowsWithWork(t *testing.T) {
	before, err := Seconds()
	if err != nil {
		t.Fatal(err)
	}
	x := 0.0
	for i := range 50_000_000 {
		x += float64(i % 7)
	}
	after, err := Seconds()
	if err != nil {
		t.Fatal(err)
	}
	if !(after > before) || x == 0 {
		t.Errorf("CPU time %v s before a busy loop, %v s after", before, after)
	}
}
