package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The pages whose ```console blocks TestDocExamples runs, relative to this
// package.
var docPages = []string{"../../docs/cli.md", "../../docs/methods.md"}

var updateDocs = flag.Bool("update-docs", false, "rewrite the outputs of the docs' console examples instead of comparing them")

// docCommand is one `$ bench ...` line of a console block and the output
// lines shown under it.
type docCommand struct {
	args []string
	want []string
	line int // 1-based line of the command in the page
	// first and end delimit the output lines in the page (end exclusive).
	first, end int
}

// TestDocExamples runs every ```console block of the docs, as
// golang.org/x/perf's cmd/benchstat/doc_test.go does with benchstat's
// documentation: each `$ bench ARGS` line runs the command in process and
// its standard output must equal the lines below it (a last line
// "(exit status N)" expects that exit status). The blocks of one page run
// in order in one fresh directory, with UGBENCH_DATA pointing at an empty
// one, so Letter-high is the copy compiled into bench and a block may use
// a database an earlier block of the page wrote. With -update-docs the
// outputs are rewritten in the page instead.
func TestDocExamples(t *testing.T) {
	for _, page := range docPages {
		page, err := filepath.Abs(page)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(page), func(t *testing.T) {
			src, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(src), "\n")
			cmds, err := parseConsoleBlocks(lines)
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			if len(cmds) == 0 {
				t.Fatalf("%s: no console examples", page)
			}
			t.Setenv("UGBENCH_DATA", t.TempDir())
			t.Setenv("UGBENCH_CACHE", "")
			t.Chdir(t.TempDir())
			// Outputs to splice in, last first so line numbers hold.
			var updates []docCommand
			for _, c := range cmds {
				got, err := runDocCommand(c.args)
				if err != nil {
					t.Fatalf("%s:%d: bench %s: %v", page, c.line, strings.Join(c.args, " "), err)
				}
				if *updateDocs {
					c.want = got
					updates = append(updates, c)
					continue
				}
				if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
					t.Errorf("%s:%d: bench %s:\ngot:\n%s\nwant (the page):\n%s\n(go test -run TestDocExamples ./cmd/bench -update-docs rewrites the page)",
						page, c.line, strings.Join(c.args, " "), g, w)
				}
			}
			if *updateDocs {
				for i := len(updates) - 1; i >= 0; i-- {
					u := updates[i]
					lines = append(lines[:u.first], append(append([]string(nil), u.want...), lines[u.end:]...)...)
				}
				if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// parseConsoleBlocks returns the commands of every ```console block.
func parseConsoleBlocks(lines []string) ([]docCommand, error) {
	var cmds []docCommand
	in := false
	for i, l := range lines {
		switch {
		case !in && l == "```console":
			in = true
		case in && l == "```":
			in = false
			if n := len(cmds); n > 0 && cmds[n-1].end < 0 {
				cmds[n-1].end = i
			}
		case in && strings.HasPrefix(l, "$ "):
			if n := len(cmds); n > 0 && cmds[n-1].end < 0 {
				cmds[n-1].end = i
			}
			f := strings.Fields(strings.TrimPrefix(l, "$ "))
			if len(f) < 2 || f[0] != "bench" {
				return nil, fmt.Errorf("line %d: a console example runs `bench COMMAND ...`: %q", i+1, l)
			}
			cmds = append(cmds, docCommand{args: f[1:], line: i + 1, first: i + 1, end: -1})
		case in:
			if len(cmds) == 0 || cmds[len(cmds)-1].end >= 0 {
				return nil, fmt.Errorf("line %d: output before any `$ bench` line", i+1)
			}
			cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
		}
	}
	if in {
		return nil, errors.New("unterminated console block")
	}
	return cmds, nil
}

// runDocCommand runs bench ARGS in process and returns its standard output
// as lines, with "(exit status N)" appended for an exit error.
func runDocCommand(args []string) ([]string, error) {
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		var out bytes.Buffer
		err := c.run(args[1:], &out)
		var lines []string
		if s := strings.TrimSuffix(out.String(), "\n"); s != "" {
			lines = strings.Split(s, "\n")
		}
		var e *exitError
		if errors.As(err, &e) {
			return append(lines, "(exit status "+strconv.Itoa(e.code)+")"), nil
		}
		return lines, err
	}
	return nil, fmt.Errorf("unknown command %q", args[0])
}

// mdLink is a Markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link of README.md and docs/
// resolves: the file exists and, for a link with #anchor into a Markdown
// file, a heading of that file has that anchor (GitHub's rule: lower case,
// punctuation dropped, spaces to hyphens, -N for repeats). Code blocks and
// code spans are skipped.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		a := map[string]bool{}
		src, err := os.ReadFile(p)
		if err == nil {
			seen := map[string]int{}
			for _, l := range proseLines(string(src)) {
				if !strings.HasPrefix(l, "#") {
					continue
				}
				s := headingAnchor(strings.TrimLeft(l, "#"))
				if n := seen[s]; n > 0 {
					a[s+"-"+strconv.Itoa(n)] = true
				} else {
					a[s] = true
				}
				seen[s]++
			}
		}
		anchors[p] = a
		return a
	}
	n := 0
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, l := range proseLines(string(src)) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				file, anchor, _ := strings.Cut(target, "#")
				p := page
				if file != "" {
					p = filepath.Join(filepath.Dir(page), file)
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: link %s: no such file", rel, target)
					continue
				}
				if anchor != "" && strings.HasSuffix(p, ".md") && !anchorsOf(p)[anchor] {
					t.Errorf("%s: link %s: no heading with anchor #%s", rel, target, anchor)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no relative links found")
	}
}

