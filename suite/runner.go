package suite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/internal/cpukernels"
	"github.com/ugbench/ugbench/suite/scorers"
)

// Runner executes single runs: it loads datasets (once per process, shared
// by concurrent runs), makes the protocol split, hands the method a Task,
// and scores its predictions (docs/protocol.md §2–4).
type Runner struct {
	// DataDir is the directory holding the datasets.
	DataDir string
	// Loader loads them (its zero value reports nothing; bench shows the
	// superpixel builder's progress and cache warnings through it).
	Loader datasets.Loader
	// Backend is the GoMLX backend configuration given to methods.
	Backend string
	// CacheDir is handed to methods as Task.CacheDir ("" = no caches).
	CacheDir string
	// ResumeEvery is the least wall time between two saves of a running
	// run's state under CacheDir/resume (Task.Resume); 0 turns resuming
	// off.
	ResumeEvery time.Duration
	// Scorers are the post-hoc unknown scorers applied to every run whose
	// method hands over logits or embeddings (ScoreOutputs); nil applies
	// none. Their metrics are stored beside the native ones.
	Scorers []scorers.Scorer
	// KeepOutputs stores each run's Outputs (Result.Outputs) so that it
	// can be rescored later without retraining.
	KeepOutputs bool
	// Warn, if set, receives the warnings of runs, one line each, prefixed
	// with the run (Task.Warn): a resume state not saved, a damaged cache
	// entry deleted and rebuilt. Nil prints them on os.Stderr.
	Warn func(msg string)

	mu    sync.Mutex
	cache map[string]*dsEntry
}

type dsEntry struct {
	once sync.Once
	ds   *datasets.Dataset
	err  error
	// fingerprint is datasets.Fingerprint of ds, computed once on demand.
	fingerprint func() string
}

// Dataset loads name from r.DataDir once and returns the shared copy.
func (r *Runner) Dataset(name string) (*datasets.Dataset, error) {
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]*dsEntry{}
	}
	e, ok := r.cache[name]
	if !ok {
		e = &dsEntry{}
		r.cache[name] = e
	}
	r.mu.Unlock()
	e.once.Do(func() {
		e.ds, e.err = r.Loader.Load(r.DataDir, name)
		if e.err == nil {
			e.fingerprint = sync.OnceValue(func() string { return datasets.Fingerprint(e.ds.Graphs) })
		}
	})
	return e.ds, e.err
}

// fingerprint is datasets.Fingerprint of the loaded dataset name.
func (r *Runner) fingerprint(name string) string {
	r.mu.Lock()
	e := r.cache[name]
	r.mu.Unlock()
	return e.fingerprint()
}

// curveLog collects a run's curves and forwards epochs to an optional sink.
// It also times each epoch: the wall time between consecutive Epoch calls
// (the first from the start of Fit).
type curveLog struct {
	points []CurvePoint
	sink   func(epoch, total int)
	now    func() time.Time
	last   time.Time
	times  []float64 // seconds of each epoch
	phase  string    // the current phase (Phase), "" before any
	// phaseTimes are the times of the epochs logged in each named phase.
	phaseTimes map[string][]float64
	// epoch and total are the arguments of the last Epoch call.
	epoch, total int
}

// Phase starts a named training phase (see suite.Phase).
func (l *curveLog) Phase(name string) {
	l.phase = name
}

// EpochSecondsMetric is the metric the suite adds to every run whose method
// logs epochs: the median wall time of one computed epoch, in seconds,
// measured between consecutive Logger.Epoch calls (the first from the start
// of Fit, so it includes compilation, which the median ignores from three
// epochs on). It covers whatever a method does between two Epoch calls,
// e.g. UGNN's subgraph OOD scoring at the start of a cycle; for a method
// with phases of different cost (UGNN's warm-up and cycles) it is the median
// over all of them; a method that names its phases (Phase) also gets
// epoch_seconds_<phase>, the median over each phase's epochs. Epochs
// restored from a cache (CachedEpochCurve) are not timed.
const EpochSecondsMetric = "epoch_seconds"

// CachedEpochCurve is the curve a method sets to 1 on an epoch it restored
// from a cache instead of computing it (UGNN's warm-up checkpoints), so the
// curves of a cached run read like an uncached one's; the epoch timer skips
// such epochs.
const CachedEpochCurve = "warmup_cached"

