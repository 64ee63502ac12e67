package fetch

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// ChecksumError is a checksum mismatch: it names the file and both sums.
// The file it names is never used: a bad download is deleted, a bad
// unpacked file is never moved into the data directory.
type ChecksumError struct {
	// File is the file's path (a download, or dataDir/NAME/FILE).
	File string
	// Algo is "sha256" or "md5".
	Algo string
	// Want is the recorded sum, Got the sum of the file.
	Want, Got string
}

// Error names the file and both sums.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: %s mismatch: got %s, want %s", e.File, e.Algo, e.Got, e.Want)
}

// Fetcher downloads catalog entries into DataDir.
type Fetcher struct {
	// DataDir is the data directory; datasets land in DataDir/NAME/, partial
	// downloads in DataDir/.download/.
	DataDir string
	// Client does the HTTP requests (http.DefaultClient if nil).
	Client *http.Client
	// Attempts is the number of tries per download, each resuming where
	// the last stopped (3 if 0).
	Attempts int
	// AcceptUnverified lets entries without any recorded checksum be
	// fetched (their sums are reported through Log instead).
	AcceptUnverified bool
	// Progress, if set, returns the writer that receives the bytes of a
	// download as they arrive (a progress bar); already bytes were there
	// from an earlier, interrupted download; total is -1 if unknown.
	Progress func(name string, already, total int64) io.Writer
	// Log, if set, receives one line per notable event.
	Log func(msg string)
}

func (f *Fetcher) logf(format string, args ...any) {
	if f.Log != nil {
		f.Log(fmt.Sprintf(format, args...))
	}
}

// Fetch downloads, verifies and unpacks entry e into DataDir/e.Name/. Files
// already present with a matching checksum are not downloaded again.
func (f *Fetcher) Fetch(ctx context.Context, e Entry) error {
	if !e.Verified() && !f.AcceptUnverified {
		return fmt.Errorf("%s: no SHA-256 recorded for its archive (%s); rerun with --accept-unverified to fetch it anyway", e.Name, e.Note)
	}
	dest := filepath.Join(f.DataDir, e.Name)
	for _, a := range e.Archives {
		if f.present(dest, a) {
			f.logf("%s: %s already present and verified", e.Name, path.Base(a.URL))
			continue
		}
		dl, err := f.download(ctx, e.Name, a.URL)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		if err := f.install(dl, dest, a); err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		os.Remove(dl)
	}
	return nil
}

// present reports whether every file of a is in dest with a matching
// recorded checksum; a file without one counts when the marker written
// after a verified install (see markerPath) names the archive's sum.
func (f *Fetcher) present(dest string, a Archive) bool {
	marked := false
	if a.SHA256 != "" {
		b, err := os.ReadFile(markerPath(dest, a))
		marked = err == nil && strings.TrimSpace(string(b)) == a.SHA256
	}
	for _, file := range a.Files {
		if file.SHA256 == "" && file.MD5 == "" && !marked {
			return false
		}
		if err := checkFile(filepath.Join(dest, file.Name), file); err != nil {
			return false
		}
	}
	return true
}

// markerPath is the file that records the verified archive a was
// installed from: dest/.fetched-ARCHIVE.sha256.
func markerPath(dest string, a Archive) string {
	return filepath.Join(dest, ".fetched-"+path.Base(a.URL)+".sha256")
}

// download fetches url into DataDir/.download/BASE, resuming a partial
// file with an HTTP Range request, and returns the file's path.
func (f *Fetcher) download(ctx context.Context, name, url string) (string, error) {
	dir := filepath.Join(f.DataDir, ".download")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, path.Base(url))
	part := dst + ".part"
	attempts := f.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	var last error
	for try := 0; try < attempts; try++ {
		done, err := f.get(ctx, name, url, part)
		if err == nil && done {
			return dst, os.Rename(part, dst)
		}
		last = err
		var perm *permanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			break
		}
		f.logf("%s: %v; resuming (attempt %d of %d)", name, err, try+2, attempts)
	}
	return "", fmt.Errorf("download %s: %w (the partial file %s is kept; rerun to resume)", url, last, part)
}

// permanentError is an HTTP failure that retrying will not fix.
type permanentError struct{ msg string }

func (e *permanentError) Error() string { return e.msg }

// get makes one request for the rest of part and appends it; done reports
// whether the file is complete.
func (f *Fetcher) get(ctx context.Context, name, url, part string) (done bool, err error) {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, &permanentError{err.Error()}
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var total int64 = -1
	flags := os.O_WRONLY | os.O_CREATE
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return false, fmt.Errorf("server answered the range request from byte %d with %q", have, resp.Header.Get("Content-Range"))
		}
		total = size
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The partial file is already whole (or longer than the resource):
		// let the checksum decide.
		return true, nil
	case resp.StatusCode == http.StatusOK:
		have = 0 // no range support: start over
		flags |= os.O_TRUNC
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
	case resp.StatusCode >= 500:
		return false, fmt.Errorf("server error: %s", resp.Status)
	default:
		return false, &permanentError{fmt.Sprintf("GET %s: %s", url, resp.Status)}
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return false, &permanentError{err.Error()}
	}
	var w io.Writer = out
	if f.Progress != nil {
		w = io.MultiWriter(out, f.Progress(name+" "+path.Base(url), have, total))
	}
	n, copyErr := io.Copy(w, resp.Body)
	if cerr := out.Close(); copyErr == nil {
		copyErr = cerr
	}
	if copyErr != nil {
		return false, fmt.Errorf("interrupted after %d bytes: %v", have+n, copyErr)
	}
	if total >= 0 && have+n < total {
		return false, fmt.Errorf("truncated: %d of %d bytes", have+n, total)
	}
	return true, nil
}

