package fetch

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets/internal/nodata"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// fixture files of a tiny TU dataset "TOY".
var toyFiles = map[string][]byte{
	"TOY_A.txt":               []byte("1, 2\n2, 1\n"),
	"TOY_graph_indicator.txt": []byte("1\n1\n"),
	"TOY_graph_labels.txt":    []byte("0\n"),
}

func toyZip(t *testing.T, files map[string][]byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		w, err := zw.Create("TOY/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Create("__MACOSX/junk")
	zw.Close()
	return b.Bytes()
}

func toyEntry(url string, zipData []byte) Entry {
	a := Archive{URL: url + "/TOY.zip", SHA256: sum(zipData), Kind: "zip"}
	for _, n := range []string{"TOY_A.txt", "TOY_graph_indicator.txt", "TOY_graph_labels.txt"} {
		a.Files = append(a.Files, File{Member: "TOY/" + n, Name: n, SHA256: sum(toyFiles[n])})
	}
	return Entry{Name: "TOY", Archives: []Archive{a}}
}

// server serves body at every path through handle, recording requests.
type server struct {
	mu     sync.Mutex
	ranges []string // Range header of each request ("" if none)
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

func (s *server) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		n := len(s.ranges)
		s.mu.Unlock()
		s.handle(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// serve answers with http.ServeContent (Range supported).
func serve(w http.ResponseWriter, r *http.Request, body []byte) {
	http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
}

// cut sends a full Content-Length, then only the first half, then drops
// the connection.
func cut(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

// cutThenServe cuts the first response short and serves the rest.
func cutThenServe(body []byte) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			cut(w, body)
			return
		}
		serve(w, r, body)
	}
}

func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	for name, want := range toyFiles {
		got, err := os.ReadFile(filepath.Join(dir, "TOY", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	for _, r := range Verify(dir, toyEntry("http://x", toyZip(t, toyFiles))) {
		if r.Status != StatusOK {
			t.Errorf("Verify %s: %s %v", r.File, r.Status, r.Err)
		}
	}
}

func TestFetchTruncatedThenResumed(t *testing.T) {
	body := toyZip(t, toyFiles)
	s := &server{handle: cutThenServe(body)}
	srv := s.start(t)
	dir := t.TempDir()
	var logs []string
	f := &Fetcher{DataDir: dir, Log: func(m string) { logs = append(logs, m) }}
	if err := f.Fetch(context.Background(), toyEntry(srv.URL, body)); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)
	if len(s.ranges) != 2 || s.ranges[1] != "bytes="+strconv.Itoa(len(body)/2)+"-" {
		t.Errorf("requests' Range headers %q, want a second one from byte %d", s.ranges, len(body)/2)
	}
	if _, err := os.Stat(filepath.Join(dir, ".download", "TOY.zip")); !os.IsNotExist(err) {
		t.Error("the download was not removed after installing")
	}
	// Fetching again finds the verified files and downloads nothing.
	if err := f.Fetch(context.Background(), toyEntry(srv.URL, body)); err != nil || len(s.ranges) != 2 {
		t.Errorf("second fetch: %v, %d requests; want no new request", err, len(s.ranges))
	}
}

func TestFetchInterruptedAcrossRuns(t *testing.T) {
	body := toyZip(t, toyFiles)
	s := &server{handle: cutThenServe(body)}
	srv := s.start(t)
	dir := t.TempDir()
	f := &Fetcher{DataDir: dir, Attempts: 1}
	err := f.Fetch(context.Background(), toyEntry(srv.URL, body))
	if err == nil || !strings.Contains(err.Error(), "rerun to resume") {
		t.Fatalf("first run: error %v, want one saying the partial file is kept", err)
	}
	part := filepath.Join(dir, ".download", "TOY.zip.part")
	if st, err := os.Stat(part); err != nil || st.Size() != int64(len(body)/2) {
		t.Fatalf("partial file: %v, want %d bytes", err, len(body)/2)
	}
	if _, err := os.Stat(filepath.Join(dir, "TOY")); !os.IsNotExist(err) {
		t.Error("an interrupted download installed files")
	}
	if err := f.Fetch(context.Background(), toyEntry(srv.URL, body)); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)
	if s.ranges[1] == "" {
		t.Error("the second run did not resume with a Range request")
	}
}

func TestFetchNoRangeSupportStartsOver(t *testing.T) {
	body := toyZip(t, toyFiles)
	s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			cut(w, body)
			return
		}
		w.Write(body) // ignores Range: 200 with the whole file
	}}
	srv := s.start(t)
	dir := t.TempDir()
	if err := (&Fetcher{DataDir: dir}).Fetch(context.Background(), toyEntry(srv.URL, body)); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)
}

