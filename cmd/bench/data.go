package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/fetch"
)

// runData is `bench data fetch NAME...|all` and `bench data verify [NAME...]`.
func runData(args []string, stdout io.Writer) error {
	fs := newFlags("data", "data fetch NAME...|all | data verify [NAME...] [--data-dir DIR]")
	dataDir := fs.String("data-dir", "", "dataset directory (default $UGBENCH_DATA, else ./data)")
	accept := fs.Bool("accept-unverified", false, "fetch: allow datasets with no recorded checksum (COLORS-3); their sums are printed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("want a subcommand: fetch NAME...|all, or verify [NAME...] (datasets: %s)", strings.Join(fetch.Names(), ", "))
	}
	dir := datasets.DataDir(*dataDir)
	sub, names := fs.Arg(0), fs.Args()[1:]
	entries, err := catalogEntries(names, sub == "fetch")
	if err != nil {
		return err
	}
	switch sub {
	case "fetch":
		return dataFetch(dir, entries, *accept, stdout)
	case "verify":
		return dataVerify(dir, entries, stdout)
	}
	return fmt.Errorf("unknown subcommand %q: want fetch or verify", sub)
}

// catalogEntries resolves names ("all" or none = every entry; none is an
// error for fetch).
func catalogEntries(names []string, needNames bool) ([]fetch.Entry, error) {
	if len(names) == 0 && needNames {
		return nil, fmt.Errorf("fetch: name the datasets or say all (%s)", strings.Join(fetch.Names(), ", "))
	}
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		return fetch.Catalog, nil
	}
	var out []fetch.Entry
	for _, n := range names {
		e, ok := fetch.Lookup(n)
		if !ok {
			return nil, fmt.Errorf("unknown dataset %q (known: %s, or all)", n, strings.Join(fetch.Names(), ", "))
		}
		out = append(out, e)
	}
	return out, nil
}

func dataFetch(dir string, entries []fetch.Entry, accept bool, stdout io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tty := term.IsTerminal(int(os.Stderr.Fd()))
	var bar *progressbar.ProgressBar
	f := &fetch.Fetcher{
		DataDir:          dir,
		AcceptUnverified: accept,
		Log:              func(m string) { fmt.Fprintln(os.Stderr, m) },
		Progress: func(name string, already, total int64) io.Writer {
			if bar != nil {
				_ = bar.Finish()
			}
			if !tty {
				fmt.Fprintf(os.Stderr, "downloading %s (%d bytes already here)\n", name, already)
				return io.Discard
			}
			bar = progressbar.DefaultBytes(total, name)
			_ = bar.Set64(already)
			return bar
		},
	}
	var failed []string
	for _, e := range entries {
		if !e.Verified() && !accept && len(entries) > 1 {
			fmt.Fprintf(stdout, "%-18s skipped: %s (--accept-unverified to fetch it)\n", e.Name, e.Note)
			continue
		}
		err := f.Fetch(ctx, e)
		if bar != nil {
			_ = bar.Finish()
			bar = nil
		}
		if err != nil {
			fmt.Fprintf(stdout, "%-18s FAILED: %v\n", e.Name, err)
			failed = append(failed, e.Name)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		fmt.Fprintf(stdout, "%-18s ok (in %s)\n", e.Name, dir)
	}
	if len(failed) > 0 {
		return fmt.Errorf("fetch failed for %s", strings.Join(failed, ", "))
	}
	return nil
}

func dataVerify(dir string, entries []fetch.Entry, stdout io.Writer) error {
	bad, seen := 0, 0
	for _, e := range entries {
		for _, r := range fetch.Verify(dir, e) {
			seen++
			line := fmt.Sprintf("%-18s %-40s %s", r.Dataset, r.File, r.Status)
			if r.Status == fetch.StatusMismatch || r.Status == fetch.StatusMissing {
				bad++
				if r.Err != nil {
					line += ": " + r.Err.Error()
				}
			}
			fmt.Fprintln(stdout, line)
		}
	}
	if seen == 0 {
		fmt.Fprintf(stdout, "no catalog dataset in %s (bench data fetch NAME|all)\n", dir)
	}
	if bad > 0 {
		return fmt.Errorf("%d file(s) missing or not matching their recorded checksum in %s", bad, dir)
	}
	return nil
}
