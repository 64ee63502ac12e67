package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	runsel "github.com/ugbench/ugbench/reports/selection"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// selection holds the flags that pick stored runs, shared by bench runs
// and bench curves.
type selection struct {
	db                        *string
	methods, datasets, ratios *[]string
	seeds                     *string
	status                    *[]string
	params                    *[]string
}

// addSelection registers the run-selection flags on fs; statusHelp is the
// --status flag's help, which says the command's default.
func addSelection(fs *pflag.FlagSet, statusHelp string) *selection {
	return &selection{
		db:       fs.String("db", "ugbench.db", "SQLite database file of runs"),
		methods:  fs.StringSlice("methods", nil, "only these methods"),
		datasets: fs.StringSlice("datasets", nil, "only these datasets"),
		ratios:   fs.StringSlice("ratios", nil, "only these labelled ratios: low, high, or a number (which also matches the named ratios of that value)"),
		seeds:    fs.String("seeds", "", "only these seeds: list and/or ranges, e.g. 0,1,2 or 0-4"),
		status:   fs.StringSlice("status", nil, statusHelp),
		params:   fs.StringArray("param", nil, "only runs with this hyper-parameter value, key=value (unset: without the key); repeatable; methods without the key are kept"),
	}
}

// parse checks the flags' values and the database file (which must exist:
// a typo must not create an empty database) and returns the selection.
func (s *selection) parse() (runsel.Selection, error) {
	if _, err := os.Stat(*s.db); err != nil {
		return runsel.Selection{}, fmt.Errorf("--db %s: %w", *s.db, err)
	}
	return s.selection()
}

// selection checks the flags' values, not the database, and returns the
// selection they make.
func (s *selection) selection() (runsel.Selection, error) {
	f := runs.Filter{Methods: *s.methods, Datasets: *s.datasets, Ratios: *s.ratios}
	if *s.seeds != "" {
		var err error
		if f.Seeds, err = suite.ParseSeeds(*s.seeds); err != nil {
			return runsel.Selection{}, fmt.Errorf("--seeds: %w", err)
		}
	}
	for _, v := range *s.status {
		switch st := runs.Status(v); st {
		case runs.StatusRunning, runs.StatusFinished, runs.StatusFailed, runs.StatusInterrupted:
			f.Status = append(f.Status, st)
		default:
			return runsel.Selection{}, fmt.Errorf("--status %q: want running, finished, failed or interrupted", v)
		}
	}
	params, err := parseParams(*s.params)
	if err != nil {
		return runsel.Selection{}, err
	}
	return runsel.Selection{Filter: f, Params: params}, nil
}

// parseParams parses the --param flags' values (runsel.ParseParams).
func parseParams(values []string) (map[string]string, error) {
	params, err := runsel.ParseParams(values)
	if err != nil {
		return nil, fmt.Errorf("--param: %w", err)
	}
	return params, nil
}

// load opens the database and lists the runs that pick selects; the caller
// closes the store.
func (s *selection) load(pick runsel.Selection) (*runs.Store, []runs.Run, error) {
	return loadRuns(*s.db, pick)
}

// loadRuns opens the database at db, which must exist, and lists the runs
// pick selects; the caller closes the store.
func loadRuns(db string, pick runsel.Selection) (*runs.Store, []runs.Run, error) {
	if _, err := os.Stat(db); err != nil {
		return nil, nil, fmt.Errorf("database %s: %w", db, err)
	}
	store, err := runs.Open(db)
	if err != nil {
		return nil, nil, err
	}
	if err := store.QuickCheck(); err != nil {
		store.Close()
		return nil, nil, err
	}
	rs, err := pick.Load(store)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return store, rs, nil
}

// loadMatching parses the selection flags (status finished unless
// --status says otherwise), opens the store and lists the selected runs;
// no matching run is an error. The caller closes the store.
func (s *selection) loadMatching() (*runs.Store, []runs.Run, error) {
	pick, err := s.parse()
	if err != nil {
		return nil, nil, err
	}
	if len(pick.Filter.Status) == 0 {
		pick.Filter.Status = []runs.Status{runs.StatusFinished}
	}
	store, rs, err := s.load(pick)
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		store.Close()
		return nil, nil, fmt.Errorf("no run matches; check the flags against bench runs")
	}
	return store, rs, nil
}
