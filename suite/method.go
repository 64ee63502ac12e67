// Package suite is the core of ugbench: the Method interface every method
// implements, the method registry, the protocol's task and scoring (docs/protocol.md
// §2–4), the grid of run specs and the scheduler that runs them onto device
// slots.
package suite

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/ugbench/ugbench/datasets"
)

// Task is everything a method sees for one run: all graphs of the dataset
// (labelled, unlabelled and, if any, held-out), the labels of the labelled
// graphs only, and the run's settings. Unlabelled graphs' labels are never in
// a Task.
type Task struct {
	// Graphs are all graphs of the dataset, without labels.
	Graphs []datasets.Graph
	// FeatureDim is the width of every Graph.Features row.
	FeatureDim int
	// NumNodeLabels is the number of discrete node labels (0 if none).
	NumNodeLabels int
	// NumKnown is |C^l|, the number of known classes.
	NumKnown int
	// Labelled are the indices into Graphs of D^l.
	Labelled []int
	// Labels are the known-class labels of Labelled, in 0..NumKnown-1.
	Labels []int
	// Unlabelled are the indices into Graphs of D^u (known- and
	// unknown-class graphs alike).
	Unlabelled []int
	// Eval are the indices into Graphs that the method must predict, in the
	// order of Predictions: D^u and the held-out test set, ascending. A
	// method trains on Labelled and Unlabelled only; the other graphs of
	// Eval reach it only to be predicted, with their structure and
	// features (docs/protocol.md §3).
	Eval []int
	// Params are the run's hyper-parameters: the method's Defaults overridden
	// by the grid.
	Params Params
	// Seed is the run's seed; a method must be deterministic given it (up to
	// floating-point reduction order).
	Seed int64
	// Device names the device the run was given: "cpu" or "cuda:I".
	Device string
	// Backend is the GoMLX backend configuration, e.g. "go" or "xla:cuda".
	Backend string
	// Log receives per-epoch values (loss and whatever the method tracks);
	// the suite stores them as curves. Never nil inside Fit.
	Log Logger
	// Dataset is the dataset's name, for cache keys and messages.
	Dataset string
	// Ratio is the labelled ratio of the split, for cache keys.
	Ratio float64
	// SplitSeed is the seed the split was drawn with, for cache keys.
	SplitSeed int64
	// NumUnknown is K, the number of unknown-class graphs in Unlabelled.
	// UGNN's curriculum selects the ⌈α·K⌉ least confident graphs, assuming
	// K known as the paper does (§5.4, "we use the ground truth number of
	// OOD samples"); a method that reads it must say so in its doc.
	NumUnknown int
	// Alpha is the protocol's OOD multiplier α (docs/protocol.md §3).
	Alpha float64
	// CacheDir is where a method may keep state reusable across runs
	// (e.g. UGNN's warm-up checkpoints); "" disables such caches.
	CacheDir string
	// ReportOODSet, never nil inside Fit, receives the graphs (indices into
	// Graphs) a method currently holds to be of unknown classes, after
	// epoch; the suite logs their precision, recall and count against the
	// truth as curves (the method never sees the truth).
	ReportOODSet func(epoch int, graphs []int)
	// ReportScores, never nil inside Fit, receives unknown scores (higher =
	// more likely unknown) that the method computed for graphs (indices
	// into Graphs) after epoch, keyed by a name of lower-case letters,
	// digits and '_', each index-aligned with graphs: e.g. the scores a
	// curriculum ranks by. The suite logs the OOD AUROC of each against the
	// truth as curve ood_auroc_<name> (NaN if a score is NaN) and keeps
	// nothing else of the call. It returns an error, and logs nothing, for
	// a bad name or length; Fit should return that error. Call it from
	// Fit's goroutine only.
	ReportScores func(epoch int, graphs []int, scores map[string][]float64) error
	// ReportClasses, never nil inside Fit, receives the known classes a
	// method currently predicts for graphs (indices into Graphs, normally
	// Unlabelled) after epoch; the suite logs the closed-set accuracy of
	// their known-class graphs as curve du_closed_acc (test graphs are
	// skipped). Methods call it every Params "curve_every" epochs when they
	// have that parameter and it is > 0; it must not change training.
	ReportClasses func(epoch int, graphs, classes []int) error
	// Warn, never nil inside Fit, reports something a run survived but a
	// user should know (a cache entry found damaged and rebuilt, an
	// optional save that failed) as one line on the run's warning path
	// (Runner.Warn); it does not fail the run.
	Warn func(msg string)
	// Resume, nil when resuming is off, saves and restores the state of a
	// long run so that an interrupted run continues where it stopped
	// (see Resume; its methods accept nil).
	Resume *Resume
}

// TrainPool returns D^l ∪ D^u, ascending: the graphs a method may train on
// and compute statistics over (e.g. feature standardisation). The test
// graphs are the rest of Eval.
func (t *Task) TrainPool() []int {
	pool := append(slices.Clone(t.Labelled), t.Unlabelled...)
	slices.Sort(pool)
	return pool
}

// Logger receives a method's training curves.
type Logger interface {
	// Epoch records the named values at the end of epoch (1-based) of total.
	Epoch(epoch, total int, values map[string]float64)
}

// Phase tells the suite that the epochs log receives from now on belong to
// the named training phase (a lower-case word, e.g. "warmup", "pretrain"),
// for a method whose phases differ in cost: the suite then stores, beside
// epoch_seconds (the median over all timed epochs), epoch_seconds_<name>,
// the median over that phase's epochs. A Logger that does not time epochs
// ignores it.
func Phase(log Logger, name string) {
	if p, ok := log.(interface{ Phase(string) }); ok {
		p.Phase(name)
	}
}

