package suite

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ugbench/ugbench/datasets"
)

// Runner executes single runs: it loads datasets (once per process, shared
// by concurrent runs), makes the protocol split, hands the method a Task,
// and scores its predictions (PROTOCOL §2–4).
type Runner struct {
	// DataDir is the directory holding the datasets.
	DataDir string
	// Backend is the GoMLX backend configuration given to methods.
	Backend string
	// CacheDir is handed to methods as Task.CacheDir ("" = no caches).
	CacheDir string

	mu    sync.Mutex
	cache map[string]*dsEntry
}

type dsEntry struct {
	once sync.Once
	ds   *datasets.Dataset
	err  error
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
	e.once.Do(func() { e.ds, e.err = datasets.Load(r.DataDir, name) })
	return e.ds, e.err
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
}

// EpochSecondsMetric is the metric the suite adds to every run whose method
// logs epochs: the median wall time of one computed epoch, in seconds,
// measured between consecutive Logger.Epoch calls (the first from the start
// of Fit, so it includes compilation, which the median ignores from three
// epochs on). It covers whatever a method does between two Epoch calls,
// e.g. UGNN's subgraph OOD scoring at the start of a cycle; for a method
// with phases of different cost (UGNN's warm-up and cycles) it is the median
// over all of them. Epochs restored from a cache (CachedEpochCurve) are not
// timed.
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
	if l.now != nil {
		t := l.now()
		if values[CachedEpochCurve] == 0 {
			l.times = append(l.times, t.Sub(l.last).Seconds())
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
func (l *curveLog) medianEpochSeconds() (float64, bool) {
	n := len(l.times)
	if n == 0 {
		return 0, false
	}
	t := slices.Sorted(slices.Values(l.times))
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
func (r *Runner) Run(ctx context.Context, spec RunSpec, device string, onEpoch func(epoch, total int)) (res Result, err error) {
	m, err := Lookup(spec.Method)
	if err != nil {
		return res, err
	}
	ds, err := r.Dataset(spec.Dataset)
	if err != nil {
		return res, err
	}
	info, ok := datasets.LookupInfo(spec.Dataset)
	if !ok {
		return res, fmt.Errorf("dataset %s has no protocol entry (number of known classes)", spec.Dataset)
	}
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{
		Known: info.Known, Ratio: spec.Ratio, Seed: spec.Seed,
		ClassSplit: spec.Protocol.ClassSplit, TestFrac: spec.Protocol.TestFrac,
	})
	if err != nil {
		return res, fmt.Errorf("split %s: %w", spec, err)
	}
	params := m.Defaults().Clone()
	for k, v := range spec.Params {
		if _, ok := params[k]; !ok {
			return res, fmt.Errorf("%s has no parameter %q", spec.Method, k)
		}
		params[k] = v
	}
	log := &curveLog{sink: onEpoch}
	eval := append(slices.Clone(split.Unlabelled), split.Test...)
	slices.Sort(eval)
	// truthOf is graph g's known class index, or Unknown; only the suite
	// reads it (scoring and the OOD-set curves), never the method.
	truthOf := func(g int) int {
		if k := split.KnownIndex(ds.Labels[g]); k >= 0 {
			return k
		}
		return Unknown
	}
	isUnknown := func(g int) bool { return truthOf(g) == Unknown }
	numUnknown := 0
	for _, g := range split.Unlabelled {
		if isUnknown(g) {
			numUnknown++
		}
	}
	task := &Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumNodeLabels: ds.NumNodeLabels,
		NumKnown: len(split.KnownClasses), Labelled: split.Labelled, Labels: split.LabelledY,
		Unlabelled: split.Unlabelled, Eval: eval, Params: params, Seed: spec.Seed,
		Device: device, Backend: r.Backend, Log: log, Dataset: spec.Dataset,
		Ratio: spec.Ratio, NumUnknown: numUnknown, Alpha: spec.Protocol.Alpha, CacheDir: r.CacheDir,
		ReportOODSet: func(epoch int, graphs []int) { log.oodSet(epoch, graphs, numUnknown, isUnknown) },
		ReportScores: func(epoch int, graphs []int, scores map[string][]float64) error {
			return log.scores(epoch, graphs, scores, truthOf)
		},
	}
	start := time.Now()
	log.start()
	pred, err := fitSafely(ctx, m, task)
	res.Seconds = time.Since(start).Seconds()
	res.Curves = log.points
	if err != nil {
		return res, err
	}
	if len(pred.Class) != len(eval) || len(pred.UnknownScore) != len(eval) {
		return res, fmt.Errorf("%s returned %d classes and %d scores for %d evaluation graphs", spec.Method, len(pred.Class), len(pred.UnknownScore), len(eval))
	}
	res.Metrics, err = scoreSubset(eval, split.Unlabelled, pred, truthOf, spec.Protocol.Alpha, "")
	if err != nil {
		return res, err
	}
	if len(split.Test) > 0 {
		testMetrics, err := scoreSubset(eval, split.Test, pred, truthOf, spec.Protocol.Alpha, "test_")
		if err != nil {
			return res, err
		}
		for k, v := range testMetrics {
			res.Metrics[k] = v
		}
	}
	if sec, ok := log.medianEpochSeconds(); ok {
		res.Metrics[EpochSecondsMetric] = sec
	}
	return res, nil
}

// scoreSubset scores the predictions of the graphs in subset (a sorted
// subset of eval), prefixing metric names.
func scoreSubset(eval, subset []int, pred *Predictions, truthOf func(int) int, alpha float64, prefix string) (map[string]float64, error) {
	pos := make(map[int]int, len(eval))
	for i, g := range eval {
		pos[g] = i
	}
	sub := &Predictions{}
	truth := make([]int, len(subset))
	for i, g := range subset {
		truth[i] = truthOf(g)
		sub.Class = append(sub.Class, pred.Class[pos[g]])
		sub.UnknownScore = append(sub.UnknownScore, pred.UnknownScore[pos[g]])
	}
	m, err := Score(truth, sub, alpha)
	if err != nil {
		return nil, err
	}
	extra := make(map[string][]float64, len(pred.ExtraScores))
	for name, all := range pred.ExtraScores {
		if len(all) != len(eval) {
			return nil, fmt.Errorf("extra score %s: %d values for %d evaluation graphs", name, len(all), len(eval))
		}
		sub := make([]float64, len(subset))
		for i, g := range subset {
			sub[i] = all[pos[g]]
		}
		extra[name] = sub
	}
	aurocs, err := extraAUROCs(truth, extra, len(subset))
	if err != nil {
		return nil, fmt.Errorf("extra scores: %w", err)
	}
	maps.Copy(m, aurocs)
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[prefix+k] = v
	}
	return out, nil
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
