//go:build !linux

package memlimit

// adviseHugePages does nothing off Linux: the advice it gives there
// (madvise MADV_HUGEPAGE) is Linux's.
func adviseHugePages() {}
