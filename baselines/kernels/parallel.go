package kernels

import (
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// graphChunk is the number of graphs a worker takes at a time: large enough
// that the shared counter is touched rarely, small enough to balance
// datasets whose graph sizes vary a lot.
const graphChunk = 16

// forEachGraph calls a worker function for every graph index in [0, n) on
// up to runtime.GOMAXPROCS(0) goroutines. newWorker is called once per
// goroutine and returns that goroutine's function, so that scratch buffers
// are per worker. Workers must write only to per-graph outputs: then the
// result does not depend on the number of workers or the schedule. The
// first error stops all workers (graphs not yet started are skipped) and is
// returned; callers validate their input first so that errors are rare and
// deterministic.
func forEachGraph(n int, newWorker func() func(g int) error) error {
	workers := min(runtime.GOMAXPROCS(0), (n+graphChunk-1)/graphChunk)
	var next atomic.Int64
	var failed atomic.Bool
	var eg errgroup.Group
	for range workers {
		work := newWorker()
		eg.Go(func() error {
			for !failed.Load() {
				start := int(next.Add(graphChunk)) - graphChunk
				if start >= n {
					return nil
				}
				for g := start; g < min(start+graphChunk, n); g++ {
					if err := work(g); err != nil {
						failed.Store(true)
						return err
					}
				}
			}
			return nil
		})
	}
	return eg.Wait()
}
