package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
)

func TestDataCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "want a subcommand"},
		{[]string{"fetch"}, "name the datasets or say all"},
		{[]string{"fetch", "NOPE"}, `unknown dataset "NOPE"`},
		{[]string{"remove", "MNIST"}, `unknown subcommand "remove"`},
	}
	for _, c := range cases {
		err := runData(append(c.args, "--data-dir", t.TempDir()), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bench data %v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestDataVerify: the shared copies verify; a damaged copy of one file is
// reported with both sums and fails the command.
func TestDataVerify(t *testing.T) {
	dir := datasetstest.Dir() // verify reads the files on disk: the embedded copy does not do
	if dir == "" {
		datasetstest.SkipNoData(t, "no data directory")
	}
	for _, name := range []string{"Letter-high", "IMDB-BINARY"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			datasetstest.SkipNoData(t, "dataset %s not in %s", name, dir)
		}
	}
	var out bytes.Buffer
	if err := runData([]string{"verify", "Letter-high", "IMDB-BINARY", "--data-dir", dir}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), " ok"); n != 7 {
		t.Errorf("%d files ok, want 7:\n%s", n, out.String())
	}
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "Letter-high"), 0o755)
	os.WriteFile(filepath.Join(bad, "Letter-high", "Letter-high_A.txt"), []byte("1, 2\n"), 0o644)
	out.Reset()
	err := runData([]string{"verify", "--data-dir", bad}, &out)
	if err == nil || !strings.Contains(out.String(), "MISMATCH") || !strings.Contains(out.String(), "b9d5e3689639436b28c12702dc8457f898c47711adbef51543a8e1235b3c2a16") {
		t.Errorf("damaged file: error %v, output\n%s\nwant a mismatch naming the recorded sum", err, out.String())
	}
}
