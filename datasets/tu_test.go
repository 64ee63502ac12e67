package datasets

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets/internal/nodata"
)

// sharedData is the real data directory: $UGBENCH_DATA, else
// ../shared/datasets beside the module (nodata.Dir), else that path even
// though it does not exist (the tests that need it skip, counted).
var sharedData = cmp.Or(nodata.Dir(), "../../shared/datasets")

// tuFiles maps a file suffix (e.g. "_A.txt") to its content.
type tuFiles map[string]string

// writeTU writes the dataset name into root/name/, gzipping every file if
// gz, and returns root.
func writeTU(t *testing.T, root, name string, files tuFiles, gz bool) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for suffix, content := range files {
		p := filepath.Join(dir, name+suffix)
		data := []byte(content)
		if gz {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(data)
			w.Close()
			data, p = b.Bytes(), p+".gz"
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// tinyFiles is a copy of testdata/TINY with one file per suffix.
func tinyFiles(t *testing.T) tuFiles {
	t.Helper()
	f := tuFiles{}
	for _, s := range []string{"_A.txt", "_graph_indicator.txt", "_graph_labels.txt", "_node_labels.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "TINY", "TINY"+s))
		if err != nil {
			t.Fatal(err)
		}
		f[s] = string(b)
	}
	return f
}

// checkGraphInvariants asserts the Graph contract on every graph of ds:
// sorted by (src, dst), symmetric, no self-loops or duplicates, ids in
// range, feature and node-label shapes.
func checkGraphInvariants(t *testing.T, ds *Dataset) {
	t.Helper()
	if len(ds.Labels) != len(ds.Graphs) {
		t.Fatalf("%d labels for %d graphs", len(ds.Labels), len(ds.Graphs))
	}
	seen := make([]bool, ds.NumClasses)
	for _, y := range ds.Labels {
		if y < 0 || y >= ds.NumClasses {
			t.Fatalf("label %d outside 0..%d", y, ds.NumClasses-1)
		}
		seen[y] = true
	}
	if slices.Contains(seen, false) {
		t.Fatalf("some class in 0..%d has no graph", ds.NumClasses-1)
	}
	for gi := range ds.Graphs {
		g := &ds.Graphs[gi]
		if g.NumNodes < 1 {
			t.Fatalf("graph %d: %d nodes", gi, g.NumNodes)
		}
		if len(g.Src) != len(g.Dst) || len(g.Src)%2 != 0 {
			t.Fatalf("graph %d: %d src, %d dst", gi, len(g.Src), len(g.Dst))
		}
		set := make(map[[2]int32]bool, len(g.Src))
		for e := range g.Src {
			u, v := g.Src[e], g.Dst[e]
			if u < 0 || v < 0 || int(u) >= g.NumNodes || int(v) >= g.NumNodes {
				t.Fatalf("graph %d: edge %d (%d,%d) outside 0..%d", gi, e, u, v, g.NumNodes-1)
			}
			if u == v {
				t.Fatalf("graph %d: self-loop %d", gi, u)
			}
			if e > 0 {
				pu, pv := g.Src[e-1], g.Dst[e-1]
				if pu > u || (pu == u && pv >= v) {
					t.Fatalf("graph %d: edges not strictly sorted at %d", gi, e)
				}
			}
			set[[2]int32{u, v}] = true
		}
		for k := range set {
			if !set[[2]int32{k[1], k[0]}] {
				t.Fatalf("graph %d: edge %v has no reverse", gi, k)
			}
		}
		if len(g.Features) != g.NumNodes*ds.FeatureDim {
			t.Fatalf("graph %d: %d features, want %d×%d", gi, len(g.Features), g.NumNodes, ds.FeatureDim)
		}
		if ds.NumNodeLabels > 0 && len(g.NodeLabels) != g.NumNodes {
			t.Fatalf("graph %d: %d node labels for %d nodes", gi, len(g.NodeLabels), g.NumNodes)
		}
	}
}

func TestLoadTINY(t *testing.T) {
	ds, err := LoadTU("testdata", "TINY")
	if err != nil {
		t.Fatal(err)
	}
	checkGraphInvariants(t, ds)
	if ds.Name != "TINY" || len(ds.Graphs) != 3 || ds.NumClasses != 3 {
		t.Fatalf("got name %q, %d graphs, %d classes", ds.Name, len(ds.Graphs), ds.NumClasses)
	}
	if want := []int{2, 0, 1}; !reflect.DeepEqual(ds.Labels, want) {
		t.Errorf("labels %v, want %v (3,1,2 remapped)", ds.Labels, want)
	}
	type edges struct{ src, dst []int32 }
	want := []edges{
		// 1-2 twice + duplicate, 2-3 one way, 3-3 self-loop dropped.
		{[]int32{0, 1, 1, 2}, []int32{1, 0, 2, 1}},
		{[]int32{0, 1}, []int32{1, 0}},
		{[]int32{0, 0, 0, 1, 1, 2, 2, 3}, []int32{1, 2, 3, 0, 2, 0, 1, 0}},
	}
	for i, w := range want {
		g := ds.Graphs[i]
		if !reflect.DeepEqual(g.Src, w.src) || !reflect.DeepEqual(g.Dst, w.dst) {
			t.Errorf("graph %d: src %v dst %v, want %v %v", i, g.Src, g.Dst, w.src, w.dst)
		}
	}
	if got := ds.Graphs[0].NumEdges(); got != 2 {
		t.Errorf("graph 0 has %d undirected edges, want 2", got)
	}
	// Node labels 5,5,7 | 7,9 | 5,5,9,9 → 0,0,1 | 1,2 | 0,0,2,2 and one-hot.
	if ds.FeatureKind != FeaturesNodeLabels || ds.FeatureDim != 3 || ds.NumNodeLabels != 3 {
		t.Fatalf("features %s dim %d, %d node labels", ds.FeatureKind, ds.FeatureDim, ds.NumNodeLabels)
	}
	wantNL := [][]int32{{0, 0, 1}, {1, 2}, {0, 0, 2, 2}}
	for i, w := range wantNL {
		if !reflect.DeepEqual(ds.Graphs[i].NodeLabels, w) {
			t.Errorf("graph %d node labels %v, want %v", i, ds.Graphs[i].NodeLabels, w)
		}
	}
	if want := []float32{0, 1, 0, 0, 0, 1}; !reflect.DeepEqual(ds.Graphs[1].Features, want) {
		t.Errorf("graph 1 features %v, want %v", ds.Graphs[1].Features, want)
	}
}

func TestLoadGzipEqualsPlain(t *testing.T) {
	plain, err := LoadTU("testdata", "TINY")
	if err != nil {
		t.Fatal(err)
	}
	root := writeTU(t, t.TempDir(), "TINY", tinyFiles(t), true)
	gz, err := LoadTU(root, "TINY")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, gz) {
		t.Fatal("gzipped fixture loads differently from the plain one")
	}
}

func TestLoadDegreeFeatures(t *testing.T) {
	f := tinyFiles(t)
	delete(f, "_node_labels.txt")
	ds, err := LoadTU(writeTU(t, t.TempDir(), "TINY", f, false), "TINY")
	if err != nil {
		t.Fatal(err)
	}
	checkGraphInvariants(t, ds)
	if ds.FeatureKind != FeaturesDegree || ds.FeatureDim != 2 || ds.NumNodeLabels != 0 {
		t.Fatalf("features %s dim %d, %d node labels", ds.FeatureKind, ds.FeatureDim, ds.NumNodeLabels)
	}
	want := [][]float32{{1, 1, 1, 2, 1, 1}, {1, 1, 1, 1}, {1, 3, 1, 2, 1, 2, 1, 1}}
	for i, w := range want {
		if !reflect.DeepEqual(ds.Graphs[i].Features, w) {
			t.Errorf("graph %d features %v, want %v", i, ds.Graphs[i].Features, w)
		}
		if ds.Graphs[i].NodeLabels != nil {
			t.Errorf("graph %d has node labels without a node_labels file", i)
		}
		deg := ds.Graphs[i].Degrees()
		for v, d := range deg {
			if float32(d) != ds.Graphs[i].Features[2*v+1] {
				t.Errorf("graph %d node %d: degree %d, feature %v", i, v, d, ds.Graphs[i].Features[2*v+1])
			}
		}
	}
}

func TestLoadLabelRemap(t *testing.T) {
	cases := []struct {
		name   string
		labels string
		want   []int
	}{
		{"one-based", "1\n2\n3\n", []int{0, 1, 2}},
		{"minus-one-one", "-1\n1\n-1\n", []int{0, 1, 0}},
		{"numeric-not-string-order", "10\n9\n2\n", []int{2, 1, 0}},
		{"floats-and-spaces", " 2.0 \n0.5\r\n2\n", []int{1, 0, 1}},
		{"trailing-blank-lines", "7\n7\n8\n\n\n", []int{0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := tinyFiles(t)
			f["_graph_labels.txt"] = c.labels
			ds, err := LoadTU(writeTU(t, t.TempDir(), "TINY", f, false), "TINY")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ds.Labels, c.want) {
				t.Errorf("labels %v, want %v", ds.Labels, c.want)
			}
			if want := slices.Max(c.want) + 1; ds.NumClasses != want {
				t.Errorf("NumClasses %d, want %d", ds.NumClasses, want)
			}
		})
	}
}

