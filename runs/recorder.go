package runs

import "github.com/ugbench/ugbench/suite"

// Recorder adapts a Store to suite.Recorder, stamping every run with the
// provenance of this process and the run's backend and device.
type Recorder struct {
	Store *Store
	// Backend is the GoMLX backend configuration of the grid.
	Backend string
	// Kernels is the CPU vector kernel set of the pure-Go backend in this
	// process (cpukernels.Of(Backend)); every run's Provenance.Kernels.
	Kernels string
}

// Finished implements suite.Recorder.
func (r Recorder) Finished(hashes []string) (map[string]bool, error) {
	return r.Store.Finished(hashes)
}

// Start implements suite.Recorder.
func (r Recorder) Start(spec suite.RunSpec, device string) (int64, error) {
	prov := CollectProvenance(r.Backend, device)
	prov.Kernels = r.Kernels
	return r.Store.Start(spec, prov)
}

// Finish implements suite.Recorder.
func (r Recorder) Finish(id int64, res suite.Result) error { return r.Store.Finish(id, res) }

// Fail implements suite.Recorder.
func (r Recorder) Fail(id int64, interrupted bool, msg string, res suite.Result) error {
	status := StatusFailed
	if interrupted {
		status = StatusInterrupted
	}
	return r.Store.Fail(id, status, msg, res.Curves)
}

// Progress implements suite.ProgressRecorder (Store.Progress).
func (r Recorder) Progress(id int64, epoch, total int) { r.Store.Progress(id, epoch, total) }

var (
	_ suite.Recorder         = Recorder{}
	_ suite.ProgressRecorder = Recorder{}
)
