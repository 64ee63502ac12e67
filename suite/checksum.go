package suite

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ChecksumFile is the file of a cached directory (a resume state's
// generation, a UGNN warm-up entry) that lists the SHA-256 of each of its
// other files, in sha256sum's format ("HEX  path" lines, so `sha256sum -c
// SHA256SUMS` checks it by hand), written last (WriteChecksum): an entry
// whose checksum file is missing or does not match was damaged or never
// completed, and is not used (VerifyChecksum).
const ChecksumFile = "SHA256SUMS"

// ErrNoChecksum is VerifyChecksum's error for a directory without a
// ChecksumFile (written by an older binary, or never completed).
var ErrNoChecksum = errors.New("no checksum file " + ChecksumFile)

// WriteChecksum writes dir/ChecksumFile, the SHA-256 of every regular
// file under dir (slash-separated relative paths, lexical order), and
// syncs it. Call it after every other file of dir is written. Entries
// other than directories and regular files are an error.
func WriteChecksum(dir string) error {
	var b bytes.Buffer
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || d.IsDir() || rel == ChecksumFile {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, ChecksumFile))
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// VerifyChecksum checks every file listed in dir/ChecksumFile against its
// SHA-256: nil if all match, an error wrapping ErrNoChecksum without a
// checksum file, else an error naming the first file that is missing or
// differs (or a malformed checksum file). Files not listed are not read.
func VerifyChecksum(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, ChecksumFile))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w", ErrNoChecksum)
	}
	if err != nil {
		return err
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		want, rel, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(want) != 2*sha256.Size || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("%s: malformed line %q", ChecksumFile, sc.Text())
		}
		got, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s: SHA-256 %.12s…, %s says %.12s…", rel, got, ChecksumFile, want)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s lists no file", ChecksumFile)
	}
	return sc.Err()
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
