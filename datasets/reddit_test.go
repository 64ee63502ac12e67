package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREDDITLoaderPathOnIMDB: REDDIT-MULTI-12K has no node features, like
// IMDB-BINARY and IMDB-MULTI, so it takes the [1, degree] path. The real
// IMDB files, renamed REDDIT-MULTI-12K, load through Load with the REDDIT
// protocol entry: every feature row is [1, number of distinct neighbours].
func TestREDDITLoaderPathOnIMDB(t *testing.T) {
	for _, src := range []string{"IMDB-BINARY", "IMDB-MULTI"} {
		requireData(t, src)
		root := t.TempDir()
		dir := filepath.Join(root, "REDDIT-MULTI-12K")
		os.MkdirAll(dir, 0o755)
		entries, err := os.ReadDir(filepath.Join(sharedData, src))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(sharedData, src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, strings.Replace(e.Name(), src, "REDDIT-MULTI-12K", 1)), b, 0o644)
		}
		ds, err := Load(root, "REDDIT-MULTI-12K")
		if err != nil {
			t.Fatal(err)
		}
		orig, err := Load(sharedData, src)
		if err != nil {
			t.Fatal(err)
		}
		if ds.FeatureKind != FeaturesDegree || ds.FeatureDim != 2 || Fingerprint(ds.Graphs) != Fingerprint(orig.Graphs) {
			t.Errorf("%s as REDDIT: kind %s dim %d, same graphs %v", src, ds.FeatureKind, ds.FeatureDim,
				Fingerprint(ds.Graphs) == Fingerprint(orig.Graphs))
		}
		for g, gr := range ds.Graphs {
			deg := gr.Degrees()
			for v := range gr.NumNodes {
				if gr.Features[2*v] != 1 || gr.Features[2*v+1] != float32(deg[v]) {
					t.Fatalf("%s graph %d node %d: features %v, want [1, %d]", src, g, v, gr.Features[2*v:2*v+2], deg[v])
				}
			}
		}
		if in, ok := LookupInfo("REDDIT-MULTI-12K"); !ok || in.Known != 7 || in.Classes != 11 || in.Low != 0.3 || in.High != 0.7 {
			t.Errorf("REDDIT-MULTI-12K protocol entry %+v", in)
		}
	}
}