// proseLines returns the lines of a Markdown source outside fenced code
// blocks, with code spans removed.
func proseLines(src string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if in {
			continue
		}
		// Drop `code spans` (a heading's spans keep their text for its anchor).
		if strings.HasPrefix(l, "#") {
			out = append(out, l)
			continue
		}
		parts := strings.Split(l, "`")
		var b strings.Builder
		for i, s := range parts {
			if i%2 == 0 {
				b.WriteString(s)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// headingAnchor is GitHub's anchor of a heading's text.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeMarker precedes a ```go block of a docs page that shows a file of
// the repository verbatim: <!-- code: PATH --> (PATH from the root).
var codeMarker = regexp.MustCompile(`^<!-- code: (\S+) -->$`)

// TestDocCode checks that every ```go block marked with codeMarker equals
// its file, so that a worked example shown in the docs is the one the
// tests build and run (docs/methods.md, "Adding a method":
// reports/example_method_test.go). With -update-docs the blocks are
// rewritten from the files instead.
func TestDocCode(t *testing.T) {
	found := 0
	for _, page := range docPages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		changed := false
		for i := 0; i < len(lines); i++ {
			m := codeMarker.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			found++
			if i+1 >= len(lines) || lines[i+1] != "```go" {
				t.Fatalf("%s:%d: %s: want a ```go block on the next line", page, i+1, m[0])
			}
			end := i + 2
			for end < len(lines) && lines[end] != "```" {
				end++
			}
			if end == len(lines) {
				t.Fatalf("%s:%d: unterminated go block", page, i+2)
			}
			file, err := os.ReadFile(filepath.Join("../..", m[1]))
			if err != nil {
				t.Fatalf("%s:%d: %v", page, i+1, err)
			}
			want := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
			got := lines[i+2 : end]
			if strings.Join(got, "\n") == strings.Join(want, "\n") {
				continue
			}
			if !*updateDocs {
				t.Errorf("%s:%d: the go block differs from %s (go test -run TestDocCode ./cmd/bench -update-docs copies it)", page, i+2, m[1])
				continue
			}
			lines = append(lines[:i+2], append(append([]string(nil), want...), lines[end:]...)...)
			changed = true
		}
		if changed {
			if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == 0 {
		t.Error("no <!-- code: PATH --> block in the docs: the worked example of docs/methods.md is gone")
	}
}
