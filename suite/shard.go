package suite

import (
	"fmt"
	"strconv"
	"strings"
)

// ShardIndexEnv are the environment variables ParseShard reads, in order,
// for a shard given as "env/N": Slurm's job-array task id and Kubernetes'
// indexed-Job completion index. Both count from 0 when the array is
// 0..N-1 (`sbatch --array=0-N-1`, `completions: N`).
var ShardIndexEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// Shard is one part of a grid split into Count parts: the specs whose
// config hash falls into part Index (0 ≤ Index < Count). The partition
// depends on each spec's hash alone, so adding or removing specs (a method,
// a seed) never moves the others to another shard, and every spec is in
// exactly one shard of a given Count. The zero value (Count 0) is the
// whole grid.
type Shard struct {
	Index, Count int
}

// ParseShard parses --shard: "I/N" with 0 ≤ I < N, or "env/N", where I is
// read from the first variable of ShardIndexEnv that getenv returns
// non-empty (getenv is os.Getenv outside tests). "" is the whole grid.
// Errors are InputErrors of field "shard", naming the value and, for
// env/N, the variables.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, inputErrorf("shard", strconv.Quote(s), "want I/N (0 ≤ I < N) or env/N")
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return Shard{}, inputErrorf("shard", strconv.Quote(s), "the shard count %q is not a positive integer", ns)
	}
	src := ""
	if is == "env" {
		for _, name := range ShardIndexEnv {
			if v := getenv(name); v != "" {
				is, src = v, name
				break
			}
		}
		if src == "" {
			return Shard{}, inputErrorf("shard", strconv.Quote(s), "none of %s is set (not in a Slurm job array or indexed Job?)", strings.Join(ShardIndexEnv, ", "))
		}
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		where := ""
		if src != "" {
			where = " (from $" + src + ")"
		}
		return Shard{}, inputErrorf("shard", strconv.Quote(s), "the shard index %q%s is not an integer in [0, %d)", is, where, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is the flag form "I/N", or "all" for the whole grid.
func (sh Shard) String() string {
	if sh.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// Contains reports whether the spec with config hash (RunSpec.Hash: hex
// digits) belongs to the shard: the hash's first 16 hex digits, read as an
// unsigned 64-bit number, modulo Count equals Index. A hash that is not hex
// (never produced by RunSpec.Hash) is placed by its bytes instead, so every
// string still lands in exactly one shard.
func (sh Shard) Contains(hash string) bool {
	if sh.Count <= 1 {
		return true
	}
	return int(hashKey(hash)%uint64(sh.Count)) == sh.Index
}

// hashKey is the number Contains reduces modulo the shard count.
func hashKey(hash string) uint64 {
	if len(hash) > 16 {
		hash = hash[:16]
	}
	if v, err := strconv.ParseUint(hash, 16, 64); err == nil {
		return v
	}
	// FNV-1a of the bytes.
	v := uint64(14695981039346656037)
	for i := 0; i < len(hash); i++ {
		v ^= uint64(hash[i])
		v *= 1099511628211
	}
	return v
}

// Select returns the specs of specs in the shard, in their order.
func (sh Shard) Select(specs []RunSpec) []RunSpec {
	if sh.Count <= 1 {
		return specs
	}
	var out []RunSpec
	for _, sp := range specs {
		if sh.Contains(sp.Hash()) {
			out = append(out, sp)
		}
	}
	return out
}
