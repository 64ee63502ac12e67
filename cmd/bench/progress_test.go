package main

import (
	"bytes"
	"testing"
	"time"
)

// TestWaitingElsewhereLine: the line says that a run finished elsewhere is
// noticed within a second, and that the 30 s wait is for dead processes
// (it read "rechecked every 30s", which suggested a 30 s delay).
func TestWaitingElsewhereLine(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, true)
	p.WaitingElsewhere(2, 30*time.Second)
	want := "grid: waiting for 2 run(s) that other processes are computing (their end is noticed within 1s; after 30s, those whose process died are run here)\n"
	if got := out.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
