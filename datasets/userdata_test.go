package datasets

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// writeIDX writes an IDX ubyte file with the given sizes.
func writeIDX(t *testing.T, path string, dims []int, data []byte) {
	t.Helper()
	var b bytes.Buffer
	b.Write([]byte{0, 0, 8, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyImageSet writes a user IDX dataset "DIGITS" of 12 8×8 images of 3
// classes (a bright square in a class-dependent corner, shifted by the
// image index) with its dataset.json, and returns the data directory.
func tinyImageSet(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "DIGITS")
	os.MkdirAll(dir, 0o755)
	const n, h, w = 12, 8, 8
	pix := make([]byte, n*h*w)
	labels := make([]byte, n)
	for i := range n {
		c := i % 3
		labels[i] = byte(c)
		y0, x0 := (c%2)*4, (c/2)*4
		for y := y0; y < y0+3; y++ {
			for x := x0; x < x0+3+i%2; x++ {
				pix[i*h*w+y*w+x] = byte(200 + i)
			}
		}
	}
	writeIDX(t, filepath.Join(dir, "images-idx3-ubyte"), []int{n, h, w}, pix)
	writeIDX(t, filepath.Join(dir, "labels-idx1-ubyte"), []int{n}, labels)
	cfg := `{"format": "idx", "known": 2, "low": 0.5, "high": 1,
  "images": "images-idx3-ubyte", "labels": "labels-idx1-ubyte",
  "superpixels": {"max_nodes": 10, "extra_ask": 2, "compactness": 0.25}}`
	os.WriteFile(filepath.Join(dir, UserConfigFile), []byte(cfg), 0o644)
	return root
}

// countBuilds returns a Loader that counts the images the superpixel
// builder segments, and the count.
func countBuilds() (Loader, *atomic.Int64) {
	var c atomic.Int64
	return Loader{Progress: func(string, int, int) { c.Add(1) }}, &c
}

// TestUserIDXDatasetAndCache registers a user IDX set, builds it (cache
// written next to the data), reloads it from the cache without building,
// and rebuilds after the cache is damaged, truncated or stale.
func TestUserIDXDatasetAndCache(t *testing.T) {
	root := tinyImageSet(t)
	names, err := RegisterUserDatasets(root)
	if err != nil || len(names) != 1 || names[0] != "DIGITS" {
		t.Fatalf("RegisterUserDatasets = %v, %v; want [DIGITS]", names, err)
	}
	info, ok := LookupInfo("DIGITS")
	if !ok || info.Known != 2 || info.Low != 0.5 || info.High != 1 || info.Format != FormatSuperpixel {
		t.Fatalf("LookupInfo(DIGITS) = %+v, %v", info, ok)
	}
	if _, r, err := ResolveRatio("DIGITS", "low"); err != nil || r != 0.5 {
		t.Errorf("ResolveRatio(DIGITS, low) = %g, %v; want 0.5", r, err)
	}
	var warnings []string
	loader, builds := countBuilds()
	loader.Warn = func(m string) { warnings = append(warnings, m) }
	ds, err := loader.Load(root, "DIGITS")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 12 || ds.NumClasses != 3 || ds.FeatureDim != 3 || ds.FeatureKind != FeaturesSuperpixel {
		t.Fatalf("DIGITS: %d graphs, %d classes, dim %d, kind %s; want 12, 3, 3, superpixel",
			len(ds.Graphs), ds.NumClasses, ds.FeatureDim, ds.FeatureKind)
	}
	for i, g := range ds.Graphs {
		n := g.NumNodes
		if n < 1 || n > 10 || !g.Directed || g.NumEdges() != n*min(8, n-1) || len(g.EdgeWeight) != len(g.Src) {
			t.Errorf("graph %d: %d nodes, %d edges, directed %v", i, n, g.NumEdges(), g.Directed)
		}
		if ds.Labels[i] != i%3 {
			t.Errorf("graph %d: label %d, want %d", i, ds.Labels[i], i%3)
		}
	}
	if builds.Load() != 12 {
		t.Errorf("first load segmented %d images, want 12", builds.Load())
	}
	fp := Fingerprint(ds.Graphs)
	cache := filepath.Join(root, "DIGITS", "DIGITS-10sp.cache")
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no cache next to the data: %v", err)
	}

	reload := func(what string, wantBuilds int64) {
		t.Helper()
		builds.Store(0)
		warnings = nil
		ds, err := loader.Load(root, "DIGITS")
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := builds.Load(); got != wantBuilds {
			t.Errorf("%s: segmented %d images, want %d", what, got, wantBuilds)
		}
		if wantBuilds > 0 && len(warnings) == 0 && what != "stale input" {
			t.Errorf("%s: no warning about the rebuilt cache", what)
		}
		if what != "stale input" && Fingerprint(ds.Graphs) != fp {
			t.Errorf("%s: graphs differ from the first build", what)
		}
	}
	reload("cached", 0)
	damaged := bytes.Clone(good)
	damaged[len(damaged)/2] ^= 0x40
	os.WriteFile(cache, damaged, 0o644)
	reload("one flipped bit", 12)
	os.WriteFile(cache, good[:len(good)-100], 0o644)
	reload("truncated", 12)
	os.WriteFile(cache, []byte("garbage"), 0o644)
	reload("garbage", 12)
	if b, _ := os.ReadFile(cache); !bytes.Equal(b, good) {
		t.Error("the rebuilt cache differs from the first one")
	}
	reload("cached again", 0)
	// Stale: another label file gives another key; the old cache is not used.
	lab := make([]byte, 12)
	for i := range lab {
		lab[i] = byte((i + 1) % 3)
	}
	writeIDX(t, filepath.Join(root, "DIGITS", "labels-idx1-ubyte"), []int{12}, lab)
	reload("stale input", 12)
	ds, _ = loader.Load(root, "DIGITS")
	if ds.Labels[0] != 1 {
		t.Errorf("after changing the labels, graph 0 has label %d, want 1", ds.Labels[0])
	}
}

func TestUserConfigErrors(t *testing.T) {
	cases := []struct {
		name, cfg, want string
	}{
		{"syntax", "{\n\"format\": \"tu\",\n\"known\" 2}", ":3:"},
		{"unknown field", `{"format": "tu", "known": 2, "low": 0.1, "high": 0.2, "knwon": 3}`, "knwon"},
		{"format", `{"format": "csv", "known": 2, "low": 0.1, "high": 0.2}`, `"format" "csv"`},
		{"known", `{"format": "tu", "known": 0, "low": 0.1, "high": 0.2}`, `"known" 0`},
		{"known vs classes", `{"format": "tu", "classes": 3, "known": 3, "low": 0.1, "high": 0.2}`, `"classes" 3`},
		{"ratio", `{"format": "tu", "known": 2, "low": 0, "high": 0.2}`, `"low" 0`},
		{"idx files", `{"format": "idx", "known": 2, "low": 0.1, "high": 0.2}`, `"images" and "labels"`},
		{"tu with images", `{"format": "tu", "known": 2, "low": 0.1, "high": 0.2, "images": "x"}`, `format "idx"`},
	}
	for _, c := range cases {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "MINE"), 0o755)
		path := filepath.Join(root, "MINE", UserConfigFile)
		os.WriteFile(path, []byte(c.cfg), 0o644)
		_, err := RegisterUserDatasets(root)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", c.name, err, path, c.want)
		}
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "MNIST"), 0o755)
	os.WriteFile(filepath.Join(root, "MNIST", UserConfigFile), []byte(`{"format": "tu", "known": 2, "low": 0.1, "high": 0.2}`), 0o644)
	if _, err := RegisterUserDatasets(root); err == nil || !strings.Contains(err.Error(), "built-in") {
		t.Errorf("a config for MNIST: error %v, want one saying it is built in", err)
	}
}

