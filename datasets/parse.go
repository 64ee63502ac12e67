package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
)

// ParseError is the error of a malformed TU text file: it names the file
// (base name, e.g. "Letter-high_A.txt.gz") and the 1-based line number.
// Its message reads "FILE:LINE: MSG", for example
// "Letter-high_A.txt.gz:17: node id 99999 outside 1..10507".
// A line number one past the file's last line means "at end of file".
type ParseError struct {
	// File is the base name of the file.
	File string
	// Line is the 1-based line number.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as "FILE:LINE: MSG".
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// The line parsers below accept one TU text line: values separated by
// commas, each comma optionally surrounded by spaces or tabs; leading and
// trailing spaces, tabs and a trailing '\r' are ignored. An empty line or an
// empty field (",," or a trailing comma) is an error.

// isBlank reports whether c is ignorable whitespace around a field.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// trimBlank removes leading and trailing blanks.
func trimBlank(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isBlank(b[i]) {
		i++
	}
	for j > i && isBlank(b[j-1]) {
		j--
	}
	return b[i:j]
}

// nextField splits line at its first comma and returns the trimmed field
// and the remainder (nil when the field was the last one).
func nextField(line []byte) (field, rest []byte, more bool) {
	k := bytes.IndexByte(line, ',')
	if k < 0 {
		return trimBlank(line), nil, false
	}
	return trimBlank(line[:k]), line[k+1:], true
}

// quote returns a short quoted excerpt of b for error messages.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

// parseInts parses a line of comma-separated integers, appending them to
// dst[:0] and returning the extended slice. Each field is an optional sign
// followed by decimal digits and must fit in an int64.
func parseInts(line []byte, dst []int64) ([]int64, error) {
	return parseFields(line, dst, parseInt)
}

// parseFields splits a line into comma-separated fields (blank-trimmed),
// parses each with parse and appends the values to dst[:0]; an empty line
// is an error.
func parseFields[T any](line []byte, dst []T, parse func([]byte) (T, error)) ([]T, error) {
	dst = dst[:0]
	line = trimBlank(line)
	if len(line) == 0 {
		return dst, fmt.Errorf("empty line")
	}
	for more := true; more; {
		var f []byte
		f, line, more = nextField(line)
		v, err := parse(f)
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// parseInt parses one trimmed integer field.
func parseInt(f []byte) (int64, error) {
	if len(f) == 0 {
		return 0, fmt.Errorf("empty field")
	}
	i, neg := 0, false
	switch f[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	if i == len(f) {
		return 0, fmt.Errorf("not an integer: %s", quote(f))
	}
	var u uint64
	const limit = uint64(math.MaxInt64) + 1 // |MinInt64|
	for ; i < len(f); i++ {
		c := f[i] - '0'
		if c > 9 {
			return 0, fmt.Errorf("not an integer: %s", quote(f))
		}
		if u > (limit-uint64(c))/10 {
			return 0, fmt.Errorf("integer out of range: %s", quote(f))
		}
		u = u*10 + uint64(c)
	}
	if neg {
		return -int64(u-1) - 1, nil // u ≤ 2^63, so this never overflows
	}
	if u > math.MaxInt64 {
		return 0, fmt.Errorf("integer out of range: %s", quote(f))
	}
	return int64(u), nil
}

// parseFloats parses a line of comma-separated decimal numbers, appending
// them to dst[:0] and returning the extended slice. A field is
// [sign] digits [. digits] [e|E [sign] digits] (digits may be missing on one
// side of the point, not both); "NaN", "Inf", hexadecimal and values that
// overflow float64 are errors. Results are correctly rounded.
func parseFloats(line []byte, dst []float64) ([]float64, error) {
	return parseFields(line, dst, parseFloat)
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses one trimmed decimal field. Short inputs take the exact
// fast path (mantissa < 2^53 and |exponent| ≤ 22, Clinger 1990); anything
// else is handed to strconv.ParseFloat after the syntax has been checked.
func parseFloat(f []byte) (float64, error) {
	if len(f) == 0 {
		return 0, fmt.Errorf("empty field")
	}
	i, neg := 0, false
	switch f[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	var mant uint64
	nd, exp, digits := 0, 0, 0 // significant digits kept, decimal exponent, all digits seen
	trunc := false
	sawDot := false
	for ; i < len(f); i++ {
		c := f[i]
		if c == '.' {
			if sawDot {
				return 0, fmt.Errorf("not a number: %s", quote(f))
			}
			sawDot = true
			continue
		}
		if c-'0' > 9 {
			break
		}
		digits++
		if c == '0' && nd == 0 { // leading zero
			if sawDot {
				exp--
			}
			continue
		}
		if nd < 19 {
			mant = mant*10 + uint64(c-'0')
			nd++
			if sawDot {
				exp--
			}
		} else {
			if c != '0' {
				trunc = true
			}
			if !sawDot {
				exp++
			}
		}
	}
	if digits == 0 {
		return 0, fmt.Errorf("not a number: %s", quote(f))
	}
	if i < len(f) && (f[i] == 'e' || f[i] == 'E') {
		i++
		eneg := false
		if i < len(f) && (f[i] == '+' || f[i] == '-') {
			eneg = f[i] == '-'
			i++
		}
		start, e := i, 0
		for ; i < len(f) && f[i]-'0' <= 9; i++ {
			if e < 100000 {
				e = e*10 + int(f[i]-'0')
			}
		}
		if i == start {
			return 0, fmt.Errorf("not a number: %s", quote(f))
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(f) {
		return 0, fmt.Errorf("not a number: %s", quote(f))
	}
	if mant == 0 {
		if neg {
			return math.Copysign(0, -1), nil
		}
		return 0, nil
	}
	if !trunc && mant < 1<<53 && exp >= -22 && exp <= 22 {
		v := float64(mant)
		if exp < 0 {
			v /= pow10[-exp]
		} else {
			v *= pow10[exp]
		}
		if neg {
			v = -v
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("number out of range: %s", quote(f))
	}
	return v, nil
}

// table reads the lines of one TU text file (plain or gzipped). Blank
// lines at the end of the file are ignored; a blank line followed by more
// data is an error.
type table struct {
	name  string // base name, for errors
	f     fs.File
	gz    *gzip.Reader
	sc    *bufio.Scanner
	line  int // 1-based number of the line last returned
	blank int // first pending blank line, 0 if none
	err   error
}

// openTable opens path in fsys, decompressing it if the name ends in ".gz".
func openTable(fsys fs.FS, path string) (*table, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	t := &table{name: filepath.Base(path), f: f}
	var r io.Reader = bufio.NewReaderSize(f, 1<<18)
	var gzErr *gzipError
	if filepath.Ext(path) == ".gz" {
		t.gz, err = gzip.NewReader(r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", t.name, &CorruptGzipError{Err: err})
		}
		gzErr = &gzipError{r: t.gz}
		r = gzErr
	}
	t.sc = bufio.NewScanner(r)
	t.sc.Buffer(make([]byte, 1<<16), 64<<20)
	if gzErr != nil {
		// A scanner hands out the bytes before a read error as a last
		// line, which would be parsed (a cut line: "empty field"): the
		// decompression error wins instead.
		t.sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			if atEOF && gzErr.err != nil {
				return 0, nil, gzErr.err
			}
			return bufio.ScanLines(data, atEOF)
		})
	}
	return t, nil
}

// CorruptGzipError is the error of a gzipped dataset file that does not
// decompress: a bad header or checksum (corrupt) or a cut stream
// (truncated, e.g. an interrupted download).
type CorruptGzipError struct{ Err error }

func (e *CorruptGzipError) Error() string {
	return fmt.Sprintf("corrupt or truncated gzip file (%v)", e.Err)
}

// Unwrap returns the decompressor's error.
func (e *CorruptGzipError) Unwrap() error { return e.Err }

// gzipError reads r and keeps its first error other than io.EOF as a
// CorruptGzipError.
type gzipError struct {
	r   io.Reader
	err error
}

func (g *gzipError) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF && g.err == nil {
		g.err = &CorruptGzipError{Err: err}
		err = g.err
	}
	return n, err
}

// next returns the next data line, or ok=false at the end of the file or
// on an error (see t.err).
func (t *table) next() (line []byte, ok bool) {
	for t.sc.Scan() {
		t.line++
		b := t.sc.Bytes()
		if len(trimBlank(b)) == 0 {
			if t.blank == 0 {
				t.blank = t.line
			}
			continue
		}
		if t.blank != 0 {
			t.err = t.errorf(t.blank, "empty line")
			return nil, false
		}
		return b, true
	}
	if err := t.sc.Err(); err != nil {
		var cg *CorruptGzipError
		if errors.As(err, &cg) {
			t.err = fmt.Errorf("%s: %w", t.name, err)
			return nil, false
		}
		t.err = t.errorf(t.line+1, "read error: %v", err)
	}
	return nil, false
}

// dataLines is the number of data lines read so far, not counting trailing
// blank lines.
func (t *table) dataLines() int {
	if t.blank != 0 {
		return t.blank - 1
	}
	return t.line
}

// errorf returns a ParseError at the given line of t.
func (t *table) errorf(line int, format string, args ...any) error {
	return &ParseError{File: t.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// close releases the file.
func (t *table) close() {
	if t.gz != nil {
		t.gz.Close()
	}
	t.f.Close()
}
