// Package cputime reads the CPU time of the running process, which the
// benchmarks report beside the wall time (cpu-s/op): on a machine shared
// with other jobs an epoch's CPU time varies far less than its wall time
// (a 2-core run that gets a tenth of the cores takes 10× the wall time,
// not 10× the CPU).
package cputime

import (
	"syscall"
	"time"
)

// Seconds is the process's user + system CPU time so far, in seconds, over
// all its threads (getrusage RUSAGE_SELF).
func Seconds() (float64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), nil
}
