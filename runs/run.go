// Package runs is the SQLite store of ugbench: every run of a grid with its
// spec, config hash, status, provenance, metrics, per-epoch curves and
// artifacts (the test graphs' embeddings; see Store.Embeddings).
package runs

import (
	"time"

	"github.com/ugbench/ugbench/suite"
)

// Status is a run's life-cycle state.
type Status string

const (
	// StatusRunning: Start was called and neither Finish nor Fail yet.
	StatusRunning Status = "running"
	// StatusFinished: Finish stored the run's metrics and curves.
	StatusFinished Status = "finished"
	// StatusFailed: the method returned an error or panicked.
	StatusFailed Status = "failed"
	// StatusInterrupted: the run was cancelled, or its process died while
	// it was running (see Store.MarkRunningInterrupted).
	StatusInterrupted Status = "interrupted"
)

// Provenance records where and with what a run was computed.
type Provenance struct {
	// GitCommit is the HEAD commit of the working directory's checkout, ""
	// outside a checkout.
	GitCommit string `json:"git_commit"`
	// GitDirty is whether the checkout had uncommitted changes (untracked
	// files included).
	GitDirty bool `json:"git_dirty"`
	// GoVersion is runtime.Version().
	GoVersion string `json:"go_version"`
	// GoMLXVersion is the github.com/gomlx/gomlx module version linked in,
	// "unknown" if none.
	GoMLXVersion string `json:"gomlx_version"`
	// Backend is the GoMLX backend configuration, e.g. "go" or "xla:cuda".
	Backend string `json:"backend"`
	// Kernels is the CPU vector kernel set of GoMLX's pure-Go backend that
	// computed the run: "avx512", "avx2" or "generic" (cpukernels.Of); ""
	// for other backends and runs stored before schema 9. The kernels round
	// differently, so two runs of one config hash, build and backend agree
	// bit for bit only when they ran the same kernels.
	Kernels string `json:"kernels"`
	// Device is the device slot, e.g. "cpu:0" or "cuda:1".
	Device string `json:"device"`
	// Host is the machine's host name.
	Host string `json:"host"`
}

// Run is one stored run.
type Run struct {
	// ID is the row id; it stays the same across restarts of the hash.
	ID int64
	// Hash is Spec.Hash(), unique in the store.
	Hash string
	// Spec is the full RunSpec as stored. Its Params come back from JSON:
	// every number is a float64 (an int param 3 reads back as 3.0). The
	// Params accessors (Int, Float) accept both, and Spec.Hash() is
	// unchanged by the round trip; callers needing exact types re-parse
	// with suite.UnmarshalParams and the method's Defaults.
	Spec suite.RunSpec
	// Status is the run's life-cycle state.
	Status Status
	// Error is the failure or interruption message; "" otherwise.
	Error string
	// Started is when the current attempt started (UTC).
	Started time.Time
	// Finished is when the current attempt finished or failed (UTC); zero
	// while running.
	Finished time.Time
	// Seconds is the wall time of the method's Fit; 0 unless finished.
	Seconds    float64
	Provenance Provenance
	// Attempts counts the Starts of this hash: 1 for a run that never had
	// to be retried, +1 for each restart after a failure or interruption.
	Attempts int
	// Epoch of Epochs is the last epoch the current attempt logged, as of
	// its last heartbeat (Store.Progress); 0 and 0 before the first
	// heartbeat after its first epoch, and for runs stored before schema 7.
	Epoch, Epochs int
	// Metrics is nil unless Status is finished (then non-nil, possibly
	// empty). NaN values are stored as SQL NULL and read back as NaN.
	Metrics map[string]float64
}
