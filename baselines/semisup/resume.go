package semisup

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// progress is where a run stands at a save (suite.Resume): the end of a
// pretraining epoch or of a supervised pass. A fresh run starts at the
// zero progress.
type progress struct {
	// Pretrain is the number of pretraining epochs done (GraphCL, RGCL).
	Pretrain int `json:"pretrain"`
	// Passes and Steps are the supervised passes (over D^l) and optimizer
	// steps done (net.supervisedSteps).
	Passes int `json:"passes"`
	Steps  int `json:"steps"`
}

// hostState is the host side of a run that a resumed run must restore to
// continue as the uninterrupted run would: its random generators (the
// batch shuffles), counters and pending batches, registered by name
// before net.restore. Everything else a run needs is either in the store
// (weights, optimizer moments and step counts, the graph RNG) or a pure
// function of the seed, the epoch and the graph (augment.Stream).
type hostState struct {
	rngs     map[string]*rand.PCG
	counters map[string]*int
	batches  map[string]*[][]int
}

// hostFile is the JSON form of a hostState and the progress.
type hostFile struct {
	Progress progress           `json:"progress"`
	RNGs     map[string][]byte  `json:"rngs"`
	Counters map[string]int     `json:"counters"`
	Batches  map[string][][]int `json:"batches"`
}

const hostFileName = "host.json"

// trackRNG registers a random generator of the run: its state is saved and
// restored. It returns a *rand.Rand drawing from src.
func (n *net) trackRNG(name string, src *rand.PCG) *rand.Rand {
	if n.host.rngs == nil {
		n.host.rngs = map[string]*rand.PCG{}
	}
	n.host.rngs[name] = src
	return rand.New(src)
}

// trackCounter registers a counter of the run (e.g. GLA's labelled batch
// number, which names its augmentation streams).
func (n *net) trackCounter(name string, c *int) {
	if n.host.counters == nil {
		n.host.counters = map[string]*int{}
	}
	n.host.counters[name] = c
}

// trackBatches registers a queue of batches (graph indices) drawn ahead of
// use, e.g. InfoGraph's unlabelled batches, which cycle on their own.
func (n *net) trackBatches(name string, b *[][]int) {
	if n.host.batches == nil {
		n.host.batches = map[string]*[][]int{}
	}
	n.host.batches[name] = b
}

// restore continues an interrupted run (task.Resume): it loads the saved
// variables into the store, the registered host state, and sets n.at to
// the saved progress. Call it after registering the host state and before
// the first training step; without a saved state it does nothing.
func (n *net) restore() error {
	_, err := n.task.Resume.Restore(func(dir string) error {
		data, err := os.ReadFile(filepath.Join(dir, hostFileName))
		if err != nil {
			return err
		}
		var f hostFile
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: %w", hostFileName, err)
		}
		for name, src := range n.host.rngs {
			if err := src.UnmarshalBinary(f.RNGs[name]); err != nil {
				return fmt.Errorf("%s: generator %q: %w", hostFileName, name, err)
			}
		}
		for name, c := range n.host.counters {
			v, ok := f.Counters[name]
			if !ok {
				return fmt.Errorf("%s: no counter %q", hostFileName, name)
			}
			*c = v
		}
		for name, b := range n.host.batches {
			v, ok := f.Batches[name]
			if !ok {
				return fmt.Errorf("%s: no batches %q", hostFileName, name)
			}
			*b = v
		}
		if _, err := checkpoint.Load(n.store).Dir(dir).Done(); err != nil {
			return fmt.Errorf("variables: %w", err)
		}
		n.at = f.Progress
		return nil
	})
	return err
}

// save stores the run's state at progress p if a save is due
// (suite.Resume.Due): the store's variables as a GoMLX checkpoint and the
// host state as JSON.
func (n *net) save(p progress) error {
	if !n.task.Resume.Due() {
		return nil
	}
	return n.task.Resume.Save(func(dir string) error {
		f := hostFile{Progress: p, RNGs: map[string][]byte{}, Counters: map[string]int{}, Batches: map[string][][]int{}}
		for name, src := range n.host.rngs {
			b, err := src.MarshalBinary()
			if err != nil {
				return err
			}
			f.RNGs[name] = b
		}
		for name, c := range n.host.counters {
			f.Counters[name] = *c
		}
		for name, b := range n.host.batches {
			f.Batches[name] = slices.Clone(*b)
		}
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, hostFileName), data, 0o644); err != nil {
			return err
		}
		// A checkpoint handler attaches itself to the store as its
		// variable loader; the previous loader is put back so that saves
		// do not chain.
		prev := n.store.Loader()
		defer n.store.SetLoader(prev)
		h, err := checkpoint.Build(n.store).Dir(dir).WithCompression(checkpoint.BinUncompressed).Done()
		if err != nil {
			return err
		}
		return h.Save()
	})
}
