//go:build !linux

package store

// reserveWAL preallocates the WAL on Linux only (walspace_linux.go), where a commit's
// append into a hole of the file was seen to wait for the WAL's writeback.
func reserveWAL(path string) error { return nil }
