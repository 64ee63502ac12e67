package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Status values of Result.Status.
const (
	StatusOK         = "ok"
	StatusMissing    = "missing"
	StatusMismatch   = "MISMATCH"
	StatusUnrecorded = "no checksum recorded"
)

// Result is the check of one file.
type Result struct {
	// Dataset and File name the file; Path is where it was found (the
	// name, or the name plus ".gz") or would be.
	Dataset, File, Path string
	// Status is one of the Status constants; Err holds the mismatch (a
	// *ChecksumError naming both sums) or the read error.
	Status string
	Err    error
}

// Verify checks the files of e present in dataDir/e.Name against their
// recorded content checksums. A file may be stored plain or gzipped (the
// project's shared copies are gzipped; the sum is of the content either
// way). It reports nothing for an entry whose folder is absent.
func Verify(dataDir string, e Entry) []Result {
	dir := filepath.Join(dataDir, e.Name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	var out []Result
	for _, a := range e.Archives {
		for _, file := range a.Files {
			r := Result{Dataset: e.Name, File: file.Name, Path: filepath.Join(dir, file.Name)}
			candidates := []string{r.Path}
			if strings.HasSuffix(r.Path, ".gz") {
				candidates = append(candidates, strings.TrimSuffix(r.Path, ".gz"))
			} else {
				candidates = append(candidates, r.Path+".gz")
			}
			found := ""
			for _, c := range candidates {
				if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
					found = c
					break
				}
			}
			switch {
			case found == "":
				r.Status = StatusMissing
			case file.SHA256 == "" && file.MD5 == "":
				r.Path, r.Status = found, StatusUnrecorded
			default:
				r.Path = found
				r.Err = checkFile(found, file)
				var ce *ChecksumError
				switch {
				case r.Err == nil:
					r.Status = StatusOK
				case errors.As(r.Err, &ce):
					r.Status = StatusMismatch
				default:
					r.Status = StatusMissing
				}
			}
			out = append(out, r)
		}
	}
	return out
}
