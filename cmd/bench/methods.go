package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/suite"
)

func runMethods(args []string, stdout io.Writer) error {
	fs := newFlags("methods", "methods")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, name := range suite.Names() {
		m, err := suite.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n    %s\n    defaults: %s\n", name, m.Doc(), m.Defaults().Summary())
	}
	return nil
}
