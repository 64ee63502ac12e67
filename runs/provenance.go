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

// processGit is the git state of the code this process runs, computed on
// first use: the revision the binary was built from (go build stamps
// vcs.revision and vcs.modified into a binary built inside a checkout), so
// a binary copied elsewhere still records its commit; without that stamp
// (go test, go run, -buildvcs=false) the git state of the working
// directory.
var processGit = sync.OnceValues(func() (string, bool) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if commit, dirty, ok := buildVCS(bi); ok {
			return commit, dirty
		}
	}
	return gitState("")
})

// buildVCS reads the git revision and dirty flag stamped into bi; ok is
// false if bi has no git revision.
func buildVCS(bi *debug.BuildInfo) (commit string, dirty, ok bool) {
	vcs := ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs":
			vcs = s.Value
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return commit, dirty, vcs == "git" && commit != ""
}

// processGoMLX is the GoMLX version of this binary, computed on first use.
var processGoMLX = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return gomlxVersion(bi)
})

// CollectProvenance describes where a run is computed: the git commit of the
// code (the binary's build stamp, else the working directory's checkout)
// and whether it had uncommitted changes (untracked files included, as `git
// status --porcelain` lists them), the Go version, the GoMLX module version
// linked into the binary ("unknown" if it is not, e.g. in tests), the host
// name, and the given backend and device.
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
