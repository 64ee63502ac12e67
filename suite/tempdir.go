package suite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the name of every temporary directory a cache writer
// makes before renaming it into place (resume generations, UGNN warm-up
// entries).
const tempPrefix = ".tmp-"

// StaleTempAge is how old a temporary directory of a cache may get before
// RemoveStaleTemps removes it whatever its owner: a save takes seconds.
const StaleTempAge = time.Hour

// MkdirCacheTemp makes a temporary directory in dir for a cache entry being
// written, named .tmp-HOST-PID-RANDOM so that RemoveStaleTemps can tell
// whether its writer is still alive.
func MkdirCacheTemp(dir string) (string, error) {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == '*' {
			return '_'
		}
		return r
	}, host)
	return os.MkdirTemp(dir, fmt.Sprintf("%s%s-%d-", tempPrefix, host, os.Getpid()))
}

// RemoveStaleTemps removes the temporary directories under dir that a
// killed writer left behind (MkdirCacheTemp): those of a process of this
// host that no longer exists, and any older than StaleTempAge (other
// hosts' and older binaries'). It returns the paths removed; errors are
// ignored (the next call tries again).
func RemoveStaleTemps(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	host, _ := os.Hostname()
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, tempPrefix) {
			continue
		}
		stale := false
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > StaleTempAge {
			stale = true
		} else if h, pid, ok := tempOwner(name); ok && h == host && pid != os.Getpid() && !processExists(pid) {
			stale = true
		}
		if stale && os.RemoveAll(filepath.Join(dir, name)) == nil {
			removed = append(removed, filepath.Join(dir, name))
		}
	}
	return removed
}

// tempOwner parses .tmp-HOST-PID-RANDOM (a host name may hold '-').
func tempOwner(name string) (host string, pid int, ok bool) {
	rest := strings.TrimPrefix(name, tempPrefix)
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", 0, false
	}
	j := strings.LastIndexByte(rest[:i], '-')
	if j < 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(rest[j+1 : i])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return rest[:j], pid, true
}

// processExists reports whether process pid exists on this machine (true
// where the platform cannot tell).
func processExists(pid int) bool {
	if runtime.GOOS == "windows" {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
