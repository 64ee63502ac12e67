package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadCorruptGzip: a cut (truncated download) or bit-flipped .gz file
// is reported as a corrupt or truncated file naming it, not as a content
// error of its last decompressed line.
func TestLoadCorruptGzip(t *testing.T) {
	src := filepath.Join("embedded", "Letter-high")
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)*2/3] }},
		{"checksum", func(b []byte) []byte { b[len(b)-6] ^= 0xff; return b }}, // the CRC-32 trailer
		{"header", func(b []byte) []byte { b[0] = 'x'; return b }},
	} {
		dir := t.TempDir()
		ds := filepath.Join(dir, "BAD")
		if err := os.Mkdir(ds, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			name := strings.Replace(e.Name(), "Letter-high", "BAD", 1)
			if name == "BAD_A.txt.gz" {
				b = c.damage(b)
			}
			if err := os.WriteFile(filepath.Join(ds, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err = LoadTU(dir, "BAD")
		var cg *CorruptGzipError
		if err == nil || !errors.As(err, &cg) || !strings.Contains(err.Error(), "BAD_A.txt.gz: corrupt or truncated gzip file") {
			t.Errorf("%s: %v, want BAD_A.txt.gz named as a corrupt or truncated gzip file", c.name, err)
		}
	}
}