// TestLoadAttributesAndGraphAttributes mimics COLORS-3: node attributes,
// no graph_labels (graph_attributes is the label) and a node_attention
// file that must not be read (here it is garbage, so reading it would fail).
func TestLoadAttributesAndGraphAttributes(t *testing.T) {
	f := tinyFiles(t)
	delete(f, "_graph_labels.txt")
	f["_graph_attributes.txt"] = "0\n2\n1\n"
	f["_node_attention.txt"] = "garbage, not, numbers\n"
	f["_node_attributes.txt"] = "0, 1, 0, 0\n1,0,0,0\n0 ,1, 0,0\n0, 0, 1, 0\n" +
		"0, 1, 0, 0\n0, 1, 0, 0\n1, 0, 1, 1\n0, 0, 0, 0\n0, 0.5, 0, -2.5e1\n"
	ds, err := LoadTU(writeTU(t, t.TempDir(), "TINY", f, true), "TINY")
	if err != nil {
		t.Fatal(err)
	}
	checkGraphInvariants(t, ds)
	if ds.FeatureKind != FeaturesAttributes || ds.FeatureDim != 4 {
		t.Fatalf("features %s dim %d", ds.FeatureKind, ds.FeatureDim)
	}
	if ds.NumNodeLabels != 3 || ds.Graphs[0].NodeLabels == nil {
		t.Errorf("node labels must be filled next to attributes: %d", ds.NumNodeLabels)
	}
	if want := []int{0, 2, 1}; !reflect.DeepEqual(ds.Labels, want) {
		t.Errorf("labels %v, want %v", ds.Labels, want)
	}
	if want := []float32{1, 0, 1, 1, 0, 0, 0, 0, 0, 0.5, 0, -25}; !reflect.DeepEqual(ds.Graphs[2].Features[4:], want) {
		t.Errorf("graph 2 features %v, want …%v", ds.Graphs[2].Features, want)
	}
}

