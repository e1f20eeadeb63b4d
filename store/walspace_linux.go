package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// walReserve is how far past its end reserveWAL keeps the WAL's file allocated: more
// than the commits of a busy second write before the checkpointer's next round.
const walReserve = 16 << 20

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: blocks past the end are allocated without
// moving it, so SQLite still sees only the frames it wrote.
const fallocKeepSize = 0x1

// reserveWAL keeps the WAL's blocks allocated ahead of the commits that write them. A
// commit that appends into a hole of the file takes the inode's block-map lock for
// writing, and writeback of the WAL (the checkpointer's fsync, or the kernel's flusher)
// holds that lock while it allocates blocks: on ext4 that stalled commits, and so the
// changes waiting for them to go live, for tens of milliseconds. Appends into allocated
// blocks take the lock-free path. The allocation stays as long as the file does: SQLite
// writes a restarted WAL from its start over the same blocks. A file system that cannot
// preallocate is left as it is.
func reserveWAL(path string) error {
	f, err := os.OpenFile(path+"-wal", os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open WAL to reserve it: %w", err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Errorf("stat WAL: %w", err)
	}
	// Only a file within half a reserve of its allocated end is extended, so the
	// checkpointer's rounds cost a stat and nothing more.
	if st.Blocks*512 >= st.Size+walReserve/2 {
		return nil
	}
	err = syscall.Fallocate(int(f.Fd()), fallocKeepSize, 0, st.Size+walReserve)
	if err != nil && !errors.Is(err, syscall.EOPNOTSUPP) {
		return fmt.Errorf("reserve WAL: %w", err)
	}
	return nil
}
