package gnn

import "testing"

// TestStreamValues pins the streams' values: every stored run's batches
// were drawn from them.
func TestStreamValues(t *testing.T) {
	for s, want := range map[Stream]uint64{
		StreamBatches: 0x9e3779b97f4a7c15, StreamUnlabelledBatches: 0x51ed2701a3c5f3b1,
		StreamWarmup: 1, StreamSemi: 2,
	} {
		if uint64(s) != want {
			t.Errorf("stream %#x, want %#x", uint64(s), want)
		}
	}
	a, b := NewRand(7, StreamBatches), NewRand(7, StreamBatches)
	if a.Uint64() != b.Uint64() {
		t.Error("two generators of one stream differ")
	}
}
