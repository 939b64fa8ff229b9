package reader

import (
	"context"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// PoolAllocator is a memory.Allocator that recycles the buffers it is given
// back instead of leaving them to the garbage collector. Reading Parquet
// through arrow-go allocates and drops buffers at a high rate (page buffers,
// level and value scratch, the builders of every batch): with the plain Go
// allocator the collector then runs many times a second and every fresh
// buffer is cleared page by page. Recycled, the same buffers serve batch
// after batch and the heap, and so the process's memory, grows only with
// what is in use.
//
// Buffers of 4 KiB and more are rounded up to a size class (four per power
// of two, so at most a quarter is slack) and kept per class in a sync.Pool,
// which the garbage collector empties when they go unused; smaller ones, and
// those over 64 MiB, come from the Go heap as with memory.GoAllocator. Like
// every Arrow allocator, it returns zeroed memory, 64-byte aligned. It is
// safe for concurrent use.
type PoolAllocator struct {
	classes [numPoolClasses]sync.Pool
}

// NewPoolAllocator returns an empty PoolAllocator.
func NewPoolAllocator() *PoolAllocator { return &PoolAllocator{} }

const (
	minPoolShift   = 12 // smallest pooled class: 4 KiB
	maxPoolShift   = 26 // largest pooled class: 64 MiB
	classesPerPow2 = 4
	numPoolClasses = (maxPoolShift-minPoolShift)*classesPerPow2 + 1
	poolAlignment  = 64
)

// poolClass returns the size class that holds size bytes and its capacity,
// or -1 when size is not pooled.
func poolClass(size int) (int, int) {
	if size < 1<<minPoolShift || size > 1<<maxPoolShift {
		return -1, 0
	}
	// size lies in (2^(e-1), 2^e]; the classes of that range are
	// 2^(e-1) + k·2^(e-1)/4 for k = 1..4.
	e := bits.Len(uint(size - 1))
	step := 1 << (e - 1) / classesPerPow2
	k := (size - 1<<(e-1) + step - 1) / step
	class := (e-1-minPoolShift)*classesPerPow2 + k
	return class, 1<<(e-1) + k*step
}

// Allocate returns size zeroed bytes.
func (a *PoolAllocator) Allocate(size int) []byte {
	b, reused := a.allocate(size)
	if reused {
		clear(b)
	}
	return b
}

// allocate returns size bytes, zeroed unless reused is set.
func (a *PoolAllocator) allocate(size int) (b []byte, reused bool) {
	class, capacity := poolClass(size)
	if class < 0 {
		return alignedAlloc(size, size), false
	}
	if v, ok := a.classes[class].Get().(*[]byte); ok {
		return (*v)[:size], true
	}
	return alignedAlloc(size, capacity), false
}

// Reallocate returns b grown or shrunk to size bytes, its contents kept and
// any new bytes zeroed; b is not to be used again.
func (a *PoolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	nb, reused := a.allocate(size)
	n := copy(nb, b)
	if reused {
		clear(nb[n:])
	}
	a.Free(b)
	return nb
}

// Free takes back a buffer that Allocate or Reallocate returned.
func (a *PoolAllocator) Free(b []byte) {
	class, capacity := poolClass(cap(b))
	if class < 0 || capacity != cap(b) || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%poolAlignment != 0 {
		return
	}
	b = b[:capacity]
	a.classes[class].Put(&b)
}

// alignedAlloc returns size zeroed bytes of capacity capacity, starting on
// a 64-byte boundary as Arrow buffers should.
func alignedAlloc(size, capacity int) []byte {
	buf := make([]byte, capacity+poolAlignment)
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (poolAlignment - 1))
	return buf[shift : shift+size : shift+capacity]
}

var _ memory.Allocator = (*PoolAllocator)(nil)

// uninitialized returns an allocator for buffers that the caller fills
// whole before anyone reads them: for a PoolAllocator, one whose recycled
// buffers skip the clearing that Allocate owes every other caller.
func uninitialized(mem memory.Allocator) memory.Allocator {
	if p, ok := mem.(*PoolAllocator); ok {
		return uninitializedPool{p}
	}
	return mem
}

type uninitializedPool struct{ *PoolAllocator }

func (u uninitializedPool) Allocate(size int) []byte {
	b, _ := u.allocate(size)
	return b
}

func (u uninitializedPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := u.Allocate(size)
	copy(nb, b)
	u.Free(b)
	return nb
}

// withComputeAllocator returns ctx carrying mem for arrow-go's compute
// functions. arrow-go's kernels (Take among them) size the buffers they
// build by the capacity of the slice the allocator returned and write by
// its length, so a slice with room past its length, which the pool hands
// out, makes them write past the end: a panic in a goroutine of compute's
// own that no recover reaches, or silently truncated strings. The pool is
// therefore wrapped so that compute sees slices whose capacity is their
// length. Any other allocator is wrapped too: one given with WithAllocator
// may hand out such slices as well (a CheckedAllocator over the pool does).
func withComputeAllocator(ctx context.Context, mem memory.Allocator) context.Context {
	if p, ok := mem.(*PoolAllocator); ok {
		mem = exactPool{p}
	} else {
		mem = exactAllocator{mem}
	}
	return compute.WithAllocator(ctx, mem)
}

// exactAllocator cuts the capacity of every slice it hands out to its
// length. The room cut off is not recovered: an allocator that recycles
// by capacity gets those slices back as foreign ones and leaves them to
// the garbage collector, which costs speed, never correctness.
type exactAllocator struct{ mem memory.Allocator }

func (e exactAllocator) Allocate(size int) []byte {
	return e.mem.Allocate(size)[:size:size]
}

func (e exactAllocator) Reallocate(size int, b []byte) []byte {
	return e.mem.Reallocate(size, b)[:size:size]
}

func (e exactAllocator) Free(b []byte) { e.mem.Free(b) }

// exactPool is a PoolAllocator whose slices have no capacity past their
// length. Every slice it hands out starts an allocation of at least its
// capacity's size class, so room recovers the pool's capacity; it serves
// only compute, which frees what it allocated through the same allocator.
type exactPool struct{ p *PoolAllocator }

func (e exactPool) Allocate(size int) []byte {
	return e.p.Allocate(size)[:size:size]
}

func (e exactPool) Reallocate(size int, b []byte) []byte {
	return e.p.Reallocate(size, room(b))[:size:size]
}

func (e exactPool) Free(b []byte) { e.p.Free(room(b)) }

// room returns b, a slice exactPool handed out, with the capacity of its
// size class: the capacity the pool gave it.
func room(b []byte) []byte {
	if class, capacity := poolClass(cap(b)); class >= 0 {
		return unsafe.Slice(unsafe.SliceData(b), capacity)[:len(b)]
	}
	return b
}
