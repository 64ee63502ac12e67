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
	fs := newFlags("methods", `methods [--params] [NAME...]

Lists the registered methods (or the named ones) with their defaults;
--params adds each hyper-parameter's type, valid values and doc.`)
	params := fs.Bool("params", false, "list each hyper-parameter: default, type, valid values, doc")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := suite.TableOrder()
	if fs.NArg() > 0 {
		names = fs.Args()
	}
	for _, name := range names {
		m, err := suite.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", name, m.Doc())
		if info, _ := suite.InfoOf(name); info.Row != "" {
			fmt.Fprintf(stdout, "    paper row: %s (%s)\n", info.Row, info.Family)
		}
		fmt.Fprintf(stdout, "    defaults: %s\n", m.Defaults().Summary())
		if *params {
			writeParams(stdout, suite.ParamsOf(m))
		}
	}
	return nil
}

// writeParams lists set's parameters in name order, one a line:
// "name=default  kind valid  doc".
func writeParams(w io.Writer, set suite.ParamSet) {
	specs := set.Specs()
	slices.SortFunc(specs, func(a, b suite.ParamSpec) int { return strings.Compare(a.Name, b.Name) })
	width := 0
	for _, sp := range specs {
		width = max(width, len(fmt.Sprintf("%s=%v", sp.Name, sp.Default)))
	}
	for _, sp := range specs {
		kind := sp.Kind.String()
		if v := sp.Valid(); v != "" {
			kind += " " + v
		}
		line := fmt.Sprintf("      %-*s  %s", width, fmt.Sprintf("%s=%v", sp.Name, sp.Default), kind)
		if sp.Doc != "" {
			line += ": " + sp.Doc
		}
		fmt.Fprintln(w, line)
	}
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
	fmt.Fprintf(stdout, "\nbench grid and bench rescore apply by default: %s\n", strings.Join(suite.DefaultScorers(), ","))
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
