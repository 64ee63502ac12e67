package suite

import (
	"github.com/ugbench/ugbench/datasets"
	"runtime"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// gridFake is a method that is only ever expanded, never run.
type gridFake struct {
	name     string
	defaults Params
}

func (f gridFake) Name() string     { return f.name }
func (f gridFake) Doc() string      { return "grid test fake" }
func (f gridFake) Defaults() Params { return f.defaults.Clone() }
func (f gridFake) Fit(context.Context, *Task) (*Predictions, error) {
	return nil, errors.New("grid fakes do not run")
}

// The registry is global and shared with the external test package of this
// binary (scheduler_test.go), so the fakes have unique names and are
// registered once.
var registerGridFakes = sync.OnceFunc(func() {
	Register(gridFake{"test-fake-a", Params{"steps": 0, "lr": 0.01, "hidden": 64}})
	Register(gridFake{"test-fake-b", Params{"lr": 0.1, "pool": "mean", "bn": true}})
	Register(gridFake{"test-fake-c", Params{"k": 3}})
	Register(legacyFake{gridFake{"test-fake-legacy", Params{"lr": 0.1, "new_switch": true, "new_count": 3}}})
})

// legacyFake declares that runs stored before new_switch and new_count
// existed behaved as new_switch=false, new_count=0.
type legacyFake struct{ gridFake }

func (legacyFake) LegacyParams() Params { return Params{"new_switch": false, "new_count": 0} }

func TestParseSeeds(t *testing.T) {
	good := []struct {
		in   string
		want []int64
	}{
		{"0,1,2", []int64{0, 1, 2}},
		{"0-4", []int64{0, 1, 2, 3, 4}},
		{"0-2,7", []int64{0, 1, 2, 7}},
		{"1,1-2", []int64{1, 2}},
		{"7,0-2", []int64{7, 0, 1, 2}}, // in the given order
		{"5-5", []int64{5}},
		{" 3 , 4-5 ", []int64{3, 4, 5}},
		{"2,2,2", []int64{2}},
	}
	for _, c := range good {
		got, err := ParseSeeds(c.in)
		if err != nil {
			t.Errorf("ParseSeeds(%q): %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ParseSeeds(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for _, in := range []string{"a", "3-1", "1-", "", "1,,2", "-", "1-b", "0-2,x"} {
		if got, err := ParseSeeds(in); err == nil {
			t.Errorf("ParseSeeds(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseSets(t *testing.T) {
	good := []struct {
		flags []string
		want  map[string][]string
	}{
		{nil, map[string][]string{}},
		{[]string{"gin-topk.lr=0.1,0.01"}, map[string][]string{"gin-topk.lr": {"0.1", "0.01"}}},
		{[]string{"gin-topk.lr=0.1", "*.epochs=5"}, map[string][]string{"gin-topk.lr": {"0.1"}, "*.epochs": {"5"}}},
		// Only the first '=' splits: values may contain '='.
		{[]string{"m.expr=a=b"}, map[string][]string{"m.expr": {"a=b"}}},
		// The same param of two methods is two keys.
		{[]string{"a.lr=1", "b.lr=2"}, map[string][]string{"a.lr": {"1"}, "b.lr": {"2"}}},
	}
	for _, c := range good {
		got, err := ParseSets(c.flags)
		if err != nil {
			t.Errorf("ParseSets(%q): %v", c.flags, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSets(%q) = %v, want %v", c.flags, got, c.want)
		}
	}
	bad := []struct {
		name  string
		flags []string
		want  string // in the error
	}{
		{"missing =", []string{"gin-topk.lr"}, "gin-topk.lr"},
		{"missing .", []string{"lr=0.1"}, "lr=0.1"},
		{"empty values", []string{"gin-topk.lr="}, "gin-topk.lr="},
		{"key twice", []string{"gin-topk.lr=0.1", "gin-topk.lr=0.2"}, "gin-topk.lr"},
		{"key twice, same values", []string{"*.lr=1", "*.lr=1"}, "*.lr"},
	}
	for _, c := range bad {
		got, err := ParseSets(c.flags)
		if err == nil {
			t.Errorf("%s: ParseSets(%q) = %v, want an error", c.name, c.flags, got)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseSets(%q) error %q does not name %q", c.name, c.flags, err, c.want)
		}
	}
}

func TestParseSetsEmptyItem(t *testing.T) {
	for _, f := range []string{"test-fake-b.pool=mean,,max", "test-fake-b.pool=mean,", "test-fake-b.pool=,mean"} {
		if got, err := ParseSets([]string{f}); err == nil {
			t.Errorf("ParseSets(%q) = %q, want an error for the empty value", f, got)
		}
	}
}

// specKey renders the fields that define a spec's place in the grid.
func specKey(s RunSpec) string {
	return fmt.Sprintf("%s/%s/%s/%s/%d", s.Dataset, s.RatioLabel(), s.Method, s.Params.Summary(), s.Seed)
}

func TestExpandOrder(t *testing.T) {
	registerGridFakes()
	specs, err := Expand(GridConfig{
		Methods:  []string{"test-fake-c", "test-fake-a"}, // in the given order, not sorted
		Datasets: []string{"Letter-low", "Letter-high"},
		Ratios:   []string{"high", "0.3"},
		Seeds:    []int64{5, 2},
		Sets: map[string][]string{
			"test-fake-a.lr":     {"0.5", "0.25"},
			"test-fake-a.hidden": {"8", "16"},
		},
		Protocol: DefaultProtocol(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, ds := range []string{"Letter-low", "Letter-high"} {
		info, _ := datasets.LookupInfo(ds)
		st := fmt.Sprintf(" steps=%d", info.StepBudget()) // steps 0 → the dataset's budget
		for _, r := range []string{"high", "0.3"} {
			want = append(want,
				ds+"/"+r+"/test-fake-c/k=3/5",
				ds+"/"+r+"/test-fake-c/k=3/2",
				// Swept params: sorted by key, the first key outermost.
				ds+"/"+r+"/test-fake-a/hidden=8 lr=0.5"+st+"/5",
				ds+"/"+r+"/test-fake-a/hidden=8 lr=0.5"+st+"/2",
				ds+"/"+r+"/test-fake-a/hidden=8 lr=0.25"+st+"/5",
				ds+"/"+r+"/test-fake-a/hidden=8 lr=0.25"+st+"/2",
				ds+"/"+r+"/test-fake-a/hidden=16 lr=0.5"+st+"/5",
				ds+"/"+r+"/test-fake-a/hidden=16 lr=0.5"+st+"/2",
				ds+"/"+r+"/test-fake-a/hidden=16 lr=0.25"+st+"/5",
				ds+"/"+r+"/test-fake-a/hidden=16 lr=0.25"+st+"/2",
			)
		}
	}
	got := make([]string, len(specs))
	for i, s := range specs {
		got[i] = specKey(s)
		if s.Protocol != DefaultProtocol() {
			t.Errorf("spec %d: protocol %+v, want %+v", i, s.Protocol, DefaultProtocol())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Expand order:\n got %q\nwant %q", got, want)
	}
	// Swept values have the type of the defaults.
	for _, s := range specs {
		if s.Method != "test-fake-a" {
			continue
		}
		if _, ok := s.Params["hidden"].(int); !ok {
			t.Errorf("%s: hidden is %T, want int", s, s.Params["hidden"])
		}
		if _, ok := s.Params["lr"].(float64); !ok {
			t.Errorf("%s: lr is %T, want float64", s, s.Params["lr"])
		}
	}
	// Every spec has its own Params map.
	specs[0].Params["k"] = 99
	if specs[1].Params["k"] != 3 {
		t.Errorf("specs share Params maps: changing specs[0] changed specs[1] to %v", specs[1].Params["k"])
	}
	if m, _ := Lookup("test-fake-c"); m.Defaults()["k"] != 3 {
		t.Errorf("changing a spec changed the method's defaults")
	}
}

func TestExpandCounts(t *testing.T) {
	registerGridFakes()
	cases := []struct {
		name string
		cfg  GridConfig
		want int
	}{
		{"one of each", GridConfig{Methods: []string{"test-fake-a"}, Datasets: []string{"Letter-high"}, Ratios: []string{"low"}, Seeds: []int64{0}}, 1},
		{
			// (a: 3 lr × 2 hidden + b: 1) × 2 datasets × 3 ratios × 2 seeds.
			"sweep", GridConfig{
				Methods:  []string{"test-fake-a", "test-fake-b"},
				Datasets: []string{"Letter-high", "Letter-low"},
				Ratios:   []string{"low", "high", "0.3"},
				Seeds:    []int64{0, 1},
				Sets:     map[string][]string{"test-fake-a.lr": {"0.1", "0.2", "0.3"}, "test-fake-a.hidden": {"32", "64"}},
			}, (3*2 + 1) * 2 * 3 * 2,
		},
		{
			// A method named twice counts once.
			"duplicate method", GridConfig{
				Methods: []string{"test-fake-a", "test-fake-a"}, Datasets: []string{"Letter-high"},
				Ratios: []string{"low"}, Seeds: []int64{0, 1, 2},
			}, 3,
		},
		{
			// *.lr sweeps a (2) and b (2); c has no lr (1); 3 seeds.
			"star", GridConfig{
				Methods: []string{"test-fake-a", "test-fake-b", "test-fake-c"}, Datasets: []string{"Letter-high"},
				Ratios: []string{"low"}, Seeds: []int64{0, 1, 2},
				Sets: map[string][]string{"*.lr": {"0.5", "0.7"}},
			}, (2 + 2 + 1) * 3,
		},
		{
			// *.lr and b.bn: a 2, b 2×2, c 1.
			"star and method", GridConfig{
				Methods: []string{"test-fake-a", "test-fake-b", "test-fake-c"}, Datasets: []string{"Letter-high"},
				Ratios: []string{"low"}, Seeds: []int64{0},
				Sets: map[string][]string{"*.lr": {"0.5", "0.7"}, "test-fake-b.bn": {"true", "false"}},
			}, 2 + 4 + 1,
		},
	}
	for _, c := range cases {
		specs, err := Expand(c.cfg)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(specs) != c.want {
			t.Errorf("%s: %d specs, want %d", c.name, len(specs), c.want)
		}
		hashes := map[string]bool{}
		for _, s := range specs {
			hashes[s.Hash()] = true
		}
		if len(hashes) != len(specs) {
			t.Errorf("%s: %d distinct hashes for %d specs", c.name, len(hashes), len(specs))
		}
	}
}

func TestExpandStar(t *testing.T) {
	registerGridFakes()
	specs, err := Expand(GridConfig{
		Methods: []string{"test-fake-a", "test-fake-b", "test-fake-c"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low"}, Seeds: []int64{0},
		Sets: map[string][]string{"*.lr": {"0.5", "0.7"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lrs := map[string][]any{}
	for _, s := range specs {
		if lr, ok := s.Params["lr"]; ok {
			lrs[s.Method] = append(lrs[s.Method], lr)
		}
	}
	want := map[string][]any{"test-fake-a": {0.5, 0.7}, "test-fake-b": {0.5, 0.7}}
	if !reflect.DeepEqual(lrs, want) {
		t.Errorf("lr values by method = %v, want %v", lrs, want)
	}
	for _, s := range specs {
		if s.Method == "test-fake-c" && !reflect.DeepEqual(s.Params, Params{"k": 3}) {
			t.Errorf("test-fake-c params %v, want its defaults only", s.Params)
		}
	}
}

func TestExpandAll(t *testing.T) {
	registerGridFakes()
	specs, err := Expand(GridConfig{
		Methods: []string{"all", "test-fake-a"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low"}, Seeds: []int64{0},
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, s := range specs {
		count[s.Method]++
	}
	for _, name := range []string{"test-fake-a", "test-fake-b", "test-fake-c"} {
		if count[name] != 1 {
			t.Errorf("all: %s appears %d times, want 1", name, count[name])
		}
	}
	if len(specs) != len(Names()) {
		t.Errorf("all: %d specs, want one per registered method (%d)", len(specs), len(Names()))
	}
}

// TestExpandSteps checks the step budget: a method's steps = 0 becomes
// the dataset's protocol budget in every spec, --steps overrides it, an
// explicit --set wins over both, and methods without steps are untouched.
func TestExpandSteps(t *testing.T) {
	registerGridFakes()
	info, _ := datasets.LookupInfo("Letter-high")
	budget := info.StepBudget()
	for _, c := range []struct {
		steps int
		sets  map[string][]string
		want  []int
	}{
		{0, nil, []int{budget}},
		{7, nil, []int{7}},
		{7, map[string][]string{"test-fake-a.steps": {"5", "15"}}, []int{5, 15}},
	} {
		specs, err := Expand(GridConfig{
			Methods: []string{"test-fake-a", "test-fake-c"}, Datasets: []string{"Letter-high"},
			Ratios: []string{"low"}, Seeds: []int64{0}, Steps: c.steps, Sets: c.sets,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, s := range specs {
			st, has := s.Params[StepsParam]
			switch s.Method {
			case "test-fake-a":
				got = append(got, s.Params.Int(StepsParam))
			case "test-fake-c":
				if has {
					t.Errorf("Steps=%d: test-fake-c has no steps param but got steps=%v", c.steps, st)
				}
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Steps=%d sets %v: steps %v, want %v", c.steps, c.sets, got, c.want)
		}
	}
	if m, _ := Lookup("test-fake-a"); m.Defaults()[StepsParam] != 0 {
		t.Errorf("Expand changed the method's default steps to %v", m.Defaults()[StepsParam])
	}
}

// TestExpandSplitSeeds checks that split seeds are a grid dimension beside
// run seeds (default: split seed 0 only) and enter the config hash.
func TestExpandSplitSeeds(t *testing.T) {
	registerGridFakes()
	cfg := GridConfig{Methods: []string{"test-fake-c"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low"}, Seeds: []int64{0, 1}, Protocol: DefaultProtocol()}
	specs, err := Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, fmt.Sprintf("%d/%d", s.SplitSeed, s.Seed))
	}
	if want := []string{"0/0", "0/1"}; !slices.Equal(got, want) {
		t.Errorf("default split seeds: split/run %v, want %v", got, want)
	}
	cfg.SplitSeeds = []int64{3, 4}
	if specs, err = Expand(cfg); err != nil {
		t.Fatal(err)
	}
	got = nil
	hashes := map[string]bool{}
	for _, s := range specs {
		got = append(got, fmt.Sprintf("%d/%d", s.SplitSeed, s.Seed))
		hashes[s.Hash()] = true
	}
	if want := []string{"3/0", "3/1", "4/0", "4/1"}; !slices.Equal(got, want) {
		t.Errorf("split seeds 3,4: split/run %v, want %v", got, want)
	}
	if len(hashes) != 4 {
		t.Errorf("%d distinct hashes for 4 specs differing only in split or run seed", len(hashes))
	}
}

// TestLegacyParamsHash checks LegacyParams: a spec whose added parameters
// hold their legacy values hashes like the spec stored before they
// existed; any other value changes the hash.
func TestLegacyParamsHash(t *testing.T) {
	registerGridFakes()
	old := RunSpec{Method: "test-fake-legacy", Dataset: "Letter-high", Ratio: 0.2, Seed: 1,
		Params: Params{"lr": 0.1}, Protocol: DefaultProtocol()}
	for _, c := range []struct {
		name   string
		params Params
		same   bool
	}{
		{"both legacy", Params{"lr": 0.1, "new_switch": false, "new_count": 0}, true},
		{"legacy, decoded as float64", Params{"lr": 0.1, "new_switch": false, "new_count": 0.0}, true},
		{"one legacy", Params{"lr": 0.1, "new_switch": false}, true},
		{"switch on", Params{"lr": 0.1, "new_switch": true, "new_count": 0}, false},
		{"count 3", Params{"lr": 0.1, "new_switch": false, "new_count": 3}, false},
		{"other param changed", Params{"lr": 0.2, "new_switch": false, "new_count": 0}, false},
	} {
		s := old
		s.Params = c.params
		if got := s.Hash() == old.Hash(); got != c.same {
			t.Errorf("%s: same hash as the legacy spec = %v, want %v", c.name, got, c.same)
		}
	}
	// A method without LegacyParams hashes every parameter.
	a := RunSpec{Method: "test-fake-c", Dataset: "Letter-high", Ratio: 0.2, Params: Params{"k": 3}}
	b := a
	b.Params = Params{"k": 3, "new_switch": false}
	if a.Hash() == b.Hash() {
		t.Error("test-fake-c: an extra parameter did not change the hash")
	}
}

func TestExpandRatios(t *testing.T) {
	registerGridFakes()
	specs, err := Expand(GridConfig{
		Methods: []string{"test-fake-c"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low", "high", "0.3", "HIGH"}, Seeds: []int64{0},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label string
		ratio float64
	}{{"low", 0.2}, {"high", 0.4}, {"0.3", 0.3}, {"high", 0.4}}
	if len(specs) != len(want) {
		t.Fatalf("%d specs, want %d", len(specs), len(want))
	}
	for i, w := range want {
		if specs[i].RatioLabel() != w.label || specs[i].Ratio != w.ratio {
			t.Errorf("ratio %d: label %q ratio %v, want %q %v", i, specs[i].RatioLabel(), specs[i].Ratio, w.label, w.ratio)
		}
	}
	if specs[0].RatioName != "low" || specs[1].RatioName != "high" {
		t.Errorf("RatioName = %q, %q, want low, high", specs[0].RatioName, specs[1].RatioName)
	}
}

func TestExpandErrors(t *testing.T) {
	registerGridFakes()
	ok := GridConfig{
		Methods: []string{"test-fake-a"}, Datasets: []string{"Letter-high"},
		Ratios: []string{"low"}, Seeds: []int64{0},
	}
	cases := []struct {
		name   string
		modify func(*GridConfig)
		want   string // the error names it
	}{
		{"unknown method", func(c *GridConfig) { c.Methods = []string{"test-fake-a", "test-no-such-method"} }, "test-no-such-method"},
		{"no methods", func(c *GridConfig) { c.Methods = nil }, "method"},
		{"no datasets", func(c *GridConfig) { c.Datasets = nil }, "dataset"},
		{"no ratios", func(c *GridConfig) { c.Ratios = nil }, "ratio"},
		{"no seeds", func(c *GridConfig) { c.Seeds = nil }, "seed"},
		{"unknown param", func(c *GridConfig) { c.Sets = map[string][]string{"test-fake-a.nope": {"1"}} }, "test-fake-a.nope"},
		{"star unknown param", func(c *GridConfig) { c.Sets = map[string][]string{"*.nope": {"1"}} }, "*.nope"},
		{"unselected method", func(c *GridConfig) { c.Sets = map[string][]string{"test-fake-c.k": {"1"}} }, "test-fake-c.k"},
		{"bad float", func(c *GridConfig) { c.Sets = map[string][]string{"test-fake-a.lr": {"0.1", "abc"}} }, "test-fake-a.lr"},
		{"bad int", func(c *GridConfig) { c.Sets = map[string][]string{"test-fake-a.hidden": {"1.5"}} }, "test-fake-a.hidden"},
		{"bad bool", func(c *GridConfig) {
			c.Methods = []string{"test-fake-b"}
			c.Sets = map[string][]string{"test-fake-b.bn": {"maybe"}}
		}, "test-fake-b.bn"},
		{"star bad value", func(c *GridConfig) { c.Sets = map[string][]string{"*.epochs": {"ten"}} }, "*.epochs"},
		{"ratio out of range", func(c *GridConfig) { c.Ratios = []string{"1.5"} }, "1.5"},
		{"ratio zero", func(c *GridConfig) { c.Ratios = []string{"0"} }, `"0"`},
		{"ratio word", func(c *GridConfig) { c.Ratios = []string{"medium"} }, "medium"},
		{"low on unknown dataset", func(c *GridConfig) { c.Datasets = []string{"No-Such-Dataset"} }, "No-Such-Dataset"},
	}
	for _, c := range cases {
		cfg := ok
		c.modify(&cfg)
		specs, err := Expand(cfg)
		if err == nil {
			t.Errorf("%s: Expand gave %d specs, want an error", c.name, len(specs))
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not name %q", c.name, err, c.want)
		}
	}
	// The bad value itself is named too.
	cfg := ok
	cfg.Sets = map[string][]string{"test-fake-a.lr": {"abc"}}
	if _, err := Expand(cfg); err == nil || !strings.Contains(err.Error(), `"abc"`) {
		t.Errorf("bad value: error %v does not quote the value", err)
	}
}

func hashSpec() RunSpec {
	return RunSpec{
		Method: "gin-topk", Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Seed: 3,
		Params:   Params{"epochs": 100, "lr": 0.001, "pool": "topk", "bn": true},
		Protocol: DefaultProtocol(),
	}
}

func TestHashGolden(t *testing.T) {
	// A change here changes the config hash of every spec: every stored run
	// becomes unfinished to a rerun, so resume recomputes the whole grid.
	// Never update this value without meaning to invalidate all stores.
	// It is the first 16 hex digits of the SHA-256 of
	// {"Method":"gin-topk","Dataset":"Letter-high","Ratio":0.2,"SplitSeed":0,"Seed":3,"Params":{"bn":true,"epochs":100,"lr":0.001,"pool":"topk"},"Protocol":{"class_split":"first","test_frac":0.2,"alpha":1}}
	// (protocol v2 added SplitSeed and the default test_frac 0.2).
	const golden = "6fa2478fa6af9718"
	if got := hashSpec().Hash(); got != golden {
		t.Errorf("Hash() = %s, want %s (the hash encoding changed: stored runs would not be resumed)", got, golden)
	}
}

func TestHashStable(t *testing.T) {
	s := hashSpec()
	h := s.Hash()
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(h) {
		t.Fatalf("Hash() = %q, want 16 lowercase hex digits", h)
	}
	for i := 0; i < 20; i++ {
		if got := hashSpec().Hash(); got != h {
			t.Fatalf("Hash() call %d = %s, want %s", i, got, h)
		}
	}
	// Params built in another insertion order hash the same.
	t2 := hashSpec()
	t2.Params = Params{}
	for _, k := range []string{"pool", "bn", "lr", "epochs"} {
		t2.Params[k] = s.Params[k]
	}
	if t2.Hash() != h {
		t.Errorf("same params in another insertion order: hash %s, want %s", t2.Hash(), h)
	}
	// The JSON round trip of a store (ints read back as float64) keeps it.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back RunSpec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Hash() != h {
		t.Errorf("hash after a JSON round trip %s, want %s", back.Hash(), h)
	}
	// RatioName is a label of Ratio, not part of what is computed.
	named := hashSpec()
	named.RatioName = ""
	if named.Hash() != h {
		t.Errorf("RatioName changed the hash")
	}

	changes := []struct {
		name   string
		modify func(*RunSpec)
	}{
		{"method", func(s *RunSpec) { s.Method = "gin-mean" }},
		{"dataset", func(s *RunSpec) { s.Dataset = "Letter-low" }},
		{"ratio", func(s *RunSpec) { s.Ratio = 0.4 }},
		{"seed", func(s *RunSpec) { s.Seed = 4 }},
		{"param value", func(s *RunSpec) { s.Params["lr"] = 0.01 }},
		{"int param value", func(s *RunSpec) { s.Params["epochs"] = 101 }},
		{"string param value", func(s *RunSpec) { s.Params["pool"] = "mean" }},
		{"bool param value", func(s *RunSpec) { s.Params["bn"] = false }},
		{"param added", func(s *RunSpec) { s.Params["hidden"] = 128 }},
		{"param removed", func(s *RunSpec) { delete(s.Params, "bn") }},
		{"param renamed", func(s *RunSpec) { s.Params["lr2"] = s.Params["lr"]; delete(s.Params, "lr") }},
		{"class split", func(s *RunSpec) { s.Protocol.ClassSplit = "random" }},
		{"test frac", func(s *RunSpec) { s.Protocol.TestFrac = 0.3 }},
		{"split seed", func(s *RunSpec) { s.SplitSeed = 1 }},
		{"alpha", func(s *RunSpec) { s.Protocol.Alpha = 1.2 }},
	}
	seen := map[string]string{h: "base"}
	for _, c := range changes {
		sp := hashSpec()
		c.modify(&sp)
		got := sp.Hash()
		if prev, dup := seen[got]; dup {
			t.Errorf("changing %s gives hash %s, same as %s", c.name, got, prev)
			continue
		}
		seen[got] = c.name
	}
}

func TestParseDevices(t *testing.T) {
	good := []struct {
		in        string
		perDevice int
		want      []Slot
	}{
		{"cpu:2", 1, []Slot{{"cpu", 0}, {"cpu", 1}}},
		{"cpu:2", 3, []Slot{{"cpu", 0}, {"cpu", 1}}}, // perDevice is for GPUs
		{"cpu", 1, []Slot{{"cpu", 0}}},
		{"cuda:0,cuda:1", 2, []Slot{{"cuda:0", 0}, {"cuda:0", 1}, {"cuda:1", 0}, {"cuda:1", 1}}},
		{"cuda:3", 1, []Slot{{"cuda:3", 0}}},
		{"gpu:1", 2, []Slot{{"cuda:1", 0}, {"cuda:1", 1}}},
		{" cuda:0 , cuda:1 ", 1, []Slot{{"cuda:0", 0}, {"cuda:1", 0}}},
	}
	for _, c := range good {
		got, err := ParseDevices(c.in, c.perDevice)
		if err != nil {
			t.Errorf("ParseDevices(%q, %d): %v", c.in, c.perDevice, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ParseDevices(%q, %d) = %v, want %v", c.in, c.perDevice, got, c.want)
		}
	}
	bad := []struct {
		in        string
		perDevice int
	}{
		{"tpu:1", 1}, {"cpu:x", 1}, {"cuda", 1}, {"gpu", 1}, {"cpu:2", 0}, {"cuda:0", 0}, {"cpu:2", -1},
		{"cpu:0", 1}, {"cuda:-1", 1}, {"cpu:-2", 1}, {"", 1}, {"cuda:0,", 1}, {"cuda:x", 1},
	}
	for _, c := range bad {
		if got, err := ParseDevices(c.in, c.perDevice); err == nil {
			t.Errorf("ParseDevices(%q, %d) = %v, want an error", c.in, c.perDevice, got)
		}
	}
	// cpu:auto: one slot per CPU, at most one per SlotMemory of RAM, at least one.
	for _, c := range []struct {
		cpus int
		mem  uint64
		want int
	}{
		{0, 0, 1}, {1, 0, 1}, {2, 0, 2}, {64, 0, 64}, // memory unknown: CPUs alone
		{2, 23 << 30, 2},    // this project's machines
		{16, 125 << 30, 16}, // the 16-core machine of docs/speed.md
		{16, 32 << 30, 8},   // wide but little RAM: 4 GiB a slot
		{4, 2 << 30, 1},     // less than one slot's memory still runs one
		{0, 64 << 30, 1},
	} {
		if got := AutoCPUSlots(c.cpus, c.mem); got != c.want {
			t.Errorf("AutoCPUSlots(%d, %d GiB) = %d, want %d", c.cpus, c.mem>>30, got, c.want)
		}
	}
	if runtime.GOOS == "linux" && TotalMemory() < 1<<20 {
		t.Errorf("TotalMemory() = %d bytes on Linux, want the machine's RAM", TotalMemory())
	}
	if got, err := ParseDevices(DefaultDevices, 1); err != nil || len(got) != AutoCPUSlots(runtime.NumCPU(), TotalMemory()) || got[len(got)-1] != (Slot{"cpu", len(got) - 1}) {
		t.Errorf("ParseDevices(%q) = %v, %v; want %d cpu slots", DefaultDevices, got, err, AutoCPUSlots(runtime.NumCPU(), TotalMemory()))
	}
	if s := (Slot{"cuda:1", 2}).String(); s != "cuda:1#2" {
		t.Errorf("Slot.String() = %q, want cuda:1#2", s)
	}
}

func TestRangeCheck(t *testing.T) {
	lr := Float("lr", 0.1, Positive, "learning rate")
	if _, err := lr.Spec().Parse("m.lr", "inf"); err == nil || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("Parse inf: %v", err)
	}
	if _, err := lr.Spec().Parse("m.lr", "NaN"); err == nil {
		t.Error("Parse NaN accepted")
	}
	set := Declare(lr, Int("steps", 0, NonNegative, ""), Float("pool_ratio", 0.8, Ratio, ""),
		Enum("name", "x", "", "x", "y"))
	p := Params{"lr": 0.0, "steps": 3, "pool_ratio": 1.0, "name": "x", "undeclared": -1}
	if err := set.Check(p); err == nil || err.Error() != "lr 0: must be > 0" {
		t.Errorf("lr 0: %v", err)
	}
	p["lr"] = 0.5
	if err := set.Check(p); err != nil {
		t.Errorf("in range: %v", err)
	}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"name", "z", `name "z": want "x" or "y"`},
		{"steps", 1.5, "steps 1.5: not an integer"},
		{"steps", "3", "steps 3: want a number, not string"},
		{"steps", -1, "steps -1: must be ≥ 0"},
	} {
		q := p.Clone()
		q[c.name] = c.v
		if err := set.Check(q); err == nil || err.Error() != c.want {
			t.Errorf("%s=%v: %v, want %q", c.name, c.v, err, c.want)
		}
	}
	if err := set.Check(Params{"steps": 3.0}); err != nil {
		t.Errorf("an int decoded as float64: %v", err)
	}
	for _, c := range []struct {
		r    Range
		v    float64
		in   bool
		text string
	}{
		{Ratio, 0, false, "in (0, 1]"}, {Ratio, 1, true, "in (0, 1]"}, {DropRate, 1, false, "in [0, 1)"},
		{AtLeastOne, 1, true, "≥ 1"}, {Positive, math.NaN(), false, "> 0"}, {NonNegative, math.Inf(1), false, "≥ 0"},
	} {
		if c.r.Contains(c.v) != c.in || c.r.String() != c.text {
			t.Errorf("%v contains %g: %v, want %v (%s)", c.r, c.v, c.r.Contains(c.v), c.in, c.r.String())
		}
	}
}