func TestFetchWrongChecksum(t *testing.T) {
	body := toyZip(t, toyFiles)
	bad := map[string][]byte{}
	for k, v := range toyFiles {
		bad[k] = v
	}
	bad["TOY_graph_labels.txt"] = []byte("1\n")
	badZip := toyZip(t, bad)
	cases := []struct {
		name  string
		entry func(url string) Entry
		file  string
	}{
		// Archive sum recorded, content sums recorded: the content decides.
		{"content", func(url string) Entry { return toyEntry(url, body) }, "TOY_graph_labels.txt"},
		// Archive sum only: the archive decides.
		{"archive", func(url string) Entry {
			e := toyEntry(url, body)
			for i := range e.Archives[0].Files {
				e.Archives[0].Files[i].SHA256 = ""
			}
			return e
		}, "TOY.zip"},
	}
	for _, c := range cases {
		s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) { serve(w, r, badZip) }}
		srv := s.start(t)
		dir := t.TempDir()
		err := (&Fetcher{DataDir: dir}).Fetch(context.Background(), c.entry(srv.URL))
		var ce *ChecksumError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: error %v, want a *ChecksumError", c.name, err)
		}
		if !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), ce.Want) || !strings.Contains(err.Error(), ce.Got) || ce.Want == ce.Got {
			t.Errorf("%s: error %q should name %s and both sums", c.name, err, c.file)
		}
		if _, err := os.Stat(filepath.Join(dir, "TOY")); !os.IsNotExist(err) {
			t.Errorf("%s: files of a bad archive were installed", c.name)
		}
		if _, err := os.Stat(filepath.Join(dir, ".download", "TOY.zip")); !os.IsNotExist(err) {
			t.Errorf("%s: the bad download was kept", c.name)
		}
	}
}

func TestFetchServerErrors(t *testing.T) {
	cases := []struct {
		status   int
		requests int
		want     string
	}{
		{http.StatusInternalServerError, 3, "500"},
		{http.StatusNotFound, 1, "404"},
	}
	for _, c := range cases {
		s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) { http.Error(w, "no", c.status) }}
		srv := s.start(t)
		dir := t.TempDir()
		err := (&Fetcher{DataDir: dir}).Fetch(context.Background(), toyEntry(srv.URL, []byte("x")))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("status %d: error %v, want one with %s and the URL", c.status, err, c.want)
		}
		if len(s.ranges) != c.requests {
			t.Errorf("status %d: %d requests, want %d", c.status, len(s.ranges), c.requests)
		}
	}
}

func TestFetchUnverifiedNeedsConsent(t *testing.T) {
	body := toyZip(t, toyFiles)
	s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) { serve(w, r, body) }}
	srv := s.start(t)
	e := toyEntry(srv.URL, body)
	e.Archives[0].SHA256 = ""
	for i := range e.Archives[0].Files {
		e.Archives[0].Files[i].SHA256 = ""
	}
	dir := t.TempDir()
	if err := (&Fetcher{DataDir: dir}).Fetch(context.Background(), e); err == nil || !strings.Contains(err.Error(), "--accept-unverified") {
		t.Errorf("unverified entry: error %v, want one asking for --accept-unverified", err)
	}
	if len(s.ranges) != 0 {
		t.Error("an unverified entry was downloaded without consent")
	}
	var logs []string
	f := &Fetcher{DataDir: dir, AcceptUnverified: true, Log: func(m string) { logs = append(logs, m) }}
	if err := f.Fetch(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 || !strings.Contains(logs[0], sum(body)) {
		t.Errorf("logs %q, want the download's sha256 %s", logs, sum(body))
	}
}

