package gnn

import "math/rand/v2"

// Stream names one host-side random stream of a training run (batch
// shuffles, schedules): the second seed of a PCG whose first seed is the
// run's seed, so that the streams of one run are independent. The values
// are fixed: changing one changes every stored run that draws from it.
// Per-graph draws (augmented views, subgraphs) come from augment.Stream
// instead; the variables' initial values from the store's seed (SetSeed).
type Stream uint64

const (
	// StreamBatches shuffles the labelled batches (EpochBatches) of the
	// supervised rows (FitSupervised) and of the semi-supervised baselines
	// (baselines/semisup: their supervised passes, pretraining epochs and
	// GLA's unlabelled passes share it).
	StreamBatches Stream = 0x9e3779b97f4a7c15
	// StreamUnlabelledBatches shuffles InfoGraph's unlabelled batches
	// (baselines/semisup).
	StreamUnlabelledBatches Stream = 0x51ed2701a3c5f3b1
	// StreamWarmup shuffles UGNN's warm-up batches (methods/ugnn).
	StreamWarmup Stream = 1
	// StreamSemi draws UGNN's semi-supervised schedule: the unlabelled
	// order and the labelled batches paired with it (methods/ugnn).
	StreamSemi Stream = 2
)

// NewPCG returns the generator of stream s of the run seeded with seed
// (for RunState.TrackRNG, which saves it with the run).
func NewPCG(seed int64, s Stream) *rand.PCG {
	return rand.NewPCG(uint64(seed), uint64(s))
}

// NewRand returns a generator drawing from NewPCG(seed, s), for a stream
// that a run does not save.
func NewRand(seed int64, s Stream) *rand.Rand {
	return rand.New(NewPCG(seed, s))
}
