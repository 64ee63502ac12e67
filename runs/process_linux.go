//go:build linux

package runs

import (
	"bytes"
	"os"
	"strconv"
)

// pidNamespace names this process's pid namespace, e.g. "pid:[4026531836]"
// ("" if /proc cannot tell).
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// probeProcess reads /proc/PID/stat: whether process pid exists in this pid
// namespace and its start time (field 22, clock ticks after boot; 0 if the
// file cannot be parsed).
func probeProcess(pid int) (exists bool, start int64) {
	if pid <= 0 {
		return false, 0
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err), 0
	}
	// The command name (field 2) is in parentheses and may contain spaces:
	// fields 3… follow the last ')'. Field 22 is the 20th after it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return true, 0
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 {
		return true, 0
	}
	start, err = strconv.ParseInt(string(fields[19]), 10, 64)
	if err != nil {
		return true, 0
	}
	return true, start
}
