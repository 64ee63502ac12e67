package suite

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestMemorySamplerSeesAllocation: a 64 MiB buffer held while the sampler
// runs shows in its peak, and the peak is not below what was held at the
// start.
func TestMemorySamplerSeesAllocation(t *testing.T) {
	debug.FreeOSMemory() // what the heap held free goes back: the buffer must be new memory
	before := float64(heldBytes()) / (1 << 20)
	s := startMemorySampler()
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	time.Sleep(3 * memorySampleEvery)
	peak := s.stop()
	runtime.KeepAlive(buf)
	if peak < before+60 {
		t.Errorf("peak %.1f MiB with a 64 MiB buffer held, %.1f MiB before it", peak, before)
	}
}

func TestIsMeasurement(t *testing.T) {
	for name, want := range map[string]bool{
		EpochSecondsMetric: true, EpochSecondsMetric + "_warmup": true, PeakMemoryMetric: true,
		MetricAccuracy: false, "knn:" + MetricAccuracy: false, ResumedMetric: false, PrefixDU + MetricOODAUROC: false,
	} {
		if got := IsMeasurement(name); got != want {
			t.Errorf("IsMeasurement(%q) = %v, want %v", name, got, want)
		}
	}
}
