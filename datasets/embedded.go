package datasets

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// embedded holds the one dataset the repository carries: Letter-high, the
// original TU archive's files (bknyaz/graph_nn@72eaa1c6, data/Letter-high.zip),
// each gzipped (`gzip -9 -n`, about 230 KB in all), byte-identical to
// CI's copy of the archive's files (docs/datasets.md; their SHA-256 are
// in TestEmbeddedFilesAreTheOriginals).
//
//go:embed embedded/Letter-high
var embedded embed.FS

// EmbeddedDatasets lists the datasets compiled into the binary (Load uses
// them when the data directory does not hold them): "Letter-high".
func EmbeddedDatasets() []string { return []string{"Letter-high"} }

// IsEmbedded reports whether name is compiled into the binary.
func IsEmbedded(name string) bool { return slices.Contains(EmbeddedDatasets(), name) }

// embeddedFS returns the embedded files of name (its root holds
// NAME_A.txt.gz and the rest), or nil.
func embeddedFS(name string) fs.FS {
	if !IsEmbedded(name) {
		return nil
	}
	sub, err := fs.Sub(embedded, "embedded/"+name)
	if err != nil {
		return nil
	}
	return sub
}

// onDisk reports whether dataDir/name is a directory.
func onDisk(dataDir, name string) bool {
	st, err := os.Stat(filepath.Join(dataDir, name))
	return err == nil && st.IsDir()
}

// LoadEmbedded loads the embedded copy of name (see EmbeddedDatasets),
// whatever the data directory holds; an error if name is not embedded.
func LoadEmbedded(name string) (*Dataset, error) {
	fsys := embeddedFS(name)
	if fsys == nil {
		return nil, fmt.Errorf("dataset %s is not embedded (embedded: %v)", name, EmbeddedDatasets())
	}
	return loadTUFS(fsys, "(embedded) "+name, name)
}

// Present lists the datasets that Load can read with dataDir, sorted: those
// of Available(dataDir), the superpixel datasets (MNIST, CIFAR10, a
// registered user IDX set) whose raw images are all there, and the
// embedded ones (see EmbeddedDatasets).
func Present(dataDir string) []string {
	names := Available(dataDir)
	srcs := []superpixelSource{mnistSource, cifarSource}
	userMu.Lock()
	var users []string
	for n := range userInfos {
		users = append(users, n)
	}
	userMu.Unlock()
	for _, n := range users {
		if src, ok := userSource(n); ok {
			srcs = append(srcs, src)
		}
	}
	for _, src := range srcs {
		if _, err := src.resolve(dataDir); err == nil {
			names = append(names, src.Name)
		}
	}
	for _, e := range EmbeddedDatasets() {
		if !slices.Contains(names, e) {
			names = append(names, e)
		}
	}
	slices.Sort(names)
	return names
}
