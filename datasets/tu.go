package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// EnvDataDir is the environment variable that names the data directory when
// no --data-dir flag is given (see DataDir).
const EnvDataDir = "UGBENCH_DATA"

// DefaultDataDir is the data directory used when neither the flag nor
// EnvDataDir is set.
const DefaultDataDir = "./data"

// DataDir resolves the data directory: flagValue if non-empty, else the
// environment variable UGBENCH_DATA if non-empty, else "./data".
func DataDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv(EnvDataDir); v != "" {
		return v
	}
	return DefaultDataDir
}

// Available lists the datasets present in dataDir, sorted: the names of the
// subdirectories NAME that hold a NAME_A.txt or NAME_A.txt.gz file, i.e.
// the TU datasets that Load can read. Raw image folders (MNIST, CIFAR10)
// are not listed. An unreadable or missing dataDir gives an empty list.
func Available(dataDir string) []string {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		dir := filepath.Join(dataDir, name)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if findFile(os.DirFS(dir), name+"_A.txt") != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Load loads the dataset called name from dataDir (see DataDir), e.g.
// Load("/data", "Letter-high") reads /data/Letter-high/Letter-high_*.txt.gz.
//
// A dataset compiled into the binary (Letter-high, see EmbeddedDatasets)
// is loaded from that copy when dataDir/name does not exist, so the demo
// runs on a fresh clone; a directory dataDir/name always wins.
//
// "MNIST" and "CIFAR10" are built from their raw images in dataDir/MNIST
// and dataDir/CIFAR10 (docs/datasets.md; the first load takes minutes and
// writes a cache, later loads read it; see loadSuperpixels).
//
// Errors: for a missing data or dataset directory an
// error that names the path, lists the available datasets (if any) and says
// to set --data-dir or UGBENCH_DATA; for a name containing a path separator
// an error; otherwise whatever LoadTU returns.
func Load(dataDir, name string) (*Dataset, error) { return Loader{}.Load(dataDir, name) }

// Loader loads datasets as Load does and reports on the slow part, the
// first build of a superpixel dataset (MNIST, CIFAR10, user image sets),
// to its hooks; the zero Loader reports nothing.
type Loader struct {
	// Progress, if set, is called from the superpixel builder with the
	// dataset's name, the number of images done so far and the total
	// (from several goroutines, never concurrently with itself); bench
	// draws a progress bar with it.
	Progress func(name string, done, total int)
	// Warn, if set, receives one line whenever a superpixel cache is found
	// damaged or stale and is rebuilt, or cannot be written.
	Warn func(msg string)
}

// Load loads dataset name from dataDir (see the package function Load).
func (l Loader) Load(dataDir, name string) (*Dataset, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("invalid dataset name %q", name)
	}
	if src, ok := superpixelSourceOf(name); ok {
		return l.loadSuperpixels(dataDir, src)
	}
	if src, ok := userSource(name); ok {
		ds, err := l.loadSuperpixels(dataDir, src)
		if err == nil {
			err = checkUserClasses(ds)
		}
		if err != nil {
			return nil, err
		}
		return ds, nil
	}
	if IsEmbedded(name) && !onDisk(dataDir, name) {
		return LoadEmbedded(name)
	}
	if st, err := os.Stat(dataDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("dataset %s: data directory %s not found; "+
			"set --data-dir or %s to the folder that holds the datasets", name, dataDir, EnvDataDir)
	}
	dir := filepath.Join(dataDir, name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		avail := Available(dataDir)
		have := "none"
		if len(avail) > 0 {
			have = strings.Join(avail, ", ")
		}
		return nil, fmt.Errorf("dataset %s: directory %s not found (datasets in %s: %s); "+
			"set --data-dir or %s to the folder that holds the datasets", name, dir, dataDir, have, EnvDataDir)
	}
	ds, err := LoadTU(dataDir, name)
	if err == nil {
		err = checkUserClasses(ds)
	}
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// findFile returns base if fsys holds it as a regular file, else base.gz
// if that exists, else "". A plain file wins over a gzipped one.
func findFile(fsys fs.FS, base string) string {
	for _, p := range [...]string{base, base + ".gz"} {
		if st, err := fs.Stat(fsys, p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// LoadTU reads the TU-format dataset name from dir/name/ (Morris et al.,
// TUDataset). Files, each plain or gzipped (".gz"; a plain file wins):
//
//   - NAME_A.txt (required): one directed edge "u, v" per line, 1-based
//     global node ids. Edges are symmetrised, self-loops and duplicates
//     dropped (docs/protocol.md §1).
//   - NAME_graph_indicator.txt (required): the 1-based graph id of each
//     node; ids must start at 1, be non-decreasing and leave no graph
//     without nodes.
//   - NAME_graph_labels.txt, or if absent NAME_graph_attributes.txt (the
//     COLORS-3 case: the label is the number of green nodes): one numeric
//     label per graph, remapped to 0..C-1 in ascending numeric order.
//   - NAME_node_attributes.txt (optional): one row of numbers per node;
//     the column count is the feature dimension.
//   - NAME_node_labels.txt (optional): one discrete label per node,
//     remapped densely to 0..L-1 in ascending numeric order.
//
// Other files (edge labels/attributes, node_attention) are never read.
// Node features are the attributes if present (FeaturesAttributes), else
// the one-hot node labels (FeaturesNodeLabels), else [1, degree]
// (FeaturesDegree, 2 columns). Graph.NodeLabels is filled whenever the
// node_labels file exists.
//
// The per-graph Src, Dst, Features and NodeLabels slices are windows into
// a few dataset-wide arrays, with capacity clipped to their length.
//
// Malformed input gives an error wrapping a *ParseError that names the file
// and the 1-based line; a missing required file gives an error naming the
// file and directory.
func LoadTU(dir, name string) (*Dataset, error) {
	dsDir := filepath.Join(dir, name)
	st, err := os.Stat(dsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("directory %s not found", dsDir)
	case err == nil && !st.IsDir():
		err = fmt.Errorf("%s is not a directory", dsDir)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	return loadTUFS(os.DirFS(dsDir), dsDir, name)
}

// loadTUFS is LoadTU on the files of fsys (its root holds NAME_A.txt[.gz]
// and the rest); dsDir names that root in error messages.
func loadTUFS(fsys fs.FS, dsDir, name string) (*Dataset, error) {
	ds, err := loadTU(fsys, dsDir, name)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	return ds, nil
}

// indicatorData is the parsed graph_indicator file.
type indicatorData struct {
	graphOf []int32 // 0-based graph of each node, shape [n]
	starts  []int   // first node of each graph, plus n: shape [N+1]
	name    string
}

// edgeData is the parsed A file. Parsing stops at the first bad line;
// the lines before it are validated first so that errors come in line order.
type edgeData struct {
	pairs   []int32 // u, v (1-based) for each line read
	stopErr error   // parse error that stopped reading, or nil
	badLine int     // line of a node id that does not fit in 1..MaxInt32, or 0
	badVal  int64
	name    string
	lines   int
}

// columnData is a parsed file with one number per line.
type columnData struct {
	vals []float64
	name string
}

// matrixData is a parsed file with a fixed number of columns.
type matrixData struct {
	vals []float32 // row-major, shape [rows, dim]
	dim  int
	rows int
	name string
}

func loadTU(fsys fs.FS, dsDir, name string) (*Dataset, error) {
	need := func(suffix string) (string, error) {
		p := findFile(fsys, name+suffix)
		if p == "" {
			return "", fmt.Errorf("missing required file %s[.gz] in %s", name+suffix, dsDir)
		}
		return p, nil
	}
	aPath, err := need("_A.txt")
	if err != nil {
		return nil, err
	}
	indPath, err := need("_graph_indicator.txt")
	if err != nil {
		return nil, err
	}
	labPath := findFile(fsys, name+"_graph_labels.txt")
	if labPath == "" {
		labPath = findFile(fsys, name+"_graph_attributes.txt")
	}
	if labPath == "" {
		return nil, fmt.Errorf("missing required file %s[.gz] (or %s[.gz]) in %s",
			name+"_graph_labels.txt", name+"_graph_attributes.txt", dsDir)
	}
	attrPath := findFile(fsys, name+"_node_attributes.txt")
	nlPath := findFile(fsys, name+"_node_labels.txt")

	// Parse all files concurrently (decompression dominates), then
	// validate them against each other in a fixed order.
	var (
		wg                 sync.WaitGroup
		ind                indicatorData
		edges              edgeData
		labs, nls          columnData
		attrs              matrixData
		indErr, labErr     error
		attrErr, nlErr, oe error
	)
	wg.Go(func() { ind, indErr = readIndicator(fsys, indPath) })
	wg.Go(func() { edges, oe = readEdges(fsys, aPath) })
	wg.Go(func() { labs, labErr = readColumn(fsys, labPath) })
	if attrPath != "" {
		wg.Go(func() { attrs, attrErr = readMatrix(fsys, attrPath) })
	}
	if nlPath != "" {
		wg.Go(func() { nls, nlErr = readColumn(fsys, nlPath) })
	}
	wg.Wait()
	if indErr != nil {
		return nil, indErr
	}
	if oe != nil {
		return nil, oe
	}
	n, numGraphs := len(ind.graphOf), len(ind.starts)-1

	src, dst, edgeStarts, degree, err := buildEdges(&edges, &ind)
	if err != nil {
		return nil, err
	}

	if labErr != nil {
		return nil, labErr
	}
	if err := checkRows(labs.name, len(labs.vals), numGraphs, "labels", "graphs", ind.name); err != nil {
		return nil, err
	}
	labels, numClasses, _ := remap(labs.vals)

	ds := &Dataset{
		Name:       name,
		Graphs:     make([]Graph, numGraphs),
		Labels:     labels,
		NumClasses: numClasses,
	}

	var nodeLabels []int32
	if nlPath != "" {
		if nlErr != nil {
			return nil, nlErr
		}
		if err := checkRows(nls.name, len(nls.vals), n, "node labels", "nodes", ind.name); err != nil {
			return nil, err
		}
		ids, k, _ := remap(nls.vals)
		nodeLabels = make([]int32, n)
		for i, v := range ids {
			nodeLabels[i] = int32(v)
		}
		ds.NumNodeLabels = k
	}

	var feats []float32
	switch {
	case attrPath != "":
		if attrErr != nil {
			return nil, attrErr
		}
		if err := checkRows(attrs.name, attrs.rows, n, "attribute rows", "nodes", ind.name); err != nil {
			return nil, err
		}
		feats, ds.FeatureDim, ds.FeatureKind = attrs.vals, attrs.dim, FeaturesAttributes
	case nodeLabels != nil:
		d := ds.NumNodeLabels
		feats = make([]float32, n*d)
		for i, l := range nodeLabels {
			feats[i*d+int(l)] = 1
		}
		ds.FeatureDim, ds.FeatureKind = d, FeaturesNodeLabels
	default:
		feats = make([]float32, 2*n)
		for i, d := range degree {
			feats[2*i] = 1
			feats[2*i+1] = float32(d)
		}
		ds.FeatureDim, ds.FeatureKind = 2, FeaturesDegree
	}

	d := ds.FeatureDim
	for g := range ds.Graphs {
		a, b := ind.starts[g], ind.starts[g+1]
		ea, eb := edgeStarts[g], edgeStarts[g+1]
		gr := &ds.Graphs[g]
		gr.NumNodes = b - a
		gr.Src = src[ea:eb:eb]
		gr.Dst = dst[ea:eb:eb]
		gr.Features = feats[a*d : b*d : b*d]
		if nodeLabels != nil {
			gr.NodeLabels = nodeLabels[a:b:b]
		}
	}
	return ds, nil
}

// checkRows reports a row-count mismatch between a per-graph or per-node
// file and the graph indicator.
func checkRows(file string, got, want int, what, unit, indName string) error {
	switch {
	case got < want:
		return &ParseError{File: file, Line: got + 1,
			Msg: fmt.Sprintf("unexpected end of file: %d %s for %d %s in %s", got, what, want, unit, indName)}
	case got > want:
		if unit == "graphs" {
			return &ParseError{File: file, Line: want + 1,
				Msg: fmt.Sprintf("graph %d has no nodes (%s has %d graphs)", want+1, indName, want)}
		}
		return &ParseError{File: file, Line: want + 1,
			Msg: fmt.Sprintf("more lines than the %d %s in %s", want, unit, indName)}
	}
	return nil
}

// remap maps numeric values to dense ids 0..k-1 in ascending numeric order.
func remap(vals []float64) (ids []int, k int, uniq []float64) {
	uniq = slices.Clone(vals)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	ids = make([]int, len(vals))
	if len(uniq) <= 64 { // few classes: binary search beats a map
		for i, v := range vals {
			ids[i], _ = slices.BinarySearch(uniq, v)
		}
		return ids, len(uniq), uniq
	}
	idx := make(map[float64]int, len(uniq))
	for i, v := range uniq {
		idx[v] = i
	}
	for i, v := range vals {
		ids[i] = idx[v]
	}
	return ids, len(uniq), uniq
}

// readIndicator parses the graph_indicator file.
func readIndicator(fsys fs.FS, path string) (indicatorData, error) {
	t, err := openTable(fsys, path)
	if err != nil {
		return indicatorData{}, err
	}
	defer t.close()
	d := indicatorData{name: t.name, graphOf: make([]int32, 0, 1<<12), starts: make([]int, 0, 1<<8)}
	buf := make([]int64, 0, 4)
	prev := int64(0)
	for {
		line, ok := t.next()
		if !ok {
			break
		}
		buf, err = parseInts(line, buf)
		if err != nil {
			return d, t.errorf(t.line, "%v", err)
		}
		if len(buf) != 1 {
			return d, t.errorf(t.line, "got %d columns, want 1 (graph id)", len(buf))
		}
		g := buf[0]
		switch {
		case g < prev:
			return d, t.errorf(t.line, "graph ids not non-decreasing: graph %d after graph %d", g, prev)
		case g == prev+1:
			if g > math.MaxInt32 {
				return d, t.errorf(t.line, "graph id %d too large", g)
			}
			d.starts = append(d.starts, len(d.graphOf))
		case g > prev:
			if prev == 0 {
				return d, t.errorf(t.line, "graph 1 has no nodes (first graph id is %d)", g)
			}
			return d, t.errorf(t.line, "graph %d has no nodes (graph %d follows graph %d)", prev+1, g, prev)
		}
		prev = g
		d.graphOf = append(d.graphOf, int32(g-1))
	}
	if t.err != nil {
		return d, t.err
	}
	if len(d.graphOf) == 0 {
		return d, t.errorf(1, "empty file")
	}
	if len(d.graphOf) > math.MaxInt32 {
		return d, t.errorf(t.line, "too many nodes")
	}
	d.starts = append(d.starts, len(d.graphOf))
	return d, nil
}

// readEdges parses the A file. The returned error is for I/O problems and
// an empty file only; see edgeData for the rest.
func readEdges(fsys fs.FS, path string) (edgeData, error) {
	t, err := openTable(fsys, path)
	if err != nil {
		return edgeData{}, err
	}
	defer t.close()
	d := edgeData{name: t.name, pairs: make([]int32, 0, 1<<16)}
	buf := make([]int64, 0, 4)
	for {
		line, ok := t.next()
		if !ok {
			break
		}
		buf, err = parseInts(line, buf)
		if err != nil {
			d.stopErr = t.errorf(t.line, "%v", err)
			return d, nil
		}
		if len(buf) != 2 {
			d.stopErr = t.errorf(t.line, "got %d columns, want 2 (node id, node id)", len(buf))
			return d, nil
		}
		u, v := buf[0], buf[1]
		if u < 1 || u > math.MaxInt32 {
			d.badLine, d.badVal = t.line, u
			return d, nil
		}
		if v < 1 || v > math.MaxInt32 {
			d.badLine, d.badVal = t.line, v
			return d, nil
		}
		d.pairs = append(d.pairs, int32(u), int32(v))
	}
	if t.err != nil {
		d.stopErr = t.err
		return d, nil
	}
	if t.dataLines() == 0 {
		return d, t.errorf(1, "empty file")
	}
	d.lines = t.dataLines()
	return d, nil
}

// buildEdges validates the edge lines against the indicator and returns
// the symmetrised, deduplicated edge list with local node ids, grouped by
// graph and sorted by (src, dst) within each graph; edgeStarts (shape
// [N+1]) delimits each graph's edges; degree (shape [n]) is the number of
// distinct neighbours of each node.
func buildEdges(e *edgeData, ind *indicatorData) (src, dst []int32, edgeStarts []int, degree []int32, err error) {
	n := int32(len(ind.graphOf))
	graphOf := ind.graphOf
	off := make([]int, n+1)
	pairs := e.pairs
	for i := 0; i+1 < len(pairs); i += 2 {
		u, v := pairs[i], pairs[i+1]
		if u > n || v > n {
			bad := u
			if u <= n {
				bad = v
			}
			return nil, nil, nil, nil, &ParseError{File: e.name, Line: i/2 + 1,
				Msg: fmt.Sprintf("node id %d outside 1..%d", bad, n)}
		}
		gu, gv := graphOf[u-1], graphOf[v-1]
		if gu != gv {
			return nil, nil, nil, nil, &ParseError{File: e.name, Line: i/2 + 1,
				Msg: fmt.Sprintf("edge %d, %d joins graph %d and graph %d", u, v, gu+1, gv+1)}
		}
		if u != v {
			off[u]++
			off[v]++
		}
	}
	if e.badLine != 0 {
		return nil, nil, nil, nil, &ParseError{File: e.name, Line: e.badLine,
			Msg: fmt.Sprintf("node id %d outside 1..%d", e.badVal, n)}
	}
	if e.stopErr != nil {
		return nil, nil, nil, nil, e.stopErr
	}
	// CSR over global 0-based nodes: off[u] .. off[u+1] after the prefix sum.
	for u := int32(1); u <= n; u++ {
		off[u] += off[u-1]
	}
	total := off[n]
	adj := make([]int32, total)
	pos := slices.Clone(off[:n])
	for i := 0; i+1 < len(pairs); i += 2 {
		u, v := pairs[i]-1, pairs[i+1]-1
		if u != v {
			adj[pos[u]] = v
			pos[u]++
			adj[pos[v]] = u
			pos[v]++
		}
	}
	src = make([]int32, 0, total)
	dst = make([]int32, 0, total)
	degree = make([]int32, n)
	edgeStarts = make([]int, len(ind.starts))
	for g := 0; g+1 < len(ind.starts); g++ {
		a, b := ind.starts[g], ind.starts[g+1]
		edgeStarts[g] = len(src)
		for u := a; u < b; u++ {
			nb := adj[off[u]:off[u+1]]
			sortSmall(nb)
			s0 := len(src)
			last := int32(-1)
			for _, v := range nb {
				if v == last {
					continue
				}
				last = v
				src = append(src, int32(u-a))
				dst = append(dst, v-int32(a))
			}
			degree[u] = int32(len(src) - s0)
		}
	}
	edgeStarts[len(edgeStarts)-1] = len(src)
	return src, dst, edgeStarts, degree, nil
}

// sortSmall sorts s ascending: insertion sort for short slices.
func sortSmall(s []int32) {
	if len(s) > 24 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for j > 0 && s[j-1] > x {
			s[j] = s[j-1]
			j--
		}
		s[j] = x
	}
}

// scanNumbers parses every data line of path as numbers and hands them to
// row (1-based data line, the parsed values, reused between calls); it
// returns the file's display name. A parse error, an error from row and an
// empty file name path and line.
func scanNumbers(fsys fs.FS, path string, row func(line int, vals []float64) error) (string, error) {
	t, err := openTable(fsys, path)
	if err != nil {
		return "", err
	}
	defer t.close()
	buf := make([]float64, 0, 8)
	rows := 0
	for {
		line, ok := t.next()
		if !ok {
			break
		}
		buf, err = parseFloats(line, buf)
		if err != nil {
			return t.name, t.errorf(t.line, "%v", err)
		}
		rows++
		if err := row(rows, buf); err != nil {
			return t.name, t.errorf(t.line, "%v", err)
		}
	}
	if t.err != nil {
		return t.name, t.err
	}
	if rows == 0 {
		return t.name, t.errorf(1, "empty file")
	}
	return t.name, nil
}

// readColumn parses a file with exactly one number per line.
func readColumn(fsys fs.FS, path string) (columnData, error) {
	var d columnData
	name, err := scanNumbers(fsys, path, func(_ int, vals []float64) error {
		if len(vals) != 1 {
			return fmt.Errorf("got %d columns, want 1", len(vals))
		}
		d.vals = append(d.vals, vals[0])
		return nil
	})
	d.name = name
	return d, err
}

// readMatrix parses a file whose lines all have the same number of numeric
// columns (the first line's count), as float32.
func readMatrix(fsys fs.FS, path string) (matrixData, error) {
	var d matrixData
	name, err := scanNumbers(fsys, path, func(line int, vals []float64) error {
		if line == 1 {
			d.dim = len(vals)
			d.vals = make([]float32, 0, d.dim<<12)
		} else if len(vals) != d.dim {
			return fmt.Errorf("got %d columns, want %d (as on line 1)", len(vals), d.dim)
		}
		for _, v := range vals {
			f := float32(v)
			if math.IsInf(float64(f), 0) {
				return fmt.Errorf("value %g out of float32 range", v)
			}
			d.vals = append(d.vals, f)
		}
		d.rows++
		return nil
	})
	d.name = name
	return d, err
}
