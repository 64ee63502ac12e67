package datasetstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirFor: a data directory without Letter-high, or none at all (a
// fresh clone), still gives a directory from which the embedded
// Letter-high loads; a dataset that is not embedded is skipped and
// counted.
func TestDirFor(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("UGBENCH_DATA", empty)
	if got := DirFor(t, "Letter-high"); got != empty {
		t.Errorf("DirFor(Letter-high) with an empty data directory = %q, want it (%q)", got, empty)
	}
	if ds := Load(t, "Letter-high"); len(ds.Graphs) != 2250 {
		t.Errorf("Letter-high from %s: %d graphs, want 2250", empty, len(ds.Graphs))
	}

	// A fresh clone: no UGBENCH_DATA directory and no shared datasets beside it.
	clone := filepath.Join(t.TempDir(), "ugbench")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(clone)
	t.Setenv("UGBENCH_DATA", filepath.Join(clone, "data"))
	if d := Dir(); d != "" {
		t.Fatalf("Dir() on a fresh clone = %q, want none", d)
	}
	dir := DirFor(t, "Letter-high")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("DirFor(Letter-high) on a fresh clone = %q (%v), want an existing directory", dir, err)
	}
	if ds := Load(t, "Letter-high"); len(ds.Graphs) != 2250 {
		t.Errorf("embedded Letter-high: %d graphs, want 2250", len(ds.Graphs))
	}

	t.Run("COIL-DEL", func(t *testing.T) {
		DirFor(t, "Letter-high", "COIL-DEL")
		t.Error("DirFor did not skip without COIL-DEL")
	})
	if s := Summary(); !strings.Contains(s, "TestDirFor/COIL-DEL") {
		t.Errorf("the skip of COIL-DEL is not counted: %q", s)
	}
}
