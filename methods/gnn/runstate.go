package gnn

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

	"github.com/ugbench/ugbench/suite"
)

// RunState is what a training run saves through suite.Resume so that an
// interrupted run continues exactly where it stopped: the model store's
// variables (weights, optimizer moments and step counts, the graph RNG) as
// a GoMLX checkpoint, plus the host side registered by name — random
// generators (batch shuffles), counters and batches drawn ahead of use —
// and a method-defined progress value (e.g. epochs and steps done), as
// JSON. Everything else a run computes must be a pure function of these,
// the seed and the task (e.g. augment.Stream's per-epoch streams). The
// zero value is ready to use.
type RunState struct {
	rngs     map[string]*rand.PCG
	counters map[string]*int
	batches  map[string]*[][]int
}

// runStateFile is the JSON form of a RunState and its progress.
type runStateFile struct {
	Progress json.RawMessage    `json:"progress"`
	RNGs     map[string][]byte  `json:"rngs"`
	Counters map[string]int     `json:"counters"`
	Batches  map[string][][]int `json:"batches"`
}

const runStateFileName = "host.json"

// TrackRNG registers a random generator of the run, saved and restored
// with it, and returns a *rand.Rand drawing from src (rand.Rand keeps no
// state of its own).
func (s *RunState) TrackRNG(name string, src *rand.PCG) *rand.Rand {
	if s.rngs == nil {
		s.rngs = map[string]*rand.PCG{}
	}
	s.rngs[name] = src
	return rand.New(src)
}

// TrackCounter registers a counter of the run (e.g. a batch number that
// names augmentation streams).
func (s *RunState) TrackCounter(name string, c *int) {
	if s.counters == nil {
		s.counters = map[string]*int{}
	}
	s.counters[name] = c
}

// TrackBatches registers a queue of batches (graph indices) drawn ahead of
// use, e.g. InfoGraph's unlabelled batches, which cycle on their own.
func (s *RunState) TrackBatches(name string, b *[][]int) {
	if s.batches == nil {
		s.batches = map[string]*[][]int{}
	}
	s.batches[name] = b
}

// Restore continues an interrupted run: if r holds a saved state, it loads
// the variables into store (those not created yet are loaded when they
// are), the registered host state, and decodes the saved progress into
// progress (a pointer), and returns true. Call it after registering the
// host state and before the first training step. Without a saved state
// (or with a nil r) it changes nothing and returns false. An error (a
// missing generator or counter, an unreadable file) leaves the run half
// restored: the method must fail.
func (s *RunState) Restore(r *suite.Resume, store *model.Store, progress any) (bool, error) {
	return r.Restore(func(dir string) error {
		data, err := os.ReadFile(filepath.Join(dir, runStateFileName))
		if err != nil {
			return err
		}
		var f runStateFile
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: %w", runStateFileName, err)
		}
		for name, src := range s.rngs {
			if err := src.UnmarshalBinary(f.RNGs[name]); err != nil {
				return fmt.Errorf("%s: generator %q: %w", runStateFileName, name, err)
			}
		}
		for name, c := range s.counters {
			v, ok := f.Counters[name]
			if !ok {
				return fmt.Errorf("%s: no counter %q", runStateFileName, name)
			}
			*c = v
		}
		for name, b := range s.batches {
			v, ok := f.Batches[name]
			if !ok {
				return fmt.Errorf("%s: no batches %q", runStateFileName, name)
			}
			*b = v
		}
		if err := json.Unmarshal(f.Progress, progress); err != nil {
			return fmt.Errorf("%s: progress: %w", runStateFileName, err)
		}
		if _, err := checkpoint.Load(store).Dir(dir).Done(); err != nil {
			return fmt.Errorf("variables: %w", err)
		}
		return nil
	})
}

// Save stores the run's state with progress (JSON-encodable) if a save is
// due (suite.Resume.Due; never for a nil r). Call it where the run can
// continue from: between optimizer steps, after the epoch's Logger.Epoch.
// A save is best-effort: one that fails (a full disk) warns through the
// run's warning path and training goes on (suite.Resume.Save).
func (s *RunState) Save(r *suite.Resume, store *model.Store, progress any) {
	if !r.Due() {
		return
	}
	r.Save(func(dir string) error {
		p, err := json.Marshal(progress)
		if err != nil {
			return err
		}
		f := runStateFile{Progress: p, RNGs: map[string][]byte{}, Counters: map[string]int{}, Batches: map[string][][]int{}}
		for name, src := range s.rngs {
			b, err := src.MarshalBinary()
			if err != nil {
				return err
			}
			f.RNGs[name] = b
		}
		for name, c := range s.counters {
			f.Counters[name] = *c
		}
		for name, b := range s.batches {
			f.Batches[name] = slices.Clone(*b)
		}
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, runStateFileName), data, 0o644); err != nil {
			return err
		}
		// A checkpoint handler attaches itself to the store as its
		// variable loader; the previous loader is put back so that saves
		// do not chain.
		prev := store.Loader()
		defer store.SetLoader(prev)
		h, err := checkpoint.Build(store).Dir(dir).WithCompression(checkpoint.BinUncompressed).Done()
		if err != nil {
			return err
		}
		return h.Save()
	})
}
