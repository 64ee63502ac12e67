package runs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestCollectProvenance(t *testing.T) {
	p := CollectProvenance("xla:cuda", "cuda:0")
	if p.Backend != "xla:cuda" || p.Device != "cuda:0" {
		t.Errorf("backend/device %q %q", p.Backend, p.Device)
	}
	if p.GoVersion != runtime.Version() {
		t.Errorf("GoVersion %q, want %q", p.GoVersion, runtime.Version())
	}
	if p.GoMLXVersion == "" {
		t.Error("empty GoMLXVersion")
	}
	if host, _ := os.Hostname(); p.Host != host {
		t.Errorf("Host %q, want %q", p.Host, host)
	}
	if p.GitCommit != "" && !regexp.MustCompile(`^[0-9a-f]{40,64}$`).MatchString(p.GitCommit) {
		t.Errorf("GitCommit %q", p.GitCommit)
	}
	q := CollectProvenance("go", "cpu:0")
	if q.GitCommit != p.GitCommit || q.GitDirty != p.GitDirty {
		t.Errorf("git state changed between calls: %+v vs %+v", p, q)
	}
	t.Logf("%+v", p)
}

func TestGitState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	notRepo := t.TempDir()
	if c, d := gitState(notRepo); c != "" || d {
		// t.TempDir could be inside a checkout only if TMPDIR is; report.
		t.Errorf("outside a checkout: %q %v", c, d)
	}

	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if c, _ := gitState(repo); c != "" {
		t.Errorf("repo without commits: commit %q", c)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.txt")
	run("commit", "-q", "-m", "first")
	c, d := gitState(repo)
	if !regexp.MustCompile(`^[0-9a-f]{40,64}$`).MatchString(c) || d {
		t.Errorf("clean checkout: commit %q dirty %v", c, d)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2, d2 := gitState(repo)
	if c2 != c || !d2 {
		t.Errorf("modified checkout: commit %q dirty %v; want %q true", c2, d2, c)
	}
}

func TestGoMLXVersion(t *testing.T) {
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"absent", debug.BuildInfo{Deps: []*debug.Module{{Path: "x/y", Version: "v1.0.0"}}}, "unknown"},
		{"dep", debug.BuildInfo{Deps: []*debug.Module{{Path: "x/y", Version: "v1"}, {Path: gomlxModule, Version: "v0.28.2"}}}, "v0.28.2"},
		{"replaced by module", debug.BuildInfo{Deps: []*debug.Module{{Path: gomlxModule, Version: "v0.28.2",
			Replace: &debug.Module{Path: "fork/gomlx", Version: "v0.29.0"}}}}, "v0.29.0"},
		{"replaced by dir", debug.BuildInfo{Deps: []*debug.Module{{Path: gomlxModule, Version: "v0.28.2",
			Replace: &debug.Module{Path: "../gomlx"}}}}, "v0.28.2 => ../gomlx"},
		{"main", debug.BuildInfo{Main: debug.Module{Path: gomlxModule, Version: "v0.30.0"}}, "v0.30.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := gomlxVersion(&c.bi); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestBuildVCS(t *testing.T) {
	setting := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	for _, c := range []struct {
		name           string
		bi             *debug.BuildInfo
		commit         string
		dirty, stamped bool
	}{
		{"clean", setting("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "false"), "abc123", false, true},
		{"dirty", setting("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "true"), "abc123", true, true},
		{"no stamp (-buildvcs=false, go test)", setting("GOOS", "linux"), "", false, false},
		{"another VCS", setting("vcs", "hg", "vcs.revision", "abc123"), "abc123", false, false},
	} {
		commit, dirty, ok := buildVCS(c.bi)
		if commit != c.commit || dirty != c.dirty || ok != c.stamped {
			t.Errorf("%s: buildVCS = %q, %v, %v; want %q, %v, %v", c.name, commit, dirty, ok, c.commit, c.dirty, c.stamped)
		}
	}
}
