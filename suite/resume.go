package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// DefaultResumeEvery is bench grid's default Runner.ResumeEvery: a save
// costs milliseconds (a few MB of variables), an interruption loses at
// most this much of a run.
const DefaultResumeEvery = 5 * time.Minute

// ResumedMetric is the metric the suite adds to a run that continued from
// a saved state (Task.Resume): how many times it was resumed. Runs that
// trained in one go have no such metric.
const ResumedMetric = "resumed"

// Resume lets a method continue a run that an earlier process started and
// did not finish: Ctrl-C, SIGTERM (a batch scheduler's preemption, the end
// of a job's time limit), a crash or a killed process. A method that trains
// long calls Save at consistent points (e.g. the end of a pass) whenever
// Due says so, and Restore once, before its first training step; the suite
// keeps the curves, epoch times and wall time logged so far with the
// method's state, so a resumed run stores the same curves as an
// uninterrupted one and a method that restores exactly (all its random
// state) computes the same predictions. At most the work since the last
// save (Runner.ResumeEvery) is lost.
//
// A state belongs to one run config (RunSpec.Hash), backend, dataset
// content (datasets.Fingerprint) and executable (the SHA-256 of the
// running binary): a rebuilt bench never continues a state another binary
// wrote, since the two could compute different things. It lives in
// Runner.CacheDir/resume/KEY, one directory per save (written to a
// temporary directory and renamed, so a crash mid-save leaves the last
// complete one), and is deleted when the run is stored or fails.
// While a process runs the config it holds an exclusive lock on KEY.lock;
// a second process running the same config at the same time gets no
// Resume (nil) and trains from the start without saving.
//
// All methods accept a nil *Resume (no saving, nothing to restore).
type Resume struct {
	dir   string        // CacheDir/resume/KEY
	every time.Duration // least wall time between two saves
	log   *curveLog
	now   func() time.Time
	// last is the time of the last save, or of the start of the attempt.
	last time.Time
	// start is the start of this attempt; prior is the wall seconds of
	// the attempts before it; resumes is how many attempts, this one
	// included, continued a saved state (0 for a run that never did).
	start   time.Time
	prior   float64
	resumes int
	gen     int // the last generation saved or restored
	unlock  func()
	// hash and exe are the run's RunSpec.Hash and the executable's
	// digest, written into each save for SavedStates.
	hash, exe string
	// warn receives the run's warnings (Task.Warn); saveWarned is set
	// after the first failed save, so a run warns of failed saves once.
	warn       func(msg string)
	saveWarned bool
}

// resumeState is the suite's part of a saved state (suite.json, written
// last: a generation without it is incomplete).
type resumeState struct {
	Points     []CurvePoint         `json:"points"`
	Times      []float64            `json:"times"`
	Phase      string               `json:"phase"`
	PhaseTimes map[string][]float64 `json:"phase_times"`
	// Seconds is the wall time of all attempts up to the save; Resumes
	// how many of them continued a saved state.
	Seconds float64 `json:"seconds"`
	Resumes int     `json:"resumes"`
	// Hash is the run's RunSpec.Hash, Executable the SHA-256 of the
	// binary that saved it, Epoch and Epochs the last Logger.Epoch call
	// before the save (what SavedStates reports; saves of older
	// binaries lack them).
	Hash       string `json:"hash,omitempty"`
	Executable string `json:"executable,omitempty"`
	Epoch      int    `json:"epoch,omitempty"`
	Epochs     int    `json:"epochs,omitempty"`
}

const (
	resumeSuiteFile = "suite.json"
	resumeMethodDir = "method"
	resumeGenPrefix = "gen-"
)