func (l *curveLog) start() {
	if l.now == nil {
		l.now = time.Now
	}
	l.last = l.now()
}

func (l *curveLog) Epoch(epoch, total int, values map[string]float64) {
	l.epoch, l.total = epoch, total
	if l.now != nil {
		t := l.now()
		if values[CachedEpochCurve] == 0 {
			sec := t.Sub(l.last).Seconds()
			l.times = append(l.times, sec)
			if l.phase != "" {
				if l.phaseTimes == nil {
					l.phaseTimes = map[string][]float64{}
				}
				l.phaseTimes[l.phase] = append(l.phaseTimes[l.phase], sec)
			}
		}
		l.last = t
	}
	for _, k := range sortedFloatKeys(values) {
		l.points = append(l.points, CurvePoint{Epoch: epoch, Name: k, Value: values[k]})
	}
	if l.sink != nil {
		l.sink(epoch, total)
	}
}

// oodSet logs the precision, recall and size of a method's current OOD set
// (curves ood_set_precision, ood_set_recall, ood_set_size).
func (l *curveLog) oodSet(epoch int, graphs []int, numUnknown int, isUnknown func(int) bool) {
	tp := 0
	for _, g := range graphs {
		if isUnknown(g) {
			tp++
		}
	}
	precision, recall := 0.0, 0.0
	if len(graphs) > 0 {
		precision = float64(tp) / float64(len(graphs))
	}
	if numUnknown > 0 {
		recall = float64(tp) / float64(numUnknown)
	}
	l.points = append(l.points,
		CurvePoint{Epoch: epoch, Name: "ood_set_precision", Value: precision},
		CurvePoint{Epoch: epoch, Name: "ood_set_recall", Value: recall},
		CurvePoint{Epoch: epoch, Name: "ood_set_size", Value: float64(len(graphs))})
}

// scores logs the OOD AUROC of each named score of graphs (curves
// ood_auroc_<name>); see Task.ReportScores.
func (l *curveLog) scores(epoch int, graphs []int, scores map[string][]float64, truthOf func(int) int) error {
	truth := make([]int, len(graphs))
	for i, g := range graphs {
		truth[i] = truthOf(g)
	}
	aurocs, err := extraAUROCs(truth, scores, len(graphs))
	if err != nil {
		return fmt.Errorf("ReportScores after epoch %d: %w", epoch, err)
	}
	for _, name := range slices.Sorted(maps.Keys(aurocs)) {
		l.points = append(l.points, CurvePoint{Epoch: epoch, Name: name, Value: aurocs[name]})
	}
	return nil
}

// CurveDUClosedAcc is the curve of Task.ReportClasses: the closed-set
// accuracy of the known-class graphs of D^u that a method classified after
// an epoch. It is a figure of the training pool (the labels stay with the
// suite), for choosing budgets without touching the test set.
const CurveDUClosedAcc = PrefixDU + MetricClosedAcc

// classes logs CurveDUClosedAcc over the known-class graphs among graphs;
// graphs of the test set are skipped, so no curve ever reads the test set.
func (l *curveLog) classes(epoch int, graphs, classes []int, truthOf func(int) int, test []int) error {
	if len(graphs) != len(classes) {
		return fmt.Errorf("ReportClasses after epoch %d: %d classes for %d graphs", epoch, len(classes), len(graphs))
	}
	var known, correct int
	for i, g := range graphs {
		if _, inTest := slices.BinarySearch(test, g); inTest {
			continue
		}
		if t := truthOf(g); t != Unknown {
			known++
			if classes[i] == t {
				correct++
			}
		}
	}
	if known > 0 {
		l.points = append(l.points, CurvePoint{Epoch: epoch, Name: CurveDUClosedAcc, Value: float64(correct) / float64(known)})
	}
	return nil
}