// parseContentRange parses "bytes START-END/SIZE".
func parseContentRange(s string) (start, size int64, ok bool) {
	s, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	size, err2 := strconv.ParseInt(sz, 10, 64)
	if sz == "*" {
		size, err2 = -1, nil
	}
	return start, size, err1 == nil && err2 == nil
}

// install verifies the downloaded archive dl, unpacks the files of a into
// a staging folder, verifies each, and only then moves them into dest. On
// any mismatch the download is deleted and nothing is installed.
func (f *Fetcher) install(dl, dest string, a Archive) error {
	contentSums := len(a.Files) > 0
	for _, file := range a.Files {
		if file.SHA256 == "" && file.MD5 == "" {
			contentSums = false
		}
	}
	archiveOK := false
	if a.SHA256 != "" {
		got, err := sumFile(dl, sha256.New(), false)
		if err != nil {
			return err
		}
		archiveOK = got == a.SHA256
		if !archiveOK {
			cerr := &ChecksumError{File: dl, Algo: "sha256", Want: a.SHA256, Got: got}
			if !contentSums {
				os.Remove(dl)
				return cerr
			}
			f.logf("%v (re-packed by the host?); checking every file's content instead", cerr)
		}
	} else if !contentSums {
		got, _ := sumFile(dl, sha256.New(), false)
		f.logf("%s: no checksum recorded; sha256 of the download is %s", filepath.Base(dl), got)
	}
	stage, err := os.MkdirTemp(f.DataDir, ".stage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := unpack(dl, a, stage); err != nil {
		os.Remove(dl)
		return err
	}
	for _, file := range a.Files {
		if err := checkFile(filepath.Join(stage, file.Name), file); err != nil {
			var ce *ChecksumError
			if errors.As(err, &ce) {
				ce.File = filepath.Join(dest, file.Name) + " (from " + filepath.Base(dl) + ")"
			}
			os.Remove(dl)
			return err
		}
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	for _, file := range a.Files {
		if err := os.Rename(filepath.Join(stage, file.Name), filepath.Join(dest, file.Name)); err != nil {
			return err
		}
	}
	if a.SHA256 != "" && archiveOK {
		return os.WriteFile(markerPath(dest, a), []byte(a.SHA256+"\n"), 0o644)
	}
	return nil
}

// unpack extracts the files of a from the archive dl into dir.
func unpack(dl string, a Archive, dir string) error {
	want := map[string]string{}
	for _, file := range a.Files {
		want[file.Member] = file.Name
	}
	found := map[string]bool{}
	write := func(name string, r io.Reader) error {
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		_, err = io.Copy(out, r)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		found[name] = true
		return err
	}
	switch a.Kind {
	case "gz":
		in, err := os.Open(dl)
		if err != nil {
			return err
		}
		defer in.Close()
		return write(a.Files[0].Name, in)
	case "zip":
		zr, err := zip.OpenReader(dl)
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Base(dl), err)
		}
		defer zr.Close()
		for _, zf := range zr.File {
			name, ok := want[zf.Name]
			if !ok {
				continue
			}
			r, err := zf.Open()
			if err != nil {
				return fmt.Errorf("%s: %s: %v", filepath.Base(dl), zf.Name, err)
			}
			err = write(name, r)
			r.Close()
			if err != nil {
				return fmt.Errorf("%s: %s: %v", filepath.Base(dl), zf.Name, err)
			}
		}
	case "tar.gz":
		in, err := os.Open(dl)
		if err != nil {
			return err
		}
		defer in.Close()
		gz, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Base(dl), err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: %v", filepath.Base(dl), err)
			}
			if name, ok := want[h.Name]; ok && h.Typeflag == tar.TypeReg {
				if err := write(name, tr); err != nil {
					return fmt.Errorf("%s: %s: %v", filepath.Base(dl), h.Name, err)
				}
			}
		}
	default:
		return fmt.Errorf("unknown archive kind %q", a.Kind)
	}
	for _, file := range a.Files {
		if !found[file.Name] {
			return fmt.Errorf("%s: archive has no %s", filepath.Base(dl), file.Member)
		}
	}
	return nil
}

// sumFile returns the hex sum of path's content, gunzipped first if gz.
func sumFile(p string, h hash.Hash, gz bool) (string, error) {
	in, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer in.Close()
	var r io.Reader = in
	if gz {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return "", fmt.Errorf("%s: %v", p, err)
		}
		r = zr
	}
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("%s: %v", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkFile checks the content of p (gunzipped if its name ends in ".gz")
// against file's recorded sum; nil when none is recorded.
func checkFile(p string, file File) error {
	gz := strings.HasSuffix(p, ".gz")
	algo, want, h := "sha256", file.SHA256, sha256.New()
	if want == "" {
		algo, want, h = "md5", file.MD5, md5.New()
	}
	if want == "" {
		_, err := os.Stat(p)
		return err
	}
	got, err := sumFile(p, h, gz)
	if err != nil {
		return err
	}
	if got != want {
		return &ChecksumError{File: p, Algo: algo, Want: want, Got: got}
	}
	return nil
}
