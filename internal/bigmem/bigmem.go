// Package bigmem allocates the large, pointer-free state arrays of the
// cycle model in memory advised for transparent huge pages.
package bigmem

import (
	"runtime"
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
func Make[T any, O any](owner *O, n int) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < hugeThreshold {
		return make([]T, n)
	}
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]T, n)
	}
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, mem)
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), n)
}
