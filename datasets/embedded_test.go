package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// TestEmbeddedFilesAreTheOriginals checks every embedded Letter-high file
// against the SHA-256 of the stored .gz files (the copy CI keeps in
// ../shared/datasets/Letter-high), so the demo data cannot drift from the
// real dataset.
func TestEmbeddedFilesAreTheOriginals(t *testing.T) {
	want := map[string]string{
		"Letter-high_A.txt.gz":               "9206baaf9d72543f20ab1b23694feff653f92c30a562e0959cd02c5e1f2d5f89",
		"Letter-high_graph_indicator.txt.gz": "39da5687c00dc8aa8e61ed2c6945adbd858d2e72b3b56ba1e7e17ecdbf186ac3",
		"Letter-high_graph_labels.txt.gz":    "f83f074239c9506f445e2fdb73bb73ade9815596c028e54e08d1f068bedbd6f1",
		"Letter-high_node_attributes.txt.gz": "a5f7f8df00b34ec3f5790b6d9b0ecfcb71d37bb29beb7000ac2698d56d9219e1",
		"Letter-high_label_readme.txt":       "e4a008fca83ef1d06f0e250083187850aacdfa2a095ac33f2cf3b1cdd81402a3",
	}
	fsys := embeddedFS("Letter-high")
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("embedded Letter-high has %d files, want %d", len(entries), len(want))
	}
	for name, sum := range want {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got, sum)
		}
	}
}

// TestLoadEmbeddedFallback loads Letter-high from an empty data directory
// and from a missing one (a fresh clone), and checks Table 1's figures.
func TestLoadEmbeddedFallback(t *testing.T) {
	empty := t.TempDir()
	for _, dir := range []string{empty, filepath.Join(empty, "no-such-dir")} {
		ds, err := Load(dir, "Letter-high")
		if err != nil {
			t.Fatalf("Load(%s, Letter-high): %v", dir, err)
		}
		s := ComputeStats(ds)
		if s.Graphs != 2250 || s.Classes != 15 || s.FeatureDim != 2 || fmtAvg(s.AvgNodes) != "4.67" || fmtAvg(s.AvgEdges) != "4.50" {
			t.Errorf("embedded Letter-high: %d graphs, %d classes, dim %d, %.4f nodes, %.4f edges; want 2250/15/2/4.67/4.50",
				s.Graphs, s.Classes, s.FeatureDim, s.AvgNodes, s.AvgEdges)
		}
	}
	if _, err := Load(empty, "COIL-DEL"); err == nil {
		t.Error("Load(empty dir, COIL-DEL) gave no error; only Letter-high is embedded")
	}
	if _, err := LoadEmbedded("COIL-DEL"); err == nil {
		t.Error("LoadEmbedded(COIL-DEL) gave no error")
	}
}

// TestLoadEmbeddedDiskWins: a Letter-high directory in the data directory
// is read instead of the embedded copy, even when it differs.
func TestLoadEmbeddedDiskWins(t *testing.T) {
	root := writeTU(t, t.TempDir(), "Letter-high", tinyFiles(t), false)
	ds, err := Load(root, "Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) == 2250 {
		t.Error("Load read the embedded copy although the data directory holds Letter-high")
	}
}

// TestEmbeddedEqualsShared: the embedded copy gives the same graphs and
// labels as the real files on disk.
func TestEmbeddedEqualsShared(t *testing.T) {
	requireDisk(t, "Letter-high")
	disk, err := Load(sharedData, "Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := LoadEmbedded("Letter-high")
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(disk.Graphs) != Fingerprint(emb.Graphs) {
		t.Error("embedded Letter-high graphs differ from the shared copy")
	}
	for i := range disk.Labels {
		if disk.Labels[i] != emb.Labels[i] {
			t.Fatalf("label of graph %d: embedded %d, disk %d", i, emb.Labels[i], disk.Labels[i])
		}
	}
}

// fmtAvg rounds v to two decimals, as Table 1 prints it.
func fmtAvg(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// TestPresent: an empty data directory still offers the embedded
// Letter-high; MNIST appears once its raw files are there.
func TestPresent(t *testing.T) {
	root := t.TempDir()
	if got := Present(root); !reflect.DeepEqual(got, []string{"Letter-high"}) {
		t.Errorf("Present(empty) = %v, want [Letter-high]", got)
	}
	os.MkdirAll(filepath.Join(root, "MNIST"), 0o755)
	for _, f := range []string{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte"} {
		os.WriteFile(filepath.Join(root, "MNIST", f), nil, 0o644)
	}
	if got := Present(root); !reflect.DeepEqual(got, []string{"Letter-high", "MNIST"}) {
		t.Errorf("Present = %v, want [Letter-high MNIST]", got)
	}
}