// extraAUROCs returns ood_auroc_<name> of every score (index-aligned with
// truth; NaN if a score is NaN; absent if truth is of one kind only). It
// returns an error for a bad name or a length other than n.
func extraAUROCs(truth []int, scores map[string][]float64, n int) (map[string]float64, error) {
	out := map[string]float64{}
	for _, name := range slices.Sorted(maps.Keys(scores)) {
		if err := checkScoreName(name); err != nil {
			return nil, err
		}
		if len(scores[name]) != n {
			return nil, fmt.Errorf("score %s: %d values for %d graphs", name, len(scores[name]), n)
		}
	}
	for name, sc := range scores {
		switch v, ok, err := OODAUROC(truth, sc); {
		case err != nil: // lengths are checked, so a NaN score
			out[MetricOODAUROC+"_"+name] = math.NaN()
		case ok:
			out[MetricOODAUROC+"_"+name] = v
		}
	}
	return out, nil
}

// medianEpochSeconds returns the median of the timed epochs, false if none.
func (l *curveLog) medianEpochSeconds() (float64, bool) { return median(l.times) }

// epochSecondsMetrics are EpochSecondsMetric over all timed epochs and,
// per named phase, EpochSecondsMetric_<phase> over that phase's.
func (l *curveLog) epochSecondsMetrics() map[string]float64 {
	out := map[string]float64{}
	if sec, ok := l.medianEpochSeconds(); ok {
		out[EpochSecondsMetric] = sec
	}
	for name, times := range l.phaseTimes {
		if sec, ok := median(times); ok {
			out[EpochSecondsMetric+"_"+name] = sec
		}
	}
	return out
}

// median returns the median of xs, false if xs is empty.
func median(xs []float64) (float64, bool) {
	n := len(xs)
	if n == 0 {
		return 0, false
	}
	t := slices.Sorted(slices.Values(xs))
	if n%2 == 1 {
		return t[n/2], true
	}
	return (t[n/2-1] + t[n/2]) / 2, true
}

func sortedFloatKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Run executes spec on device and returns its metrics and curves. onEpoch,
// if non-nil, is called after each training epoch (for progress display).
// A panic inside the method is returned as an error with its stack, so one
// broken run never takes down a grid.
//
// Scoring follows docs/protocol.md §3–4: the method predicts D^u and the
// held-out test set; on D^u the ⌈α·K_u⌉ highest unknown scores are
// declared unknown, the lowest of them is the threshold, and every test
// graph scoring at or above it is declared unknown. The headline metrics
// (Score's names, unprefixed) are the test set's; the transductive figures
// of D^u are stored under PrefixDU and the chance figures of the test set
// under PrefixChance.
func (r *Runner) Run(ctx context.Context, spec RunSpec, device string, onEpoch func(epoch, total int)) (res Result, err error) {
	return r.run(ctx, spec, device, onEpoch, nil)
}

