package suite

import "syscall"

// TotalMemory is the machine's RAM in bytes (sysinfo(2)'s totalram), or 0
// when the kernel does not say.
func TotalMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
