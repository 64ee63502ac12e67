package suite

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	none := env(nil)
	good := []struct {
		in   string
		env  func(string) string
		want Shard
	}{
		{"", none, Shard{}},
		{"0/1", none, Shard{0, 1}},
		{"2/3", none, Shard{2, 3}},
		{"env/3", env(map[string]string{"SLURM_ARRAY_TASK_ID": "1"}), Shard{1, 3}},
		{"env/4", env(map[string]string{"JOB_COMPLETION_INDEX": "3"}), Shard{3, 4}},
		// Slurm's variable comes first.
		{"env/4", env(map[string]string{"SLURM_ARRAY_TASK_ID": "2", "JOB_COMPLETION_INDEX": "0"}), Shard{2, 4}},
	}
	for _, c := range good {
		got, err := ParseShard(c.in, c.env)
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		in      string
		env     func(string) string
		wantErr string
	}{
		{"3", none, "want I/N"},
		{"3/3", none, "not an integer in [0, 3)"},
		{"-1/3", none, "not an integer in [0, 3)"},
		{"a/3", none, `shard index "a"`},
		{"0/0", none, "not a positive integer"},
		{"0/x", none, "not a positive integer"},
		{"env/3", none, "none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX is set"},
		{"env/3", env(map[string]string{"SLURM_ARRAY_TASK_ID": "5"}), "from $SLURM_ARRAY_TASK_ID"},
	}
	for _, c := range bad {
		got, err := ParseShard(c.in, c.env)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("ParseShard(%q) = %v, %v; want an error containing %q", c.in, got, err, c.wantErr)
		}
	}
}

// shardGrid expands a grid of the fake methods on numeric ratios (no
// dataset files needed).
func shardGrid(t *testing.T, methods ...string) []RunSpec {
	t.Helper()
	registerGridFakes()
	specs, err := Expand(GridConfig{
		Methods: methods, Datasets: []string{"d1", "d2"}, Ratios: []string{"0.1", "0.3"},
		Seeds: []int64{0, 1, 2, 3, 4}, Sets: map[string][]string{"test-fake-a.lr": {"0.1", "0.01"}},
		Protocol: DefaultProtocol(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func TestShardPartition(t *testing.T) {
	specs := shardGrid(t, "test-fake-a", "test-fake-b")
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		total := 0
		for i := 0; i < n; i++ {
			part := Shard{i, n}.Select(specs)
			total += len(part)
			for _, sp := range part {
				seen[sp.Hash()]++
			}
			if n > 1 && len(part) == len(specs) {
				t.Errorf("%d shards: shard %d holds all %d specs", n, i, len(specs))
			}
		}
		if total != len(specs) || len(seen) != len(specs) {
			t.Errorf("%d shards: %d specs selected, %d distinct; want %d each", n, total, len(seen), len(specs))
		}
		for h, k := range seen {
			if k != 1 {
				t.Errorf("%d shards: spec %s in %d shards", n, h, k)
			}
		}
	}
	// Order within a shard is the grid's order.
	part := Shard{1, 3}.Select(specs)
	j := 0
	for _, sp := range specs {
		if j < len(part) && sp.Hash() == part[j].Hash() {
			j++
		}
	}
	if j != len(part) {
		t.Errorf("shard 1/3 is not a subsequence of the grid")
	}
}

func TestShardStableUnderAddingAMethod(t *testing.T) {
	before := shardGrid(t, "test-fake-a", "test-fake-b")
	after := shardGrid(t, "test-fake-a", "test-fake-c", "test-fake-b")
	if len(after) <= len(before) {
		t.Fatalf("adding a method did not add specs: %d → %d", len(before), len(after))
	}
	const n = 3
	shardOf := func(specs []RunSpec) map[string]int {
		m := map[string]int{}
		for i := 0; i < n; i++ {
			for _, sp := range (Shard{i, n}).Select(specs) {
				m[sp.Hash()] = i
			}
		}
		return m
	}
	b, a := shardOf(before), shardOf(after)
	for h, i := range b {
		if j, ok := a[h]; !ok || j != i {
			t.Errorf("spec %s: shard %d before adding test-fake-c, %d (present %v) after", h, i, j, ok)
		}
	}
}

func TestShardContainsKnownHashes(t *testing.T) {
	// 0x10 = 16: 16 mod 3 = 1; 0xff…ff = 2^64-1 ≡ 0 (mod 3) since 3 | 2^64-1.
	cases := []struct {
		hash string
		sh   Shard
		want bool
	}{
		{"0000000000000010", Shard{1, 3}, true},
		{"0000000000000010", Shard{0, 3}, false},
		{"ffffffffffffffff", Shard{0, 3}, true},
		{"ffffffffffffffff", Shard{0, 1}, true},
		{"ffffffffffffffff", Shard{}, true},
	}
	for _, c := range cases {
		if got := c.sh.Contains(c.hash); got != c.want {
			t.Errorf("%v.Contains(%s) = %v, want %v", c.sh, c.hash, got, c.want)
		}
	}
}