// Restore loads the run's last complete saved state, if there is one: it
// calls load with the directory the method's Save wrote, then restores the
// curves, epoch times and phase logged before it, and returns true. It
// returns false (and calls nothing) when there is no state. An error from
// load, or an unreadable state, is returned naming the directory; the
// method must then fail (its store may be half loaded), and the state is
// deleted with the failed run, so the next attempt starts over.
//
// Every generation carries the SHA-256 of its files (ChecksumFile, written
// last); a generation whose files do not match it (a flipped byte, a
// truncated or missing file) is never loaded: Restore warns naming it,
// deletes the state and returns false, and the run starts over.
func (r *Resume) Restore(load func(dir string) error) (bool, error) {
	if r == nil {
		return false, nil
	}
	gen, dir, ok := latest(r.dir)
	if !ok {
		return false, nil
	}
	if err := VerifyChecksum(dir); err != nil {
		r.warnf("resume state %s is damaged (%v); deleted it, the run starts over", dir, err)
		os.RemoveAll(r.dir)
		return false, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, resumeSuiteFile))
	if err != nil {
		return false, fmt.Errorf("resume state %s: %w", dir, err)
	}
	var st resumeState
	if err := json.Unmarshal(data, &st); err != nil {
		return false, fmt.Errorf("resume state %s: %w", filepath.Join(dir, resumeSuiteFile), err)
	}
	if err := load(filepath.Join(dir, resumeMethodDir)); err != nil {
		return false, fmt.Errorf("resume state %s: %w", dir, err)
	}
	l := r.log
	l.points = append(st.Points, l.points...)
	l.times = append(st.Times, l.times...)
	l.phase = st.Phase
	l.phaseTimes = st.PhaseTimes
	l.epoch, l.total = st.Epoch, st.Epochs
	if l.now != nil {
		l.last = l.now() // the next epoch is timed from here
	}
	r.prior, r.resumes, r.gen = st.Seconds, st.Resumes+1, gen
	return true, nil
}

// Due reports whether Save should be called now: Runner.ResumeEvery has
// passed since the last save (or the start of this attempt). False for a
// nil Resume.
func (r *Resume) Due() bool {
	return r != nil && r.now().Sub(r.last) >= r.every
}

// Save stores the run's state: save writes the method's part into the
// empty directory it is given (e.g. a GoMLX checkpoint of its variables
// and a JSON file of its host-side state: random generators, counters);
// the suite adds the curves and times logged so far. The new generation
// replaces the previous one only once complete. Call it where the method
// can continue from (between two optimizer steps, after the epoch's
// Logger.Epoch). A nil Resume saves nothing.
//
// Saving is best-effort, since it exists only to shorten a rerun: a save
// that fails (a full disk, an unwritable cache) leaves the previous
// generation in place, warns through the run's warning path (Task.Warn)
// the first time in the run, and training goes on; the next save is tried
// Runner.ResumeEvery later.
func (r *Resume) Save(save func(dir string) error) {
	if r == nil {
		return
	}
	if err := r.save(save); err != nil && !r.saveWarned {
		r.saveWarned = true
		r.warnf("%v; training goes on, an interruption would restart the run from its last complete save (or the start)", err)
	}
	r.last = r.now()
}

// save writes a new generation (see Save) and returns what failed.
func (r *Resume) save(save func(dir string) error) error {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("resume state not saved: %w", err)
	}
	tmp, err := MkdirCacheTemp(r.dir)
	if err != nil {
		return fmt.Errorf("resume state not saved: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, resumeMethodDir), 0o755); err != nil {
		return fmt.Errorf("resume state not saved: %w", err)
	}
	if err := save(filepath.Join(tmp, resumeMethodDir)); err != nil {
		return fmt.Errorf("resume state %s not saved: %w", r.dir, err)
	}
	l := r.log
	st := resumeState{Points: l.points, Times: l.times, Phase: l.phase, PhaseTimes: l.phaseTimes,
		Seconds: r.seconds(), Resumes: r.resumes, Hash: r.hash, Executable: r.exe, Epoch: l.epoch, Epochs: l.total}
	if err := writeFileSync(filepath.Join(tmp, resumeSuiteFile), st); err != nil {
		return fmt.Errorf("resume state %s not saved: %w", r.dir, err)
	}
	if err := WriteChecksum(tmp); err != nil {
		return fmt.Errorf("resume state %s not saved: %w", r.dir, err)
	}
	gen := r.gen + 1
	if err := os.Rename(tmp, r.genDir(gen)); err != nil {
		return fmt.Errorf("resume state not saved: %w", err)
	}
	r.gen = gen
	r.prune(gen)
	return nil
}

