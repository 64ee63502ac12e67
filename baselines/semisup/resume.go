package semisup

// progress is where a run stands at a save (suite.Resume, through
// gnn.Trainer): the end of a pretraining epoch or of a supervised pass.
// A fresh run starts at the zero progress.
type progress struct {
	// Pretrain is the number of pretraining epochs done (GraphCL, RGCL).
	Pretrain int `json:"pretrain"`
	// Passes and Steps are the supervised passes (over D^l) and optimizer
	// steps done (net.supervisedSteps).
	Passes int `json:"passes"`
	Steps  int `json:"steps"`
}

// restore continues an interrupted run (task.Resume): it loads the saved
// variables into the store and the host state registered in n.tr.State, and
// sets n.at to the saved progress. Call it after registering the host
// state and before the first training step; without a saved state it
// does nothing.
func (n *net) restore() error {
	_, err := n.tr.Restore(&n.at)
	return err
}

// save stores the run's state at progress p if a save is due; a failed
// save warns and training goes on (gnn.RunState.Save).
func (n *net) save(p progress) {
	n.tr.Save(p)
}
