package ugnn

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/augment"
	"github.com/ugbench/ugbench/methods/gnn"
)

var updateViews = flag.Bool("update-views", false, "rewrite testdata/views.golden")

// viewDigest is a SHA-256 of a list of perturbed graphs: node counts, edge
// lists and the bits of every feature value, in order.
func viewDigest(views []datasets.Graph) string {
	h := sha256.New()
	var buf [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	for _, g := range views {
		put(uint32(g.NumNodes))
		put(uint32(len(g.Src)))
		for e := range g.Src {
			put(uint32(g.Src[e]))
			put(uint32(g.Dst[e]))
		}
		for _, f := range g.Features {
			put(math.Float32bits(f))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestViewsGolden: UGNN's node- and edge-deleted views of every real
// Letter-high graph, for several run seeds and the purposes UGNN draws
// ("ood" subgraphs, "view1"/"view2" of the semi-supervised step), hash to
// testdata/views.golden. The golden file was written by the code before
// the perturbations moved to package augment, so a stored UGNN run sees
// bit-identical views after the move (rewrite with -update-views only for
// a deliberate change of UGNN's draws).
func TestViewsGolden(t *testing.T) {
	ds := datasetstest.Load(t, "Letter-high")
	all := make([]int, len(ds.Graphs))
	for i := range all {
		all[i] = i
	}
	feats := gnn.StandardizeFeatures(ds.Graphs, ds.FeatureDim, all) // over all graphs, as when the golden file was written
	var lines []string
	for _, seed := range []int64{0, 1, 2, 7} {
		for _, k := range []struct {
			purpose string
			a, b    int
			edges   bool
		}{{"ood", 1, 2, false}, {"view2", 3, 0, false}, {"view1", 3, 0, true}} {
			views := make([]datasets.Graph, len(ds.Graphs))
			for g := range ds.Graphs {
				if k.edges {
					views[g], _ = augment.DropEdges(&ds.Graphs[g], feats.Nodes[g], 0.2, augment.Stream(seed, k.purpose, k.a, k.b, g))
				} else {
					views[g], _ = augment.DropNodes(&ds.Graphs[g], feats.Nodes[g], feats.Dim, 0.2, augment.Stream(seed, k.purpose, k.a, k.b, g))
				}
			}
			lines = append(lines, fmt.Sprintf("seed=%d purpose=%s a=%d b=%d edges=%v %s", seed, k.purpose, k.a, k.b, k.edges, viewDigest(views)))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "views.golden")
	if *updateViews {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("views differ from %s:\ngot\n%swant\n%s", path, got, want)
	}
}
