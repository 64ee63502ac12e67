package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// superpixelSource describes a superpixel dataset's raw input: files in
// dataDir/Name (each plain or gzipped) and how to read the protocol pool
// of images from them.
type superpixelSource struct {
	Name   string
	Params SuperpixelParams
	// Files are the raw file names (without ".gz") in dataDir/Name.
	Files []string
	// Pool describes the images used, for the cache key.
	Pool string
	// Read reads the pool from the resolved paths of Files.
	Read func(paths []string) (*imageSet, error)
}

// mnistSource is MNIST-75sp on Dwivedi's 55,000-image training split:
// train-images-idx3 records 5000..59999 (records 0..4999 are their
// validation set: benchmarking-gnns data/superpixels.py, num_val = 5000).
var mnistSource = superpixelSource{
	Name:   "MNIST",
	Params: MNISTSuperpixels,
	Files:  []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte"},
	Pool:   "train[5000:60000]",
	Read: func(p []string) (*imageSet, error) {
		s, err := readIDXImages(p[0], p[1])
		if err != nil {
			return nil, err
		}
		if s.Len() != 60000 || s.H != 28 || s.W != 28 || s.C != 1 {
			return nil, fmt.Errorf("%s: %d images of %d×%d×%d, want MNIST's 60000 of 28×28",
				filepath.Base(p[0]), s.Len(), s.H, s.W, s.C)
		}
		return s.slice(5000, 60000), nil
	},
}

// cifarSource is CIFAR10-150sp on Dwivedi's 45,000-image training split:
// data_batch_1 records 5000..9999, then data_batch_2..5.
var cifarSource = superpixelSource{
	Name:   "CIFAR10",
	Params: CIFAR10Superpixels,
	Files:  []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"},
	Pool:   "data_batch_1[5000:]+data_batch_2..5",
	Read: func(p []string) (*imageSet, error) {
		var sets []*imageSet
		for i, path := range p {
			s, err := readCIFARBatch(path)
			if err != nil {
				return nil, err
			}
			if s.Len() != 10000 {
				return nil, fmt.Errorf("%s: %d records, want 10000", filepath.Base(path), s.Len())
			}
			if i == 0 {
				s = s.slice(5000, 10000)
			}
			sets = append(sets, s)
		}
		return concatImages(sets...), nil
	},
}

// superpixelSourceOf returns the source of a built-in superpixel dataset.
func superpixelSourceOf(name string) (superpixelSource, bool) {
	switch name {
	case "MNIST":
		return mnistSource, true
	case "CIFAR10":
		return cifarSource, true
	}
	return superpixelSource{}, false
}

// cacheVersion changes whenever the builder's output changes.
const cacheVersion = "ugbench-superpixels/2 slic=skimage-0.15 knn=intent"

// cacheMagic starts every superpixel cache file.
const cacheMagic = "UGBSP002"

// resolve finds the raw files of src in dataDir/src.Name.
func (src superpixelSource) resolve(dataDir string) ([]string, error) {
	dir := filepath.Join(dataDir, src.Name)
	var paths []string
	var missing []string
	for _, f := range src.Files {
		p := findFile(os.DirFS(dir), f)
		if p == "" {
			missing = append(missing, f+"[.gz]")
			continue
		}
		paths = append(paths, filepath.Join(dir, p))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("dataset %s: missing raw file(s) %s in %s; run `bench data fetch %s` or set --data-dir / %s",
			src.Name, strings.Join(missing, ", "), dir, src.Name, EnvDataDir)
	}
	return paths, nil
}

// cacheKey is the SHA-256 of the builder's version and parameters, the
// pool and every input file's name and SHA-256.
func (src superpixelSource) cacheKey(paths []string) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%+v\n%s\n", cacheVersion, src.Name, src.Params, src.Pool)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return [32]byte{}, err
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			return [32]byte{}, fmt.Errorf("%s: %v", p, err)
		}
		fmt.Fprintf(h, "%s %x\n", filepath.Base(p), fh.Sum(nil))
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k, nil
}