// TestLoadErrors checks that every kind of malformed input gives an error
// naming the file and the 1-based line.
func TestLoadErrors(t *testing.T) {
	type edit func(f tuFiles)
	set := func(suffix, content string) edit { return func(f tuFiles) { f[suffix] = content } }
	del := func(suffix string) edit { return func(f tuFiles) { delete(f, suffix) } }
	both := func(a, b edit) edit { return func(f tuFiles) { a(f); b(f) } }
	const attrs = "1, 2\n3, 4\n5, 6\n7, 8\n9, 10\n11, 12\n13, 14\n15, 16\n17, 18\n"
	cases := []struct {
		name string
		edit edit
		gz   bool
		want string
	}{
		{"missing A", del("_A.txt"), false, "missing required file TINY_A.txt[.gz]"},
		{"missing indicator", del("_graph_indicator.txt"), false, "missing required file TINY_graph_indicator.txt[.gz]"},
		{"missing labels", del("_graph_labels.txt"), false, "missing required file TINY_graph_labels.txt[.gz] (or TINY_graph_attributes.txt[.gz])"},
		{"A three columns", set("_A.txt", "1, 2\n2, 1, 3\n"), false, "TINY_A.txt:2: got 3 columns, want 2"},
		{"A one column", set("_A.txt", "1, 2\n2\n"), false, "TINY_A.txt:2: got 1 columns, want 2"},
		{"A node outside", set("_A.txt", "1, 2\n2, 1\n9, 10\n"), false, "TINY_A.txt:3: node id 10 outside 1..9"},
		{"A node outside gz", set("_A.txt", "1, 2\n2, 1\n99999, 1\n"), true, "TINY_A.txt.gz:3: node id 99999 outside 1..9"},
		{"A node zero", set("_A.txt", "1, 2\n0, 1\n"), false, "TINY_A.txt:2: node id 0 outside 1..9"},
		{"A node huge", set("_A.txt", "1, 2\n1, 99999999999\n"), false, "TINY_A.txt:2: node id 99999999999 outside 1..9"},
		{"A node negative", set("_A.txt", "1, 2\n-3, 1\n"), false, "TINY_A.txt:2: node id -3 outside 1..9"},
		{"A edge between graphs", set("_A.txt", "1, 2\n3, 4\n"), false, "TINY_A.txt:2: edge 3, 4 joins graph 1 and graph 2"},
		{"A non-number", set("_A.txt", "1, 2\n2, x\n"), false, `TINY_A.txt:2: not an integer: "x"`},
		{"A float id", set("_A.txt", "1, 2.0\n"), false, `TINY_A.txt:1: not an integer: "2.0"`},
		{"A empty field", set("_A.txt", "1, 2\n2,, 1\n"), false, "TINY_A.txt:2: empty field"},
		{"A trailing comma", set("_A.txt", "1, 2,\n"), false, "TINY_A.txt:1: empty field"},
		{"A space separated", set("_A.txt", "1 2\n"), false, `TINY_A.txt:1: not an integer: "1 2"`},
		{"A empty file", set("_A.txt", ""), false, "TINY_A.txt:1: empty file"},
		{"A blank line inside", set("_A.txt", "1, 2\n\n2, 1\n"), false, "TINY_A.txt:2: empty line"},
		{"A earlier range error wins", set("_A.txt", "1, 2\n1, 50\nfoo\n"), false, "TINY_A.txt:2: node id 50 outside 1..9"},
		{"indicator decreasing", set("_graph_indicator.txt", "1\n1\n1\n2\n2\n3\n3\n2\n3\n"), false,
			"TINY_graph_indicator.txt:8: graph ids not non-decreasing: graph 2 after graph 3"},
		{"indicator gap", set("_graph_indicator.txt", "1\n1\n1\n3\n3\n3\n3\n3\n3\n"), false,
			"TINY_graph_indicator.txt:4: graph 2 has no nodes"},
		{"indicator starts at 2", set("_graph_indicator.txt", "2\n2\n"), false,
			"TINY_graph_indicator.txt:1: graph 1 has no nodes"},
		{"indicator empty", set("_graph_indicator.txt", "\n"), true, "TINY_graph_indicator.txt.gz:1: empty file"},
		{"indicator two columns", set("_graph_indicator.txt", "1\n1, 1\n"), false, "TINY_graph_indicator.txt:2: got 2 columns, want 1"},
		{"labels too few", set("_graph_labels.txt", "1\n2\n"), false,
			"TINY_graph_labels.txt:3: unexpected end of file: 2 labels for 3 graphs"},
		{"labels too many (graph without nodes)", set("_graph_labels.txt", "1\n2\n3\n4\n"), false,
			"TINY_graph_labels.txt:4: graph 4 has no nodes"},
		{"labels non-number", set("_graph_labels.txt", "1\nabc\n3\n"), false, `TINY_graph_labels.txt:2: not a number: "abc"`},
		{"labels NaN", set("_graph_labels.txt", "1\nNaN\n3\n"), false, `TINY_graph_labels.txt:2: not a number: "NaN"`},
		{"labels two columns", set("_graph_labels.txt", "1\n2\n3, 4\n"), false, "TINY_graph_labels.txt:3: got 2 columns, want 1"},
		{"labels empty", set("_graph_labels.txt", ""), false, "TINY_graph_labels.txt:1: empty file"},
		{"graph attributes as labels", both(del("_graph_labels.txt"), set("_graph_attributes.txt", "1\n2\n")), false,
			"TINY_graph_attributes.txt:3: unexpected end of file"},
		{"attributes column count", set("_node_attributes.txt", "1, 2\n3, 4\n5\n"), false,
			"TINY_node_attributes.txt:3: got 1 columns, want 2 (as on line 1)"},
		{"attributes too few rows", set("_node_attributes.txt", "1, 2\n3, 4\n"), false,
			"TINY_node_attributes.txt:3: unexpected end of file: 2 attribute rows for 9 nodes"},
		{"attributes too many rows", set("_node_attributes.txt", attrs+"1, 1\n"), false,
			"TINY_node_attributes.txt:10: more lines than the 9 nodes"},
		{"attributes overflow float32", set("_node_attributes.txt", "1, 2\n3, 1e300\n"), false,
			"TINY_node_attributes.txt:2: value 1e+300 out of float32 range"},
		{"attributes overflow float64", set("_node_attributes.txt", "1, 2\n3, 1e400\n"), false,
			`TINY_node_attributes.txt:2: number out of range: "1e400"`},
		{"node labels non-number", set("_node_labels.txt", "1\n1\n1\n1\n1\n1\n1\n-\n1\n"), false,
			`TINY_node_labels.txt:8: not a number: "-"`},
		{"node labels too few", set("_node_labels.txt", "1\n"), false,
			"TINY_node_labels.txt:2: unexpected end of file: 1 node labels for 9 nodes"},
		{"corrupt gzip", set("_A.txt", "1, 2\n"), false, ""}, // replaced below
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := tinyFiles(t)
			c.edit(f)
			root := writeTU(t, t.TempDir(), "TINY", f, c.gz)
			want := c.want
			if c.name == "corrupt gzip" {
				a := filepath.Join(root, "TINY", "TINY_A.txt")
				os.Remove(a)
				if err := os.WriteFile(a+".gz", []byte("\x1f\x8b\x08\x00garbage"), 0o644); err != nil {
					t.Fatal(err)
				}
				want = "TINY_A.txt.gz"
			}
			_, err := LoadTU(root, "TINY")
			if err == nil {
				t.Fatalf("no error, want %q", want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q\nwant it to contain %q", err, want)
			}
			if !strings.HasPrefix(err.Error(), "dataset TINY: ") {
				t.Errorf("error %q does not name the dataset", err)
			}
			var pe *ParseError
			if strings.Contains(want, ".txt:") || strings.Contains(want, ".gz:") {
				if !errors.As(err, &pe) {
					t.Errorf("error %q does not wrap a *ParseError", err)
				} else if got := fmt.Sprintf("%s:%d: ", pe.File, pe.Line); !strings.HasPrefix(want, got) {
					t.Errorf("ParseError %s:%d, want %q", pe.File, pe.Line, want)
				}
			}
		})
	}
}

