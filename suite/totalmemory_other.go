//go:build !linux

package suite

// TotalMemory is the machine's RAM in bytes; 0 (unknown) outside Linux,
// where AutoCPUSlots then counts CPUs alone.
func TotalMemory() uint64 { return 0 }
