package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runRuns(args []string, stdout io.Writer) error {
	fs := newFlags("runs", "runs [flags]")
	sel := addSelection(fs, "only these statuses: running, finished, failed, interrupted")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	rerun := fs.String("rerun", "", "mark the selected finished runs for rerun, giving the reason (e.g. \"loss fix in 1a2b3c\"), and list them; the next bench grid that includes them recomputes them; needs --methods or --datasets")
	dryRun := fs.Bool("dry-run", false, "with --rerun: list the runs it would mark, mark nothing")
	cacheDir := fs.String("cache-dir", "", "where bench grid saves running runs (column saved; default as bench grid: $UGBENCH_CACHE, else ugbench-cache beside --db; \"off\": none)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	pick, err := sel.parse()
	if err != nil {
		return err
	}
	marking := fs.Changed("rerun")
	if marking {
		if strings.TrimSpace(*rerun) == "" {
			return fmt.Errorf("--rerun: give the reason, e.g. --rerun \"loss fix in 1a2b3c\"")
		}
		if len(pick.Filter.Methods) == 0 && len(pick.Filter.Datasets) == 0 {
			return fmt.Errorf("--rerun: select the runs with --methods or --datasets (and --ratios, --seeds, --param); marking a whole database is refused")
		}
	} else if *dryRun {
		return fmt.Errorf("--dry-run: only with --rerun")
	}
	store, rs, err := sel.load(pick)
	if err != nil {
		return err
	}
	defer store.Close()
	if !marking {
		var saved []suite.SavedState
		if dir := resolveCacheDir(*cacheDir, *sel.db); dir != "" { // "" for --cache-dir off
			if saved, err = suite.SavedStates(dir); err != nil {
				return err
			}
		}
		if err := table.RenderPlain(stdout, reports.RunList(rs, saved), *format); err != nil {
			return err
		}
		if *format == "text" || *format == "md" {
			otherBinaries(stdout, saved)
		}
		return nil
	}
	return markForRerun(stdout, store, rs, *rerun, *dryRun, *format)
}

// otherBinaries says how many saved states only other bench executables
// can continue, and their size: a rebuilt bench starts those runs over and
// leaves the states on disk.
func otherBinaries(w io.Writer, saved []suite.SavedState) {
	n, bytes := 0, int64(0)
	dirs := map[string]bool{}
	for _, s := range saved {
		if !s.ThisBinary {
			n++
			bytes += s.Bytes
			dirs[filepath.Dir(s.Dir)] = true
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "%d saved run state(s), %.1f MB under %s, were written by other bench executables: only the binary that saved a state continues it; this one starts those runs over (delete the states once you no longer need them)\n",
		n, float64(bytes)/1e6, strings.Join(slices.Sorted(maps.Keys(dirs)), ", "))
}

// markForRerun marks the finished runs of rs for rerun (or, for a dry run,
// only lists them) and says what it left alone.
func markForRerun(w io.Writer, store *runs.Store, rs []runs.Run, reason string, dryRun bool, format string) error {
	var ids []int64
	running := 0
	for _, r := range rs {
		switch r.Status {
		case runs.StatusFinished:
			ids = append(ids, r.ID)
		case runs.StatusRunning:
			running++
		}
	}
	if len(ids) == 0 {
		fmt.Fprintf(w, "no finished run matches (%d run(s) selected); check --methods, --datasets, --ratios, --seeds and --param against bench runs\n", len(rs))
		return nil
	}
	chosen := map[int64]bool{}
	if dryRun {
		for _, id := range ids {
			chosen[id] = true
		}
	} else {
		stamp := fmt.Sprintf("%s (bench runs --rerun, %s)", reason, time.Now().UTC().Format(time.DateTime))
		marked, err := store.MarkForRerun(ids, stamp)
		if err != nil {
			return err
		}
		for _, id := range marked {
			chosen[id] = true
		}
	}
	var list []runs.Run
	for _, r := range rs {
		if chosen[r.ID] {
			list = append(list, r)
		}
	}
	if err := table.RenderPlain(w, reports.RunList(list, nil), format); err != nil {
		return err
	}
	verb := "marked"
	if dryRun {
		verb = "would mark"
	}
	fmt.Fprintf(w, "%s %d finished run(s) for rerun; a bench grid that includes them recomputes them\n", verb, len(list))
	if running > 0 {
		fmt.Fprintf(w, "left alone: %d selected run(s) still running; mark them once they finish\n", running)
	}
	return nil
}