// TestUserTUDataset registers a TU dataset and checks "classes".
func TestUserTUDataset(t *testing.T) {
	root := writeTU(t, t.TempDir(), "MYTU", tinyFiles(t), false)
	cfg := filepath.Join(root, "MYTU", UserConfigFile)
	os.WriteFile(cfg, []byte(`{"format": "tu", "known": 1, "low": 0.5, "high": 1}`), 0o644)
	if _, err := RegisterUserDatasets(root); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(root, "MYTU")
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := LookupInfo("MYTU"); !ok || in.Known != 1 || in.Classes != ds.NumClasses {
		t.Errorf("LookupInfo(MYTU) = %+v, %v; want known 1, classes %d", in, ok, ds.NumClasses)
	}
	os.WriteFile(cfg, []byte(`{"format": "tu", "classes": 7, "known": 1, "low": 0.5, "high": 1}`), 0o644)
	if _, err := RegisterUserDatasets(root); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root, "MYTU"); err == nil || !strings.Contains(err.Error(), cfg) {
		t.Errorf("classes 7 on a %d-class dataset: error %v, want one naming %s", ds.NumClasses, err, cfg)
	}
}

// TestRegisterUserDatasetsIgnoresFiles: plain files and folders without a
// config in the data directory are not datasets and no error.
func TestRegisterUserDatasetsIgnoresFiles(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(root, "Letter-high"), 0o755)
	if names, err := RegisterUserDatasets(root); err != nil || len(names) != 0 {
		t.Errorf("RegisterUserDatasets = %v, %v; want none, no error", names, err)
	}
}

// TestCacheReadOnlyDataDir: a data folder marked read-only is left alone
// (even for root); the cache goes to the user cache directory and is
// found there on the next load.
func TestCacheReadOnlyDataDir(t *testing.T) {
	root := tinyImageSet(t)
	if _, err := RegisterUserDatasets(root); err != nil {
		t.Fatal(err)
	}
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	t.Setenv("HOME", cacheHome)
	dir := filepath.Join(root, "DIGITS")
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	loader, builds := countBuilds()
	if _, err := loader.Load(root, "DIGITS"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "cache") {
			t.Errorf("read-only data folder got %s", e.Name())
		}
	}
	matches, _ := filepath.Glob(filepath.Join(cacheHome, "ugbench", "superpixels", "*-DIGITS-10sp.cache"))
	if len(matches) != 1 {
		t.Fatalf("user cache dir holds %v, want one DIGITS cache", matches)
	}
	builds.Store(0)
	if _, err := loader.Load(root, "DIGITS"); err != nil || builds.Load() != 0 {
		t.Errorf("second load: %v, %d images segmented; want the user cache used", err, builds.Load())
	}
}