// Predictions is a method's output for Task.Eval, index-aligned with it.
type Predictions struct {
	// Class is the predicted known class of each evaluation graph, in
	// 0..NumKnown-1.
	Class []int
	// UnknownScore is higher for graphs more likely to be of an unknown
	// class (docs/protocol.md §3). The suite, not the method, turns it into a
	// decision.
	UnknownScore []float64
	// ExtraScores, optional, are alternative unknown scores of the Eval
	// graphs (higher = more likely unknown), index-aligned with Eval and
	// keyed like Task.ReportScores: what the method computed on the way,
	// e.g. UGNN's −μ and σ of its subgraph confidences. The suite stores
	// the OOD AUROC of each as metric ood_auroc_<name> (and
	// test_ood_auroc_<name>), NaN if a score is NaN; they enter no other
	// metric. A bad name or length fails the run.
	ExtraScores map[string][]float64
	// Embeddings, optional, are the method's final graph embeddings of the
	// Eval graphs, shape [len(Eval)][d], index-aligned with Class, every
	// row of one width d ≥ 1: the graph-level representation the method's
	// classifier reads, for the paper's t-SNE figure (RQ4, Figure 6). For
	// the GNN rows (methods/gnn) it is the encoder's readout mean‖max,
	// gnn.EncoderConfig.EmbeddingDim() = 2·hidden wide, fed to the MLP
	// head; a method says in its doc which layer it hands over. The suite
	// stores the test graphs' rows (Result.Embeddings); nil (e.g. the
	// kernel baselines, which have no embedding) stores nothing. A bad
	// length or width fails the run. They are an output, never a
	// parameter: they change no run hash.
	Embeddings [][]float32
	// Logits, optional, are the method's scores over the known classes of
	// the Eval graphs, shape [len(Eval)][NumKnown], index-aligned with
	// Class: the GNN rows' logits (the softmax's input), the kernel rows'
	// one-vs-rest SVM decision values. With the embeddings they are what
	// the post-hoc unknown scorers read (suite/scorers; docs/protocol.md
	// §4), so that a row's classifier and its unknown score can be told
	// apart. nil runs only the logit-free scorers.
	Logits [][]float32
	// LabelledLogits and LabelledEmbeddings are the same outputs (the
	// same layers as Logits and Embeddings) for Task.Labelled,
	// index-aligned with it: the in-distribution statistics that a
	// scorer fits with Task.Labels (class means, a nearest-neighbour
	// bank). Each is nil exactly when its Eval counterpart is nil.
	LabelledLogits, LabelledEmbeddings [][]float32
}

// Method is one row of the paper's tables: a graph classifier that also
// scores how unknown each graph is. Implementations are stateless values;
// all state lives inside one Fit call.
type Method interface {
	// Name is the registry name, e.g. "gin-topk".
	Name() string
	// Doc is a one-line description with the method's source paper.
	Doc() string
	// Defaults returns the method's hyper-parameters with default values.
	// Every name can be swept with --set NAME.param=v1,v2. A method
	// declares them (ParamSetter) so that their types, ranges, docs and
	// legacy values come from one place; Defaults then returns the
	// declaration's.
	Defaults() Params
	// Fit trains on task and predicts task.Eval. It returns an error (never
	// panics by design) for bad parameters or numeric failure (e.g. NaN loss)
	// and stops early with ctx.Err() when ctx is cancelled.
	Fit(ctx context.Context, task *Task) (*Predictions, error)
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Method{}
	infos      = map[string]Info{}
)

// Register adds m to the registry with its Info, the table metadata the
// reports read (InfoOf, TableOrder); a method outside the paper's tables
// may leave it out (the zero Info: FamilyOther, named by its registry
// name). It panics if the name is taken or more than one Info is given,
// programming errors caught at init time.
func Register(m Method, info ...Info) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[m.Name()]; dup {
		panic(fmt.Sprintf("suite: method %q registered twice", m.Name()))
	}
	if len(info) > 1 {
		panic(fmt.Sprintf("suite: method %q registered with %d Infos", m.Name(), len(info)))
	}
	registry[m.Name()] = m
	if len(info) == 1 {
		infos[m.Name()] = info[0]
	} else {
		infos[m.Name()] = Info{}
	}
}

// Lookup returns the method registered as name.
func Lookup(name string) (Method, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	m, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown method %q (registered: %v)", name, namesLocked())
	}
	return m, nil
}

// Names lists the registered methods in sorted order.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LegacyParams is implemented by a method that added a hyper-parameter after
// runs were stored without it. LegacyParams returns, for each such
// parameter, the value those runs had in effect (e.g. a new switch that
// defaults to a new behaviour but whose old behaviour is value false). A
// spec whose parameter equals its legacy value hashes as if the parameter
// did not exist, so `bench grid` recognises the old runs as finished
// instead of recomputing them; any other value hashes as usual. A method
// that declares its parameters (ParamSetter) gives them as
// ParamSpec.Legacy instead.
type LegacyParams interface {
	LegacyParams() Params
}

// withoutLegacy returns p without the parameters whose value equals m's
// legacy value for them (ParamsOf(m).Legacy(); p itself when there are
// none).
func withoutLegacy(m Method, p Params) Params {
	var out Params
	for k, v := range ParamsOf(m).Legacy() {
		if pv, ok := p[k]; ok && SameValue(pv, v) {
			if out == nil {
				out = p.Clone()
			}
			delete(out, k)
		}
	}
	if out == nil {
		return p
	}
	return out
}

// number reads v as a number if it is a Go number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