func TestLoadEntryPoint(t *testing.T) {
	root := writeTU(t, t.TempDir(), "TINY", tinyFiles(t), true)
	if _, err := Load(root, "TINY"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"MNIST", "CIFAR10"} {
		_, err := Load(root, name)
		for _, w := range []string{"missing raw file", filepath.Join(root, name), "bench data fetch " + name} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%s) error %v, want it to contain %q", name, err, w)
			}
		}
	}
	_, err := Load(root, "REDDIT-MULTI-12K")
	want := []string{filepath.Join(root, "REDDIT-MULTI-12K"), "--data-dir", "UGBENCH_DATA", "TINY"}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing dataset: error %v, want it to contain %q", err, w)
		}
	}
	missing := filepath.Join(root, "no-such-dir")
	_, err = Load(missing, "TINY")
	for _, w := range []string{missing, "--data-dir", "UGBENCH_DATA"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing data dir: error %v, want it to contain %q", err, w)
		}
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := Load(root, bad); err == nil {
			t.Errorf("Load(%q) gave no error", bad)
		}
	}
}

func TestDataDir(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	if got := DataDir(""); got != "./data" {
		t.Errorf("DataDir(\"\") = %q without env, want ./data", got)
	}
	t.Setenv(EnvDataDir, "/env/data")
	if got := DataDir(""); got != "/env/data" {
		t.Errorf("DataDir(\"\") = %q, want the env value", got)
	}
	if got := DataDir("/flag"); got != "/flag" {
		t.Errorf("DataDir(\"/flag\") = %q, want the flag value", got)
	}
}