// warnf sends a warning to the run's warning path (stderr without one).
func (r *Resume) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.warn != nil {
		r.warn(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "warning:", msg)
}

// priorSeconds is the wall time of the attempts before this one (0 for a
// nil Resume or a fresh run).
func (r *Resume) priorSeconds() float64 {
	if r == nil {
		return 0
	}
	return r.prior
}

// seconds is the wall time of this and the earlier attempts.
func (r *Resume) seconds() float64 { return r.prior + r.now().Sub(r.start).Seconds() }

// writeFileSync writes v as JSON to path and syncs it, so the rename that
// publishes its directory never exposes a file still in the page cache
// only.
func writeFileSync(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// generations lists the complete generations under dir, oldest first.
func generations(dir string) []int {
	entries, _ := os.ReadDir(dir)
	var gens []int
	for _, e := range entries {
		var g int
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, resumeGenPrefix) {
			continue
		}
		if _, err := fmt.Sscanf(name[len(resumeGenPrefix):], "%d", &g); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name, resumeSuiteFile)); err == nil {
			gens = append(gens, g)
		}
	}
	slices.Sort(gens)
	return gens
}

func (r *Resume) genDir(g int) string { return genDir(r.dir, g) }

func genDir(dir string, g int) string {
	return filepath.Join(dir, fmt.Sprintf("%s%09d", resumeGenPrefix, g))
}

// latest is the newest complete generation under dir.
func latest(dir string) (gen int, genPath string, ok bool) {
	gens := generations(dir)
	if len(gens) == 0 {
		return 0, "", false
	}
	gen = gens[len(gens)-1]
	return gen, genDir(dir, gen), true
}

// prune deletes every generation but keep.
func (r *Resume) prune(keep int) {
	entries, _ := os.ReadDir(r.dir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), resumeGenPrefix) && e.Name() != filepath.Base(r.genDir(keep)) {
			os.RemoveAll(filepath.Join(r.dir, e.Name()))
		}
	}
}

// finish ends the attempt: it deletes the state unless keep (the attempt
// was interrupted, or its result not stored, and the run may continue) and
// releases the lock.
func (r *Resume) finish(keep bool) {
	if r == nil {
		return
	}
	if !keep {
		os.RemoveAll(r.dir)
		os.Remove(r.dir + ".lock") // while still held: see openResume
	}
	r.unlock()
}

// count is the resume count for ResumedMetric: how many attempts, this
// one included, continued a saved state (0 if the run never resumed, or
// for a nil Resume).
func (r *Resume) count() int {
	if r == nil {
		return 0
	}
	return r.resumes
}

// ResumeKey is the key of spec's resume state (Resume): the hex SHA-256
// of the config hash, the backend, the dataset fingerprint and the
// executable's digest.
func ResumeKey(spec RunSpec, backend, dataFingerprint, executable string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{"resume v1", spec.Method, spec.Hash(), backend, dataFingerprint, executable}, "\x00")))
	return spec.Method + "-" + hex.EncodeToString(sum[:12])
}

var executableDigest = sync.OnceValues(func() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	return fileSHA256(path)
})

// ProbeResume checks that running runs can be saved under cacheDir: the
// directory cacheDir/resume can be made and its file system takes file
// locks (some cluster file systems are mounted without them). The error
// names the directory; without a fix, runs still run but are not saved.
func ProbeResume(cacheDir string) error {
	root := filepath.Join(cacheDir, "resume")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	path := filepath.Join(root, fmt.Sprintf(".probe-%d.lock", os.Getpid()))
	defer os.Remove(path)
	fl := flock.New(path, flock.SetPermissions(0o644))
	if _, err := fl.TryLock(); err != nil {
		return fmt.Errorf("file lock in %s: %w", root, err)
	}
	return fl.Unlock()
}

