package suite

import (
	"slices"
	"strings"
	"testing"
)

// TestTableOrder registers methods with and without Info and checks the
// order the tables read: by family (FamilyOther after all), then Order,
// then name; the registered metadata, the row groups and that a second
// Info is refused.
func TestTableOrder(t *testing.T) {
	Register(gridFake{"test-info-other", Params{}})
	Register(gridFake{"test-info-ablation", Params{}}, Info{Row: "w/o X", Family: FamilyAblation, Order: 1})
	Register(gridFake{"test-info-kernel-b", Params{}}, Info{Row: "K2", Family: FamilyKernel, Order: 2})
	Register(gridFake{"test-info-kernel-a", Params{}}, Info{Row: "K1", Family: FamilyKernel, Order: 2, Source: "A et al. 2000"})
	Register(gridFake{"test-info-kernel-c", Params{}}, Info{Row: "K0", Family: FamilyKernel, Order: 1})

	var got []string
	for _, n := range TableOrder() {
		if strings.HasPrefix(n, "test-info-") {
			got = append(got, n)
		}
	}
	want := []string{"test-info-kernel-c", "test-info-kernel-a", "test-info-kernel-b", "test-info-ablation", "test-info-other"}
	if !slices.Equal(got, want) {
		t.Errorf("TableOrder %v, want %v", got, want)
	}
	if info, ok := InfoOf("test-info-kernel-a"); !ok || info.Row != "K1" || info.Source != "A et al. 2000" || info.Family.String() != "kernel" {
		t.Errorf("InfoOf(test-info-kernel-a) = %+v, %v", info, ok)
	}
	if info, ok := InfoOf("test-info-other"); !ok || info != (Info{}) {
		t.Errorf("InfoOf(test-info-other) = %+v, %v; want the zero Info", info, ok)
	}
	if _, ok := InfoOf("no-such-method"); ok {
		t.Error("InfoOf of an unregistered name: ok")
	}
	if RowGroup("test-info-kernel-a") != RowGroup("test-info-kernel-b") || RowGroup("test-info-kernel-a") == RowGroup("test-info-ablation") ||
		RowGroup("test-info-other") != RowGroup("no-such-method") || RowGroup("test-info-ablation") >= RowGroup("test-info-other") {
		t.Error("RowGroup: one group per family, FamilyOther and unregistered names last and together")
	}
	defer func() {
		if recover() == nil {
			t.Error("Register with two Infos did not panic")
		}
	}()
	Register(gridFake{"test-info-twice", Params{}}, Info{}, Info{})
}
