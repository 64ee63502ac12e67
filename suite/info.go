package suite

import (
	"cmp"
	"fmt"
	"slices"
)

// Family is the group of rows a method belongs to in the paper's tables;
// the tables draw a rule between families and list them in this order.
type Family int

// The families, in table order. The zero value, FamilyOther, is a method
// outside the paper's tables: its rows come after every family's.
const (
	FamilyOther          Family = iota // not in the paper's tables
	FamilyKernel                       // graph kernels + SVM
	FamilyGNN                          // supervised GNNs with TopK pooling
	FamilyPooling                      // supervised GIN with another pooling
	FamilySemiSupervised               // semi-supervised graph learning
	FamilyUGNN                         // the paper's method
	FamilyAblation                     // its ablation variants (Table 4)
)

var familyNames = [...]string{"other", "kernel", "supervised GNN", "pooling", "semi-supervised", "UGNN", "ablation"}

// String is the family's name, e.g. "supervised GNN".
func (f Family) String() string {
	if f < 0 || int(f) >= len(familyNames) {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyNames[f]
}

// rank is the family's position in table order: FamilyOther last.
func (f Family) rank() int {
	if f == FamilyOther {
		return len(familyNames)
	}
	return int(f)
}

// Info is what the tables say about a method beside its numbers: given
// with its registration (Register) and read by the reports, so that a
// method's row name, group and place live in one line next to it.
type Info struct {
	// Row is the method's row name in the paper's tables, e.g. "GIN" or
	// "w/o S" ("" = its registry name).
	Row string
	// Family is the method's group of rows.
	Family Family
	// Order is the method's place within its family (ascending; ties by
	// registry name).
	Order int
	// Source cites the paper(s) the method comes from, e.g. "Xu et al.
	// 2019; Gao & Ji 2019".
	Source string
}

// InfoOf returns the Info name was registered with; false if name is not
// registered (a registered method without Info has the zero Info).
func InfoOf(name string) (Info, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	info, ok := infos[name]
	return info, ok
}

// TableOrder lists the registered methods in the order of the paper's
// tables: by Family (FamilyOther last), then Order, then name.
func TableOrder() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := namesLocked()
	slices.SortStableFunc(names, func(a, b string) int {
		ia, ib := infos[a], infos[b]
		return cmp.Or(cmp.Compare(ia.Family.rank(), ib.Family.rank()), cmp.Compare(ia.Order, ib.Order))
	})
	return names
}

// RowGroup is the group of rows name belongs to in the tables: its
// family's rank, FamilyOther's for a name not registered.
func RowGroup(name string) int {
	info, _ := InfoOf(name)
	return info.Family.rank()
}
