package suite

import (
	"runtime/metrics"
	"strings"
	"sync"
	"time"
)

// PeakMemoryMetric is the metric the suite adds to every run: the most
// memory the process held from the Go runtime while the method's Fit ran,
// in MiB (2²⁰ bytes), sampled every memorySampleEvery (memorySampler).
// "Held" is what the runtime has mapped and not returned to the operating
// system (runtime/metrics /memory/classes/total:bytes minus
// /memory/classes/heap/released:bytes), close to the process's resident
// size for a pure-Go backend, whose tensors live on the Go heap. It is a
// figure of the process: runs that share it (bench grid --devices cpu:N)
// are counted together, and the datasets the process loaded are included.
// A sample can miss a peak that lasts less than memorySampleEvery.
const PeakMemoryMetric = "peak_memory_mib"

// memorySampleEvery is the sampling period of PeakMemoryMetric.
const memorySampleEvery = 50 * time.Millisecond

// IsMeasurement reports whether metric is a measurement of the machine
// rather than of the method's predictions, so that two runs of one spec
// need not agree on it: EpochSecondsMetric and its per-phase medians, and
// PeakMemoryMetric.
func IsMeasurement(metric string) bool {
	return strings.HasPrefix(metric, EpochSecondsMetric) || metric == PeakMemoryMetric
}

// memorySampler tracks the peak of heldBytes from start to stop.
type memorySampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// startMemorySampler samples heldBytes now and every memorySampleEvery
// until stop.
func startMemorySampler() *memorySampler {
	s := &memorySampler{done: make(chan struct{})}
	s.sample()
	s.wg.Go(func() {
		t := time.NewTicker(memorySampleEvery)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.sample()
			}
		}
	})
	return s
}

func (s *memorySampler) sample() {
	v := heldBytes()
	s.mu.Lock()
	s.peak = max(s.peak, v)
	s.mu.Unlock()
}

// stop ends the sampling, takes a last sample and returns the peak in MiB.
func (s *memorySampler) stop() float64 {
	close(s.done)
	s.wg.Wait()
	s.sample()
	return float64(s.peak) / (1 << 20)
}

// heldBytes is the memory the Go runtime holds from the operating system:
// all it has mapped minus the heap it has released.
func heldBytes() uint64 {
	ms := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ms)
	var total, released uint64
	if ms[0].Value.Kind() == metrics.KindUint64 {
		total = ms[0].Value.Uint64()
	}
	if ms[1].Value.Kind() == metrics.KindUint64 {
		released = ms[1].Value.Uint64()
	}
	if released > total {
		return 0
	}
	return total - released
}