func TestAvailable(t *testing.T) {
	root := t.TempDir()
	writeTU(t, root, "B-set", tinyFiles(t), true)
	writeTU(t, root, "A-set", tinyFiles(t), false)
	writeTU(t, root, "NoA", tuFiles{"_graph_indicator.txt": "1\n"}, false)
	os.WriteFile(filepath.Join(root, "file_A.txt"), []byte("1, 1\n"), 0o644)
	if got, want := Available(root), []string{"A-set", "B-set"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Available = %v, want %v", got, want)
	}
	if got := Available(filepath.Join(root, "nope")); len(got) != 0 {
		t.Errorf("Available(missing) = %v", got)
	}
}

// requireData skips the test when the shared real data is absent, unless
// name is embedded (Load(sharedData, name) then reads the copy in the
// binary, as on a fresh clone); requireDisk skips it even then.
func requireData(tb testing.TB, name string) {
	tb.Helper()
	if !IsEmbedded(name) {
		requireDisk(tb, name)
	}
}

// requireDisk skips the test, counted for lack of data, when
// sharedData/name is absent.
func requireDisk(tb testing.TB, name string) {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(sharedData, name)); err != nil {
		nodata.SkipNoData(tb, "real data %s not present: %v", name, err)
	}
}

// TestRealStats checks the paper's Table 1 (and the TU statistics of the
// extra fixtures, as measured when the files were stored) on the real files.
func TestRealStats(t *testing.T) {
	cases := []struct {
		name               string
		graphs, classes    int
		avgNodes, avgEdges string
		dim                int
		kind               FeatureKind
	}{
		{"COIL-DEL", 3900, 100, "21.54", "54.24", 2, FeaturesAttributes},
		{"Letter-high", 2250, 15, "4.67", "4.50", 2, FeaturesAttributes},
		{"COLORS-3", 10500, 11, "61.31", "91.03", 4, FeaturesAttributes},
		{"IMDB-BINARY", 1000, 2, "19.77", "96.53", 2, FeaturesDegree},
		{"IMDB-MULTI", 1500, 3, "13.00", "65.94", 2, FeaturesDegree},
		{"Letter-low", 2250, 15, "4.68", "3.13", 2, FeaturesAttributes},
		{"Letter-med", 2250, 15, "4.67", "3.21", 2, FeaturesAttributes},
		{"COIL-RAG", 3900, 100, "3.01", "3.02", 64, FeaturesAttributes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireData(t, c.name)
			start := time.Now()
			ds, err := Load(sharedData, c.name)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("loaded %s in %v", c.name, time.Since(start))
			checkGraphInvariants(t, ds)
			s := ComputeStats(ds)
			got := fmt.Sprintf("%d/%d/%.2f/%.2f dim %d %s", s.Graphs, s.Classes, s.AvgNodes, s.AvgEdges, s.FeatureDim, s.FeatureKind)
			want := fmt.Sprintf("%d/%d/%s/%s dim %d %s", c.graphs, c.classes, c.avgNodes, c.avgEdges, c.dim, c.kind)
			if got != want {
				t.Errorf("stats %s, want %s", got, want)
			}
			if info, ok := LookupInfo(c.name); ok && info.InPaper {
				paper := fmt.Sprintf("%d/%d/%.2f/%.2f", info.PaperGraphs, info.PaperClasses, info.PaperAvgNodes, info.PaperAvgEdges)
				if ours := fmt.Sprintf("%d/%d/%.2f/%.2f", s.Graphs, s.Classes, s.AvgNodes, s.AvgEdges); ours != paper {
					t.Errorf("stats %s differ from the paper's %s", ours, paper)
				}
			}
			if info, ok := LookupInfo(c.name); ok && info.Classes != s.Classes {
				t.Errorf("Info.Classes %d, data has %d", info.Classes, s.Classes)
			}
			sum := 0
			for _, n := range s.ClassCounts {
				sum += n
			}
			if sum != s.Graphs {
				t.Errorf("class counts sum to %d, want %d", sum, s.Graphs)
			}
		})
	}
}