// openResume returns the Resume of spec under cacheDir (nil when resuming
// is off: no cache directory, every ≤ 0, the executable unreadable, no
// file locks, or another process holding the config's lock). The state directory is made
// at the first save; the lock file is deleted with the state, so a grid
// leaves nothing behind for its finished runs. (A process that opened the
// lock file just before it was deleted may lock the deleted file while a
// third locks a new one; both would then own the state. It takes three
// processes running one config at once, which bench grid's shared
// database prevents.)
func openResume(cacheDir string, every time.Duration, spec RunSpec, backend, fingerprint string, log *curveLog, warn func(string)) (*Resume, error) {
	if cacheDir == "" || every <= 0 {
		return nil, nil
	}
	exe, err := executableDigest()
	if err != nil {
		return nil, nil // no safe key: train without saving
	}
	root := filepath.Join(cacheDir, "resume")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("resume directory: %w", err)
	}
	dir := filepath.Join(root, ResumeKey(spec, backend, fingerprint, exe))
	fl := flock.New(dir+".lock", flock.SetPermissions(0o644))
	if ok, err := fl.TryLock(); err != nil || !ok {
		// Taken, or no file locks on this file system (ProbeResume
		// warns of that once): train without saving.
		return nil, nil
	}
	RemoveStaleTemps(dir) // of a killed attempt's save
	now := log.now
	if now == nil {
		now = time.Now
	}
	t := now()
	return &Resume{dir: dir, every: every, log: log, now: now, last: t, start: t,
		unlock: func() { _ = fl.Unlock() }, hash: spec.Hash(), exe: exe, warn: warn}, nil
}

// SavedState is one run's saved state under a cache directory, as bench
// runs shows it beside an interrupted or running run.
type SavedState struct {
	// Hash is the run's RunSpec.Hash (runs.Run.Hash).
	Hash string
	// Dir is the state's directory, CacheDir/resume/METHOD-KEY.
	Dir string
	// Epoch of Epochs is the last epoch (pass) the run logged before the
	// save: a rerun continues after it.
	Epoch, Epochs int
	// Saved is when the save was written.
	Saved time.Time
	// Bytes is the size of the saved generation on disk.
	Bytes int64
	// ThisBinary: the running executable wrote it, so a grid run by this
	// binary continues it. Any other binary starts the run over (the
	// state is keyed by the executable's SHA-256) and leaves the state
	// on disk.
	ThisBinary bool
}

// SavedStates lists the complete saved states under cacheDir/resume, one
// per directory, newest generation; states saved by binaries older than
// this listing (no hash in suite.json) and incomplete ones are skipped. A
// missing directory is no error (nothing saved).
func SavedStates(cacheDir string) ([]SavedState, error) {
	root := filepath.Join(cacheDir, "resume")
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("saved run states: %w", err)
	}
	var out []SavedState
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		_, gdir, ok := latest(dir)
		if !ok {
			continue
		}
		path := filepath.Join(gdir, resumeSuiteFile)
		data, err := os.ReadFile(path)
		if err != nil {
			continue // pruned or deleted since the listing
		}
		var st resumeState
		if err := json.Unmarshal(data, &st); err != nil {
			return nil, fmt.Errorf("saved run state %s: %w", path, err)
		}
		if st.Hash == "" {
			continue
		}
		info, err := os.Stat(path)
		if err != nil {
			continue
		}
		exe, _ := executableDigest() // hashed once, at the first state
		s := SavedState{Hash: st.Hash, Dir: dir, Epoch: st.Epoch, Epochs: st.Epochs, Saved: info.ModTime(),
			ThisBinary: exe != "" && st.Executable == exe}
		_ = filepath.WalkDir(gdir, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					s.Bytes += fi.Size()
				}
			}
			return nil
		})
		out = append(out, s)
	}
	return out, nil
}