// cachePaths are where the cache of src may live: next to the raw data
// first, then the user's cache directory. The folder of the raw data is
// used only if its permission bits allow writing (a shared data folder
// marked read-only stays untouched even for root) or it already holds the
// cache.
func (src superpixelSource) cachePaths(dataDir string) []string {
	base := fmt.Sprintf("%s-%dsp.cache", src.Name, src.Params.MaxNodes)
	var out []string
	next := filepath.Join(dataDir, src.Name, base)
	st, err := os.Stat(filepath.Dir(next))
	if _, cerr := os.Stat(next); cerr == nil || (err == nil && st.Mode().Perm()&0o200 != 0) {
		out = append(out, next)
	}
	if d, err := os.UserCacheDir(); err == nil {
		abs, _ := filepath.Abs(filepath.Join(dataDir, src.Name))
		sum := sha256.Sum256([]byte(abs))
		out = append(out, filepath.Join(d, "ugbench", "superpixels", fmt.Sprintf("%x-%s", sum[:6], base)))
	}
	return out
}

// encodeCache serialises ds under key: magic, key, graph count, feature
// width, out-degree cap k, then per graph its node count (uint16) and raw
// class (uint8), then all node features (float32 bits), all edge targets
// (uint16; node i's min(k, n−1) out-edges come i-th, so sources are
// implicit) and all edge weights (float32 bits), then the SHA-256 of
// everything before it (little-endian throughout).
func encodeCache(key [32]byte, ds *Dataset, rawLabels []uint8, k int) []byte {
	nodes, edges := 0, 0
	for i := range ds.Graphs {
		nodes += ds.Graphs[i].NumNodes
		edges += len(ds.Graphs[i].Dst)
	}
	b := make([]byte, 0, len(cacheMagic)+32+12+3*len(ds.Graphs)+4*nodes*ds.FeatureDim+6*edges+32)
	b = append(b, cacheMagic...)
	b = append(b, key[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ds.Graphs)))
	b = binary.LittleEndian.AppendUint32(b, uint32(ds.FeatureDim))
	b = binary.LittleEndian.AppendUint32(b, uint32(k))
	for i := range ds.Graphs {
		b = binary.LittleEndian.AppendUint16(b, uint16(ds.Graphs[i].NumNodes))
	}
	b = append(b, rawLabels...)
	for i := range ds.Graphs {
		for _, v := range ds.Graphs[i].Features {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	for i := range ds.Graphs {
		for _, v := range ds.Graphs[i].Dst {
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		}
	}
	for i := range ds.Graphs {
		for _, v := range ds.Graphs[i].EdgeWeight {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// errStaleCache marks a cache built from other inputs or parameters.
var errStaleCache = errors.New("stale (built from other inputs or parameters)")

// decodeCache parses a cache file into the graphs and raw classes; any
// damage is an error, and a cache of another key is errStaleCache. The
// graphs' slices are windows into a few dataset-wide arrays.
func decodeCache(b []byte, key [32]byte) (graphs []Graph, dim int, rawLabels []uint8, err error) {
	m := len(cacheMagic)
	hdr := m + 32 + 12
	if len(b) < hdr+32 || string(b[:m]) != cacheMagic {
		return nil, 0, nil, errors.New("not a superpixel cache file")
	}
	body, trailer := b[:len(b)-32], b[len(b)-32:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], trailer) {
		return nil, 0, nil, errors.New("checksum mismatch (corrupt or truncated)")
	}
	if !bytes.Equal(b[m:m+32], key[:]) {
		return nil, 0, nil, errStaleCache
	}
	n := int(binary.LittleEndian.Uint32(b[m+32:]))
	dim = int(binary.LittleEndian.Uint32(b[m+36:]))
	k := int(binary.LittleEndian.Uint32(b[m+40:]))
	p := body[hdr:]
	if len(p) < 3*n {
		return nil, 0, nil, errors.New("truncated")
	}
	graphs = make([]Graph, n)
	nodes, edges := 0, 0
	for i := range n {
		c := int(binary.LittleEndian.Uint16(p[2*i:]))
		graphs[i].NumNodes = c
		nodes += c
		edges += c * min(k, c-1)
	}
	rawLabels = bytes.Clone(p[2*n : 3*n])
	p = p[3*n:]
	if len(p) != 4*nodes*dim+6*edges {
		return nil, 0, nil, fmt.Errorf("%d data bytes, want %d", len(p), 4*nodes*dim+6*edges)
	}
	feats := make([]float32, nodes*dim)
	for i := range feats {
		feats[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	p = p[4*nodes*dim:]
	src, dst, w := make([]int32, edges), make([]int32, edges), make([]float32, edges)
	for i := range dst {
		dst[i] = int32(binary.LittleEndian.Uint16(p[2*i:]))
	}
	p = p[2*edges:]
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	fo, eo := 0, 0
	for i := range graphs {
		g := &graphs[i]
		c := g.NumNodes
		deg := min(k, c-1)
		ne := c * deg
		for e := range ne {
			src[eo+e] = int32(e / max(deg, 1))
			if int(dst[eo+e]) >= c {
				return nil, 0, nil, fmt.Errorf("graph %d: edge target %d of %d nodes", i, dst[eo+e], c)
			}
		}
		g.Features = feats[fo : fo+c*dim : fo+c*dim]
		g.Src, g.Dst, g.EdgeWeight = src[eo:eo+ne:eo+ne], dst[eo:eo+ne:eo+ne], w[eo:eo+ne:eo+ne]
		g.Directed = true
		fo += c * dim
		eo += ne
	}
	return graphs, dim, rawLabels, nil
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so a reader never sees a half-written cache.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func (l Loader) warnCache(format string, args ...any) {
	if l.Warn != nil {
		l.Warn(fmt.Sprintf(format, args...))
	}
}

// loadSuperpixels returns the superpixel dataset of src from its cache,
// or builds it from the raw images (in parallel, see buildWorkers) and
// writes the cache: next to the raw data, else (read-only data) in the
// user cache directory. A cache whose checksum, key or layout does not
// match is never used: it is rebuilt and overwritten.
func (l Loader) loadSuperpixels(dataDir string, src superpixelSource) (*Dataset, error) {
	paths, err := src.resolve(dataDir)
	if err != nil {
		return nil, err
	}
	key, err := src.cacheKey(paths)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", src.Name, err)
	}
	workers := buildWorkers()
	cps := src.cachePaths(dataDir)
	// Another process building the same cache (two grid processes) is
	// waited for, then its cache is read.
	unlock := lockCache(cps)
	defer unlock()
	for _, cp := range cps {
		b, err := os.ReadFile(cp)
		if err != nil {
			continue
		}
		graphs, dim, raw, err := decodeCache(b, key)
		if err != nil {
			l.warnCache("superpixel cache %s: %v; rebuilding it", cp, err)
			continue
		}
		return superpixelDataset(src.Name, graphs, dim, raw), nil
	}
	set, err := src.Read(paths)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", src.Name, err)
	}
	graphs, err := buildSuperpixelGraphs(src.Name, set, src.Params, workers, l.Progress)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", src.Name, err)
	}
	ds := superpixelDataset(src.Name, graphs, set.C+2, set.Labels)
	data := encodeCache(key, ds, set.Labels, src.Params.K)
	var werrs []string
	for _, cp := range cps {
		if err := writeFileAtomic(cp, data); err != nil {
			werrs = append(werrs, err.Error())
			continue
		}
		werrs = nil
		break
	}
	if werrs != nil {
		l.warnCache("superpixel cache of %s not written: %s", src.Name, strings.Join(werrs, "; "))
	}
	return ds, nil
}

// lockCache takes an exclusive file lock on the first cache path whose
// folder is writable (path + ".lock", left on disk; the lock itself ends
// with the process) and returns its release; with no writable folder it
// locks nothing.
func lockCache(paths []string) (unlock func()) {
	for _, p := range paths {
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
			continue
		}
		fl := flock.New(p+".lock", flock.SetPermissions(0o644))
		if err := fl.Lock(); err != nil {
			continue
		}
		return func() { _ = fl.Unlock() }
	}
	return func() {}
}
