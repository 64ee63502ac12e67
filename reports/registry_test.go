package reports

import (
	"context"
	"errors"

	"github.com/ugbench/ugbench/suite"
)

// paperRow is a fake registered under a paper row's registry name with
// the row's Info, so that this package's tests see the paper's order,
// names and families as bench (which registers the real methods) does;
// cmd/bench's TestTableOrder checks that the real registrations match.
type paperRow struct{ name string }

func (p paperRow) Name() string           { return p.name }
func (p paperRow) Doc() string            { return "a registry fake of the reports tests" }
func (p paperRow) Defaults() suite.Params { return suite.Params{} }
func (p paperRow) Fit(context.Context, *suite.Task) (*suite.Predictions, error) {
	return nil, errors.New("a registry fake does not fit")
}

func init() {
	for _, r := range []struct {
		name string
		info suite.Info
	}{
		{"wl", suite.Info{Row: "WL Kernel", Family: suite.FamilyKernel, Order: 1}},
		{"sp", suite.Info{Row: "SP Kernel", Family: suite.FamilyKernel, Order: 2}},
		{"graphlet", suite.Info{Row: "Graphlet Kernel", Family: suite.FamilyKernel, Order: 3}},
		{"gcn-topk", suite.Info{Row: "GCN", Family: suite.FamilyGNN, Order: 1}},
		{"sage-topk", suite.Info{Row: "GraphSAGE", Family: suite.FamilyGNN, Order: 2}},
		{"gin-topk", suite.Info{Row: "GIN", Family: suite.FamilyGNN, Order: 3}},
		{"gin-asap", suite.Info{Row: "ASAP", Family: suite.FamilyPooling, Order: 1}},
		{"gin-sag", suite.Info{Row: "SAG Pooling", Family: suite.FamilyPooling, Order: 2}},
		{"infograph", suite.Info{Row: "InfoGraph", Family: suite.FamilySemiSupervised, Order: 1}},
		{"graphcl", suite.Info{Row: "GraphCL", Family: suite.FamilySemiSupervised, Order: 2}},
		{"gla", suite.Info{Row: "GLA", Family: suite.FamilySemiSupervised, Order: 3}},
		{"rgcl", suite.Info{Row: "RGCL", Family: suite.FamilySemiSupervised, Order: 4}},
		{"ugnn", suite.Info{Row: "UGNN", Family: suite.FamilyUGNN}},
		{"ugnn-wo-s", suite.Info{Row: "w/o S", Family: suite.FamilyAblation, Order: 1}},
		{"ugnn-wo-p", suite.Info{Row: "w/o P", Family: suite.FamilyAblation, Order: 2}},
		{"ugnn-wo-kp", suite.Info{Row: "w/o KP", Family: suite.FamilyAblation, Order: 3}},
		{"ugnn-wo-up", suite.Info{Row: "w/o UP", Family: suite.FamilyAblation, Order: 4}},
	} {
		suite.Register(paperRow{r.name}, r.info)
	}
}