// TestRealCOLORS3Labels checks that the COLORS-3 label (graph_attributes,
// values 0..10, remapped to themselves) is the number of nodes whose
// colour vector is exactly green (0, 1, 0, 0): the COLORS task of Knyazev
// et al., NeurIPS 2019.
func TestRealCOLORS3Labels(t *testing.T) {
	requireData(t, "COLORS-3")
	ds, err := Load(sharedData, "COLORS-3")
	if err != nil {
		t.Fatal(err)
	}
	for gi, g := range ds.Graphs {
		green := 0
		for v := range g.NumNodes {
			if slices.Equal(g.Features[4*v:4*v+4], []float32{0, 1, 0, 0}) {
				green++
			}
		}
		if green != ds.Labels[gi] {
			t.Fatalf("graph %d: label %d, %d green nodes", gi, ds.Labels[gi], green)
		}
	}
}

// BenchmarkLoadTU measures loading real TU datasets; the main case is
// COLORS-3 (643,773 nodes, 955,788 edge lines, gzipped), the largest TU
// dataset present. Sub-benchmarks of absent datasets are skipped.
func BenchmarkLoadTU(b *testing.B) {
	for _, name := range []string{"COLORS-3", "COIL-DEL", "Letter-high"} {
		b.Run(name, func(b *testing.B) {
			requireDisk(b, name) // LoadTU reads the disk only
			for b.Loop() {
				if _, err := LoadTU(sharedData, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
