// Package bigmem allocates the large, pointer-free state arrays of the
// cycle model in memory advised for transparent huge pages.
package bigmem

import (
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeThreshold is the size above which flat state arrays are mapped with
// transparent huge pages: the model's per-flit work is a few random accesses
// into arrays of hundreds of megabytes, and 4 KiB pages make each of them a
// TLB miss as well as a cache miss.
const hugeThreshold = 64 << 20

// Make returns a zeroed slice of n elements of a pointer-free type T,
// backed by an anonymous mapping advised for huge pages when it is large
// (the garbage collector never scans it: T holds no pointers). Small slices
// come from the Go heap.
// The mapping is released when owner becomes unreachable.
func Make[T any, O any](owner *O, n int) []T { return alloc[T](owner, n, true) }

// MakeSparse is Make for an array a run may touch little of, or none: its
// pages are not faulted in ahead (nor advised for huge pages), so only
// the pages written take memory.
func MakeSparse[T any, O any](owner *O, n int) []T { return alloc[T](owner, n, false) }

func alloc[T any, O any](owner *O, n int, dense bool) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < hugeThreshold {
		return make([]T, n)
	}
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]T, n)
	}
	if dense {
		_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
		touch(mem)
	}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, mem)
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), n)
}

// touch faults the pages of a new mapping in on all cores. The kernel
// zeroes each page on its first write (2 MiB at a time with huge pages),
// seconds of system time at a million ranks (clear_page in a profile),
// which the single-threaded build, or the first cycles' writes, would
// otherwise pay one page at a time. Every page is written zero, its
// content already: the mapping is not yet shared.
func touch(mem []byte) {
	const page = 4 << 10
	w := max(1, runtime.GOMAXPROCS(0))
	pages := (len(mem) + page - 1) / page
	per := (pages + w - 1) / w
	var wg sync.WaitGroup
	for lo := 0; lo < pages; lo += per {
		hi := min(lo+per, pages)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := lo; p < hi; p++ {
				mem[p*page] = 0
			}
		}()
	}
	wg.Wait()
}