// run is Run; store, if non-nil, records the finished run's result (the
// scheduler's Recorder.Finish) before its resume state is deleted, and its
// error is run's. The state outlives Fit: a run killed after training, in
// its scoring or while stored (the end of a batch job's time, the OOM
// killer), continues from its last save on the next attempt instead of
// starting over. An interrupted run, or one whose store failed, keeps its
// state; a failed run (its method's or scoring's error) and a stored one
// delete it, as does a store that says another process finished the spec
// (ErrAlreadyFinished).
func (r *Runner) run(ctx context.Context, spec RunSpec, device string, onEpoch func(epoch, total int), store func(Result) error) (res Result, err error) {
	m, err := Lookup(spec.Method)
	if err != nil {
		return res, err
	}
	ds, err := r.Dataset(spec.Dataset)
	if err != nil {
		return res, err
	}
	split, err := MakeSplit(ds, spec)
	if err != nil {
		return res, err
	}
	params := m.Defaults().Clone()
	for k, v := range spec.Params {
		if _, ok := params[k]; !ok {
			return res, fmt.Errorf("%s has no parameter %q", spec.Method, k)
		}
		params[k] = v
	}
	log := &curveLog{sink: onEpoch}
	// truthOf is graph g's known class index, or Unknown; only the suite
	// reads it (scoring and the curves of D^u), never the method.
	truthOf := func(g int) int {
		if k := split.KnownIndex(ds.Labels[g]); k >= 0 {
			return k
		}
		return Unknown
	}
	task := NewTask(ds, split, spec, params)
	task.Device, task.Backend, task.CacheDir, task.Log = device, r.Backend, r.CacheDir, log
	task.Warn = func(msg string) {
		msg = spec.String() + ": " + msg
		if r.Warn != nil {
			r.Warn(msg)
			return
		}
		fmt.Fprintln(os.Stderr, "warning:", msg)
	}
	isUnknown := func(g int) bool { return truthOf(g) == Unknown }
	task.ReportOODSet = func(epoch int, graphs []int) { log.oodSet(epoch, graphs, task.NumUnknown, isUnknown) }
	task.ReportScores = func(epoch int, graphs []int, scores map[string][]float64) error {
		return log.scores(epoch, graphs, scores, truthOf)
	}
	task.ReportClasses = func(epoch int, graphs, classes []int) error {
		return log.classes(epoch, graphs, classes, truthOf, split.Test)
	}
	eval := task.Eval
	var fp string
	if r.CacheDir != "" && r.ResumeEvery > 0 {
		fp = r.fingerprint(spec.Dataset)
	}
	if task.Resume, err = openResume(r.CacheDir, r.ResumeEvery, spec, resumeBackend(r.Backend), fp, log, task.Warn); err != nil {
		return res, err
	}
	start := time.Now()
	log.start()
	mem := startMemorySampler()
	keep := false // set where the state must outlive this attempt
	defer func() { task.Resume.finish(keep) }()
	pred, err := fitSafely(ctx, m, task)
	res.Seconds = time.Since(start).Seconds() + task.Resume.priorSeconds()
	peakMiB := mem.stop()
	res.Curves = log.points
	if err != nil {
		keep = ctx.Err() != nil
		return res, err
	}
	if len(pred.Class) != len(eval) || len(pred.UnknownScore) != len(eval) {
		return res, fmt.Errorf("%s returned %d classes and %d scores for %d evaluation graphs", spec.Method, len(pred.Class), len(pred.UnknownScore), len(eval))
	}
	res.Metrics, err = ScoreRun(eval, split, pred, truthOf, spec.Protocol.Alpha)
	if err != nil {
		return res, err
	}
	maps.Copy(res.Metrics, log.epochSecondsMetrics())
	res.Metrics[PeakMemoryMetric] = peakMiB
	if resumes := task.Resume.count(); resumes > 0 {
		res.Metrics[ResumedMetric] = float64(resumes)
	}
	if res.Embeddings, err = TestEmbeddings(eval, split.Test, pred.Embeddings, truthOf); err != nil {
		return res, fmt.Errorf("%s: %w", spec.Method, err)
	}
	if pred.Logits != nil || pred.Embeddings != nil {
		out, err := NewOutputs(eval, split.Test, task.Labels, task.NumKnown, pred, truthOf)
		if err != nil {
			return res, fmt.Errorf("%s: %w", spec.Method, err)
		}
		// The scorers read float16-rounded outputs, as bench rescore
		// reads them from the store: a rescored run equals a fresh one.
		out.RoundFloat16()
		m, recs, err := ScoreOutputs(out, r.Scorers, spec.Protocol.Alpha)
		if err != nil {
			return res, fmt.Errorf("%s: %w", spec.Method, err)
		}
		maps.Copy(res.Metrics, m)
		res.Scorers = recs
		if r.KeepOutputs {
			res.Outputs = out
		}
	}
	if store != nil {
		if err := store(res); err != nil {
			keep = !errors.Is(err, ErrAlreadyFinished)
			return res, err
		}
	}
	return res, nil
}

// TestEmbeddings picks the rows of test (a sorted subset of eval) from
// emb, a method's Predictions.Embeddings index-aligned with eval, with
// each test graph's truth. It returns nil for nil emb, and an error if emb
// has a length other than len(eval), a row of width 0, or rows of
// different widths.
func TestEmbeddings(eval, test []int, emb [][]float32, truthOf func(int) int) (*Embeddings, error) {
	if emb == nil {
		return nil, nil
	}
	if len(emb) != len(eval) {
		return nil, fmt.Errorf("embeddings: %d rows for %d evaluation graphs", len(emb), len(eval))
	}
	dim := 0
	if len(emb) > 0 {
		dim = len(emb[0])
	}
	for i, row := range emb {
		if len(row) != dim || dim == 0 {
			return nil, fmt.Errorf("embeddings: row %d has width %d, row 0 %d (want one width ≥ 1)", i, len(row), dim)
		}
	}
	pos := make(map[int]int, len(eval))
	for i, g := range eval {
		pos[g] = i
	}
	out := &Embeddings{Graphs: slices.Clone(test), Truth: make([]int, len(test)), Dim: dim, Data: make([]float32, 0, len(test)*dim)}
	for i, g := range test {
		j, ok := pos[g]
		if !ok {
			return nil, fmt.Errorf("embeddings: test graph %d is not an evaluation graph", g)
		}
		out.Truth[i] = truthOf(g)
		out.Data = append(out.Data, emb[j]...)
	}
	return out, nil
}

