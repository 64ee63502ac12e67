//go:build !xla

package gnn

// xlaCompiledIn reports whether the XLA backend is linked in (-tags xla).
const xlaCompiledIn = false