// TestFetchTarGzAndGz: a CIFAR-like tar.gz and a MNIST-like .gz kept as is.
func TestFetchTarGzAndGz(t *testing.T) {
	batch := bytes.Repeat([]byte{7}, 3073)
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "cifar-10-batches-bin/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "cifar-10-batches-bin/data_batch_1.bin", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(batch))})
	tw.Write(batch)
	tw.Close()
	gz.Close()
	idx := []byte{0, 0, 8, 1, 0, 0, 0, 2, 3, 4}
	var gb bytes.Buffer
	gz = gzip.NewWriter(&gb)
	gz.Write(idx)
	gz.Close()
	files := map[string][]byte{"/c.tar.gz": tb.Bytes(), "/l.gz": gb.Bytes()}
	s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) { serve(w, r, files[r.URL.Path]) }}
	srv := s.start(t)
	e := Entry{Name: "IMG", Archives: []Archive{
		{URL: srv.URL + "/c.tar.gz", Kind: "tar.gz", Files: []File{{Member: "cifar-10-batches-bin/data_batch_1.bin", Name: "data_batch_1.bin", SHA256: sum(batch)}}},
		{URL: srv.URL + "/l.gz", Kind: "gz", Files: []File{{Name: "labels-idx1-ubyte.gz", SHA256: sum(idx)}}},
	}}
	dir := t.TempDir()
	if err := (&Fetcher{DataDir: dir}).Fetch(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "IMG", "data_batch_1.bin")); !bytes.Equal(got, batch) {
		t.Error("data_batch_1.bin not unpacked")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "IMG", "labels-idx1-ubyte.gz")); !bytes.Equal(got, gb.Bytes()) {
		t.Error("labels .gz not kept as downloaded")
	}
	// Verify: ok, then a damaged file is a mismatch naming both sums.
	for _, r := range Verify(dir, e) {
		if r.Status != StatusOK {
			t.Errorf("Verify %s: %s %v", r.File, r.Status, r.Err)
		}
	}
	os.WriteFile(filepath.Join(dir, "IMG", "data_batch_1.bin"), batch[:100], 0o644)
	rs := Verify(dir, e)
	if rs[0].Status != StatusMismatch || !strings.Contains(rs[0].Err.Error(), sum(batch)) {
		t.Errorf("damaged file: %s %v, want a mismatch naming the recorded sum", rs[0].Status, rs[0].Err)
	}
	os.Remove(filepath.Join(dir, "IMG", "labels-idx1-ubyte.gz"))
	if rs := Verify(dir, e); rs[1].Status != StatusMissing {
		t.Errorf("removed file: %s, want missing", rs[1].Status)
	}
}

// TestVerifySharedData checks the catalog's content sums on the project's
// real (gzipped) copies where present.
func TestVerifySharedData(t *testing.T) {
	dir := nodata.Dir()
	if dir == "" {
		nodata.SkipNoData(t, "no data directory")
	}
	checked := 0
	for _, e := range Catalog {
		for _, r := range Verify(dir, e) {
			switch r.Status {
			case StatusOK:
				checked++
			case StatusMismatch:
				t.Errorf("%s/%s: %v", r.Dataset, r.File, r.Err)
			}
		}
	}
	if checked == 0 && !t.Failed() {
		nodata.SkipNoData(t, "no dataset of the catalog in %s", dir)
	}
	if checked < 30 {
		t.Errorf("only %d files verified, want the ≥ 30 of the shared copies", checked)
	}
}

// TestFetchArchiveSumOnlyNotRefetched: files covered only by the archive's
// sum (REDDIT-MULTI-12K) are not downloaded again after a verified install.
func TestFetchArchiveSumOnlyNotRefetched(t *testing.T) {
	body := toyZip(t, toyFiles)
	s := &server{handle: func(w http.ResponseWriter, r *http.Request, n int) { serve(w, r, body) }}
	srv := s.start(t)
	e := toyEntry(srv.URL, body)
	for i := range e.Archives[0].Files {
		e.Archives[0].Files[i].SHA256 = ""
	}
	dir := t.TempDir()
	f := &Fetcher{DataDir: dir}
	for range 2 {
		if err := f.Fetch(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.ranges) != 1 {
		t.Errorf("%d downloads, want 1", len(s.ranges))
	}
	os.Remove(filepath.Join(dir, "TOY", "TOY_A.txt"))
	if err := f.Fetch(context.Background(), e); err != nil || len(s.ranges) != 2 {
		t.Errorf("after a file was removed: %v, %d downloads; want a second download", err, len(s.ranges))
	}
}