// MakeSplit draws the split of spec on ds (docs/protocol.md §2): a pure
// function of the dataset, the ratio, the split seed, the class split and
// the test fraction, never of the run seed or the method. The test
// fraction must be in (0, 1): the headline metrics are the test set's.
func MakeSplit(ds *datasets.Dataset, spec RunSpec) (*datasets.Split, error) {
	info, ok := datasets.LookupInfo(spec.Dataset)
	if !ok {
		return nil, fmt.Errorf("dataset %s has no protocol entry (number of known classes)", spec.Dataset)
	}
	if !(spec.Protocol.TestFrac > 0 && spec.Protocol.TestFrac < 1) {
		return nil, fmt.Errorf("split %s: test_frac %g: want a fraction in (0, 1); the headline metrics are a held-out test set's (docs/protocol.md §2)", spec, spec.Protocol.TestFrac)
	}
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{
		Known: info.Known, Ratio: spec.Ratio, Seed: spec.SplitSeed,
		ClassSplit: spec.Protocol.ClassSplit, TestFrac: spec.Protocol.TestFrac,
	})
	if err != nil {
		return nil, fmt.Errorf("split %s: %w", spec, err)
	}
	return split, nil
}

// Warnf formats a warning of the run and sends it to t.Warn, or prints it
// on os.Stderr when t has none (a Task built by hand).
func (t *Task) Warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if t.Warn != nil {
		t.Warn(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "warning:", msg)
}

// NewTask is the Task of spec on ds and split with the given parameters:
// the graphs, the labels of D^l only, D^u, the evaluation graphs (D^u and
// the test set, ascending), K_u and α. It reads ds.Labels only through the
// split's labelled set and to count K_u on D^u; nothing of the test set
// but its indices reaches the Task. The caller sets Device, Backend,
// CacheDir, Log, the Report hooks and Warn (stderr by default).
func NewTask(ds *datasets.Dataset, split *datasets.Split, spec RunSpec, params Params) *Task {
	eval := append(slices.Clone(split.Unlabelled), split.Test...)
	slices.Sort(eval)
	numUnknown := 0
	for _, g := range split.Unlabelled {
		if split.KnownIndex(ds.Labels[g]) < 0 {
			numUnknown++
		}
	}
	return &Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumNodeLabels: ds.NumNodeLabels,
		NumKnown: len(split.KnownClasses), Labelled: split.Labelled, Labels: split.LabelledY,
		Unlabelled: split.Unlabelled, Eval: eval, Params: params, Seed: spec.Seed,
		Dataset: spec.Dataset, Ratio: spec.Ratio, SplitSeed: spec.SplitSeed,
		NumUnknown: numUnknown, Alpha: spec.Protocol.Alpha,
		ReportOODSet:  func(int, []int) {},
		ReportScores:  func(int, []int, map[string][]float64) error { return nil },
		ReportClasses: func(int, []int, []int) error { return nil },
		Warn:          func(msg string) { fmt.Fprintln(os.Stderr, "warning:", spec.String()+":", msg) },
	}
}

// ScoreRun scores a method's predictions of eval (D^u and the test set,
// ascending) under docs/protocol.md §3–4 and returns every stored metric:
// the test set's headline metrics and declared_ratio, unprefixed; D^u's
// under PrefixDU (top-⌈α·K_u⌉ there); the test set's chance figures under
// PrefixChance; and ood_auroc_<name> of each extra score on both sets.
func ScoreRun(eval []int, split *datasets.Split, pred *Predictions, truthOf func(int) int, alpha float64) (map[string]float64, error) {
	du, err := scoreSubset(eval, split.Unlabelled, pred, truthOf)
	if err != nil {
		return nil, fmt.Errorf("D^u: %w", err)
	}
	test, err := scoreSubset(eval, split.Test, pred, truthOf)
	if err != nil {
		return nil, fmt.Errorf("test set: %w", err)
	}
	p, err := scoreProtocol(du, test, alpha)
	if err != nil {
		return nil, err
	}
	for k, v := range ChanceMetrics(test.truth, MajorityClass(split.LabelledY), len(split.Unlabelled), p.declaredDU) {
		p.metrics[PrefixChance+k] = v
	}
	return p.metrics, nil
}

