package main

import (
	"slices"
	"testing"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/suite"
)

// TestTableOrder checks the metadata the methods register (suite.Info)
// against the paper's Tables 2–4: the row order, the row names and the
// families between which the tables draw rules. The reports tests register
// fakes with the same metadata (reports/registry_test.go).
func TestTableOrder(t *testing.T) {
	want := []struct {
		name, row string
		family    suite.Family
	}{
		{"wl", "WL Kernel", suite.FamilyKernel},
		{"sp", "SP Kernel", suite.FamilyKernel},
		{"graphlet", "Graphlet Kernel", suite.FamilyKernel},
		{"gcn-topk", "GCN", suite.FamilyGNN},
		{"sage-topk", "GraphSAGE", suite.FamilyGNN},
		{"gin-topk", "GIN", suite.FamilyGNN},
		{"gin-asap", "ASAP", suite.FamilyPooling},
		{"gin-sag", "SAG Pooling", suite.FamilyPooling},
		{"infograph", "InfoGraph", suite.FamilySemiSupervised},
		{"graphcl", "GraphCL", suite.FamilySemiSupervised},
		{"gla", "GLA", suite.FamilySemiSupervised},
		{"rgcl", "RGCL", suite.FamilySemiSupervised},
		{"ugnn", "UGNN", suite.FamilyUGNN},
		{"ugnn-plus", "UGNN+", suite.FamilyUGNN},
		{"ugnn-wo-s", "w/o S", suite.FamilyAblation},
		{"ugnn-wo-p", "w/o P", suite.FamilyAblation},
		{"ugnn-wo-kp", "w/o KP", suite.FamilyAblation},
		{"ugnn-wo-up", "w/o UP", suite.FamilyAblation},
	}
	var names []string
	for _, w := range want {
		names = append(names, w.name)
	}
	if got := suite.TableOrder(); !slices.Equal(got, names) {
		t.Errorf("table order:\n got %v\nwant %v", got, names)
	}
	paper := reports.PaperNames()
	for _, w := range want {
		info, ok := suite.InfoOf(w.name)
		switch {
		case !ok:
			t.Errorf("%s: not registered", w.name)
		case info.Row != w.row || paper[w.name] != w.row:
			t.Errorf("%s: row %q (PaperNames %q), want %q", w.name, info.Row, paper[w.name], w.row)
		case info.Family != w.family:
			t.Errorf("%s: family %v, want %v", w.name, info.Family, w.family)
		case info.Source == "":
			t.Errorf("%s: no source paper", w.name)
		}
	}
	if got, want := reports.AblationRows(), names[12:]; !slices.Equal(got, want) {
		t.Errorf("ablation rows %v, want %v", got, want)
	}
}
