package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// readMaybeGzip reads a whole file, gunzipping it if its name ends in ".gz".
func readMaybeGzip(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if filepath.Ext(path) != ".gz" {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, &CorruptGzipError{Err: err})
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, &CorruptGzipError{Err: err})
	}
	return out, nil
}

// readIDX reads an IDX file of unsigned bytes (the MNIST format, LeCun et
// al.: magic 0x0000 08 NDIM, then NDIM big-endian uint32 sizes, then the
// data), plain or gzipped. It returns the sizes and the data; a bad magic,
// a non-ubyte type or a wrong length is an error naming the file.
func readIDX(path string) (dims []int, data []byte, err error) {
	b, err := readMaybeGzip(path)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Base(path)
	if len(b) < 4 || b[0] != 0 || b[1] != 0 {
		return nil, nil, fmt.Errorf("%s: not an IDX file (bad magic)", name)
	}
	if b[2] != 0x08 {
		return nil, nil, fmt.Errorf("%s: IDX data type 0x%02x, want 0x08 (unsigned byte)", name, b[2])
	}
	nd := int(b[3])
	if nd < 1 || len(b) < 4+4*nd {
		return nil, nil, fmt.Errorf("%s: truncated IDX header (%d dimensions)", name, nd)
	}
	total := 1
	for i := range nd {
		v := int(binary.BigEndian.Uint32(b[4+4*i:]))
		dims = append(dims, v)
		total *= v
	}
	data = b[4+4*nd:]
	if len(data) != total {
		return nil, nil, fmt.Errorf("%s: %d data bytes, want %d for sizes %v", name, len(data), total, dims)
	}
	return dims, data, nil
}

// readIDXImages reads an IDX image file (N×H×W grayscale, or N×H×W×C) and
// its IDX label file (N) into an imageSet.
func readIDXImages(imagesPath, labelsPath string) (*imageSet, error) {
	dims, pix, err := readIDX(imagesPath)
	if err != nil {
		return nil, err
	}
	if len(dims) != 3 && len(dims) != 4 {
		return nil, fmt.Errorf("%s: %d dimensions, want 3 (N, H, W) or 4 (N, H, W, C)", filepath.Base(imagesPath), len(dims))
	}
	ldims, labels, err := readIDX(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(ldims) != 1 || ldims[0] != dims[0] {
		return nil, fmt.Errorf("%s: sizes %v, want one label for each of the %d images of %s",
			filepath.Base(labelsPath), ldims, dims[0], filepath.Base(imagesPath))
	}
	set := &imageSet{H: dims[1], W: dims[2], C: 1, Pix: pix, Labels: labels}
	if len(dims) == 4 {
		set.C = dims[3]
	}
	return set, nil
}

// cifarRecord is the size of one CIFAR-10 binary record: a label byte and
// the 1024 red, 1024 green and 1024 blue values, row-major.
const cifarRecord = 1 + 3*32*32

// readCIFARBatch reads a CIFAR-10 binary batch (plain or gzipped) into an
// imageSet of 32×32×3 images (channels last, as torchvision's HWC arrays).
func readCIFARBatch(path string) (*imageSet, error) {
	b, err := readMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || len(b)%cifarRecord != 0 {
		return nil, fmt.Errorf("%s: %d bytes, not a whole number of %d-byte CIFAR-10 records", filepath.Base(path), len(b), cifarRecord)
	}
	n := len(b) / cifarRecord
	set := &imageSet{H: 32, W: 32, C: 3, Pix: make([]uint8, n*3072), Labels: make([]uint8, n)}
	for i := range n {
		r := b[i*cifarRecord : (i+1)*cifarRecord]
		if r[0] > 9 {
			return nil, fmt.Errorf("%s: record %d has label %d, want 0..9", filepath.Base(path), i, r[0])
		}
		set.Labels[i] = r[0]
		img := set.Pix[i*3072 : (i+1)*3072]
		for p := range 1024 {
			img[3*p], img[3*p+1], img[3*p+2] = r[1+p], r[1+1024+p], r[1+2048+p]
		}
	}
	return set, nil
}

// sliceImages returns images [from, to) of s (sharing memory).
func (s *imageSet) slice(from, to int) *imageSet {
	sz := s.H * s.W * s.C
	return &imageSet{H: s.H, W: s.W, C: s.C, Pix: s.Pix[from*sz : to*sz], Labels: s.Labels[from:to]}
}

// concatImages joins image sets of one shape.
func concatImages(sets ...*imageSet) *imageSet {
	out := &imageSet{H: sets[0].H, W: sets[0].W, C: sets[0].C}
	for _, s := range sets {
		out.Pix = append(out.Pix, s.Pix...)
		out.Labels = append(out.Labels, s.Labels...)
	}
	return out
}

// envInt parses the environment variable name as an int (0 if unset or
// malformed).
func envInt(name string) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return 0
	}
	return v
}
