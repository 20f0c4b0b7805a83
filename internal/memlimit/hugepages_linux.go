package memlimit

import (
	"os"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back the heap's first hugeHeap bytes
// of address space with transparent huge pages, when the system gives
// them only to ranges that ask (the "madvise" setting, the default of
// many distributions) and LOOPGATE_HUGEPAGES is not "off".
//
// Why: a replay touches its heap page by page, and with 4 KiB pages that
// is tens of thousands of page faults, many of them also flushing the
// other core's TLB (a page first read maps the shared zero page, and the
// write that follows replaces it). With 2 MiB pages the heap takes a few
// dozen huge page faults and the run far fewer faults in all, for a little
// more peak memory (a huge page is taken whole). The figures, and why the
// gain varies on a virtual machine that hands its free memory back to its
// host: docs/performance.md, "Huge pages for the heap".
//
// How: Go has no setting for this (it stopped advising huge pages itself
// in Go 1.21.1), and its heap's addresses are chosen at random. So one
// large allocation makes the runtime map hugeHeap bytes of heap, which it
// does without touching them; the aligned part of that range is advised,
// and the allocation is dropped and handed back at once
// (debug.FreeOSMemory), so that none of it counts against the soft limit.
// The mapping, and with it the advice, stays: the runtime takes the
// lowest free addresses first, so the heap grows into the advised range.
// Nothing here can fail the command: a failure leaves the heap as it was.
func adviseHugePages() {
	if unsafe.Sizeof(uintptr(0)) < 8 {
		return // the address space of 32 bits is too small to lend hugeHeap of it
	}
	huge := systemHugePage()
	if huge == 0 {
		return
	}
	adviseFreshHeap(huge)
	debug.FreeOSMemory()
}

// systemHugePage is hugePageAdvice's answer for this system's settings and
// this process's LOOPGATE_HUGEPAGES: 0 when a setting cannot be read.
func systemHugePage() int {
	const dir = "/sys/kernel/mm/transparent_hugepage/"
	enabled, err := os.ReadFile(dir + "enabled")
	if err != nil {
		return 0
	}
	size, err := os.ReadFile(dir + "hpage_pmd_size")
	if err != nil {
		return 0
	}
	return hugePageAdvice(string(enabled), string(size), os.Getenv("LOOPGATE_HUGEPAGES"))
}

// adviseFreshHeap allocates hugeHeap bytes, which the runtime maps fresh
// and does not clear, and advises the part of them made of whole huge
// pages. The allocation is dead once it returns.
func adviseFreshHeap(huge int) {
	b := make([]byte, hugeHeap)
	start, end := hugeRange(uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b), huge)
	if end > start {
		_ = syscall.Madvise(b[start:end], syscall.MADV_HUGEPAGE)
	}
}
