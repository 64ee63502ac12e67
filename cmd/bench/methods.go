package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/scorers"
)

func runMethods(args []string, stdout io.Writer) error {
	fs := newFlags("methods", "methods")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, name := range suite.TableOrder() {
		m, err := suite.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", name, m.Doc())
		if info, _ := suite.InfoOf(name); info.Row != "" {
			fmt.Fprintf(stdout, "    paper row: %s (%s)\n", info.Row, info.Family)
		}
		fmt.Fprintf(stdout, "    defaults: %s\n", m.Defaults().Summary())
	}
	return nil
}

func runScorers(args []string, stdout io.Writer) error {
	fs := newFlags("scorers", "scorers")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n    the method's own unknown score (metrics unprefixed)\n", suite.NativeScore)
	for _, name := range scorers.Names() {
		fmt.Fprintf(stdout, "%s\n    %s\n    defaults: %s\n", name, scorers.Doc(name), paramSummary(scorers.Defaults(name)))
	}
	fmt.Fprintf(stdout, "\nbench grid and bench rescore apply by default: %s\n", strings.Join(suite.DefaultScorers, ","))
	return nil
}

// paramSummary is "k=v k=v" in key order, "(none)" for none.
func paramSummary(p map[string]float64) string {
	if len(p) == 0 {
		return "(none)"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, fmt.Sprintf("%s=%g", k, p[k]))
	}
	return strings.Join(parts, " ")
}
