package runs

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// gomlxModule is the module path whose version CollectProvenance records.
const gomlxModule = "github.com/gomlx/gomlx"

// gitTimeout bounds each git command, so a hung git never blocks a grid.
const gitTimeout = 10 * time.Second

// processGit is the git state of the working directory, computed on first
// use: a grid calls CollectProvenance for every run and the checkout does
// not change meanwhile (or if it does, the commit at grid start is the
// meaningful one).
var processGit = sync.OnceValues(func() (string, bool) { return gitState("") })

// processGoMLX is the GoMLX version of this binary, computed on first use.
var processGoMLX = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return gomlxVersion(bi)
})

// CollectProvenance describes where a run is computed: the git commit of the
// working directory and whether the checkout has uncommitted changes
// (untracked files included, as `git status --porcelain` lists them), the Go
// version, the GoMLX module version linked into the binary ("unknown" if it
// is not, e.g. in tests), the host name, and the given backend and device.
// Outside a git checkout, or without git, GitCommit is "" and GitDirty
// false; in a checkout without commits GitCommit is "". The git state is
// computed once per process.
func CollectProvenance(backend, device string) Provenance {
	commit, dirty := processGit()
	host, err := os.Hostname()
	if err != nil {
		host = ""
	}
	return Provenance{
		GitCommit:    commit,
		GitDirty:     dirty,
		GoVersion:    runtime.Version(),
		GoMLXVersion: processGoMLX(),
		Backend:      backend,
		Device:       device,
		Host:         host,
	}
}

// gitState returns the HEAD commit of the git checkout containing dir ("" =
// the working directory) and whether it has uncommitted changes. Any failure
// (no git, not a checkout, no commits) gives "" and/or false.
func gitState(dir string) (commit string, dirty bool) {
	if out, err := git(dir, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		commit = strings.TrimSpace(out)
	}
	if out, err := git(dir, "status", "--porcelain"); err == nil {
		dirty = strings.TrimSpace(out) != ""
	}
	return commit, dirty
}

// git runs git with args in dir and returns its standard output.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// Do not take the index lock for `git status`: a concurrent git command
	// of the user must not fail because of us.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return string(out), err
}

// gomlxVersion finds the GoMLX module in bi: the version of its replacement
// if replaced by a module, "vX => /dir" if replaced by a directory, else its
// own version; "unknown" if GoMLX is not linked in.
func gomlxVersion(bi *debug.BuildInfo) string {
	if bi.Main.Path == gomlxModule && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, m := range bi.Deps {
		if m.Path != gomlxModule {
			continue
		}
		switch {
		case m.Replace != nil && m.Replace.Version != "":
			return m.Replace.Version
		case m.Replace != nil:
			// Replaced by a local directory: say so, it may differ from
			// the required version.
			return m.Version + " => " + m.Replace.Path
		case m.Version != "":
			return m.Version
		}
	}
	return "unknown"
}