// protocolScores are the metrics of scoreProtocol and how many graphs of
// D^u it declared unknown.
type protocolScores struct {
	metrics    map[string]float64
	declaredDU int
}

// scoreProtocol applies docs/protocol.md §3 to the scored sets du and
// test: the ⌈α·K_u⌉ highest scores of du are declared unknown, the lowest
// of them is the threshold, and every test graph at or above it is
// declared. It returns the test set's metrics unprefixed and du's under
// PrefixDU.
func scoreProtocol(du, test *scored, alpha float64) (*protocolScores, error) {
	numUnknownDU := 0
	for _, t := range du.truth {
		if t == Unknown {
			numUnknownDU++
		}
	}
	declaredDU := DeclaredUnknown(du.pred.UnknownScore, numUnknownDU, alpha)
	thr := lowestDeclared(du.pred.UnknownScore, declaredDU) // Threshold, without sorting again
	duMetrics, err := du.score(declaredDU)
	if err != nil {
		return nil, fmt.Errorf("D^u: %w", err)
	}
	out, err := test.score(DeclaredAtThreshold(test.pred.UnknownScore, thr))
	if err != nil {
		return nil, fmt.Errorf("test set: %w", err)
	}
	for k, v := range duMetrics {
		out[PrefixDU+k] = v
	}
	p := &protocolScores{metrics: out}
	for _, d := range declaredDU {
		if d {
			p.declaredDU++
		}
	}
	return p, nil
}

// scored is one scored set: its truth and the predictions of its graphs.
type scored struct {
	truth []int
	pred  *Predictions
	extra map[string][]float64
}

// score returns the metrics of ScoreDeclared and the extra scores' AUROCs.
func (s *scored) score(declared []bool) (map[string]float64, error) {
	m, err := ScoreDeclared(s.truth, s.pred, declared)
	if err != nil {
		return nil, err
	}
	aurocs, err := extraAUROCs(s.truth, s.extra, len(s.truth))
	if err != nil {
		return nil, fmt.Errorf("extra scores: %w", err)
	}
	maps.Copy(m, aurocs)
	return m, nil
}

// scoreSubset picks the predictions of the graphs in subset (a sorted
// subset of eval) and their truth.
func scoreSubset(eval, subset []int, pred *Predictions, truthOf func(int) int) (*scored, error) {
	pos := make(map[int]int, len(eval))
	for i, g := range eval {
		pos[g] = i
	}
	s := &scored{pred: &Predictions{}, truth: make([]int, len(subset)), extra: make(map[string][]float64, len(pred.ExtraScores))}
	for i, g := range subset {
		s.truth[i] = truthOf(g)
		s.pred.Class = append(s.pred.Class, pred.Class[pos[g]])
		s.pred.UnknownScore = append(s.pred.UnknownScore, pred.UnknownScore[pos[g]])
	}
	for name, all := range pred.ExtraScores {
		if len(all) != len(eval) {
			return nil, fmt.Errorf("extra score %s: %d values for %d evaluation graphs", name, len(all), len(eval))
		}
		sub := make([]float64, len(subset))
		for i, g := range subset {
			sub[i] = all[pos[g]]
		}
		s.extra[name] = sub
	}
	return s, nil
}

func fitSafely(ctx context.Context, m Method, task *Task) (pred *Predictions, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in %s: %v\n%s", m.Name(), p, debug.Stack())
		}
	}()
	pred, err = m.Fit(ctx, task)
	if err == nil && pred == nil {
		err = fmt.Errorf("%s returned no predictions", m.Name())
	}
	return pred, err
}

// resumeBackend is the backend part of a resume state's key: the backend
// configuration and, for GoMLX's pure-Go backend, the CPU kernels of this
// process (cpukernels.Of), since a state saved by other kernels would
// continue with other floats.
func resumeBackend(backend string) string {
	if k := cpukernels.Of(backend); k != "" {
		return backend + " kernels=" + k
	}
	return backend
}
