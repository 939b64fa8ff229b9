package reader

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestPoolClasses(t *testing.T) {
	t.Parallel()
	prev := -1
	for size := 1; size <= 1<<maxPoolShift+1; size += 1 + size/97 {
		class, capacity := poolClass(size)
		if size < 1<<minPoolShift || size > 1<<maxPoolShift {
			if class != -1 {
				t.Fatalf("size %d is pooled in class %d, want unpooled", size, class)
			}
			continue
		}
		switch {
		case class < 0 || class >= numPoolClasses:
			t.Fatalf("size %d: class %d out of range", size, class)
		case capacity < size:
			t.Fatalf("size %d: class capacity %d too small", size, capacity)
		case 4*capacity > 5*size+4*(1<<minPoolShift)/classesPerPow2:
			t.Fatalf("size %d: class capacity %d wastes more than a quarter", size, capacity)
		case class < prev:
			t.Fatalf("size %d: class %d below the previous size's %d", size, class, prev)
		}
		if c2, cap2 := poolClass(capacity); c2 != class || cap2 != capacity {
			t.Fatalf("capacity %d of size %d's class is in class %d (capacity %d)", capacity, size, c2, cap2)
		}
		prev = class
	}
}

func TestPoolAllocator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T, a *PoolAllocator)
	}{
		{"a reused buffer is zeroed", func(t *testing.T, a *PoolAllocator) {
			for range 10 {
				b := a.Allocate(10_000)
				for i, v := range b {
					if v != 0 {
						t.Fatalf("byte %d = %d, want 0", i, v)
					}
					b[i] = 0xff
				}
				a.Free(b)
			}
		}},
		{"buffers are 64-byte aligned", func(t *testing.T, a *PoolAllocator) {
			for _, size := range []int{1, 63, 100, 4096, 5000, 1 << 20, 1<<maxPoolShift + 1} {
				b := a.Allocate(size)
				if len(b) != size || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
					t.Fatalf("Allocate(%d): len %d at %p", size, len(b), unsafe.SliceData(b))
				}
				a.Free(b)
			}
		}},
		{"reallocating keeps the contents and zeroes the rest", func(t *testing.T, a *PoolAllocator) {
			dirty := a.Allocate(1 << 16)
			for i := range dirty {
				dirty[i] = 0xee
			}
			a.Free(dirty)
			b := a.Allocate(5000)
			for i := range b {
				b[i] = byte(i)
			}
			want := append([]byte(nil), b...)
			for _, size := range []int{5100, 4000, 5120, 70_000, 1 << 16} {
				b = a.Reallocate(size, b)
				want = append(want[:min(len(want), size)], make([]byte, max(0, size-len(want)))...)
				if string(b) != string(want) {
					t.Fatalf("Reallocate(%d): contents differ", size)
				}
			}
			a.Free(b)
		}},
		{"buffers from elsewhere are left to the collector", func(t *testing.T, a *PoolAllocator) {
			a.Free(make([]byte, 5000))
			a.Free(make([]byte, 8192)[1:])
			a.Free(nil)
			b := a.Allocate(5000)
			if cap(b) != 5120 {
				t.Fatalf("cap = %d, want the class's 5120", cap(b))
			}
		}},
		{"concurrent use", func(t *testing.T, a *PoolAllocator) {
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := range 200 {
						b := a.Allocate(4096 + (g*997+i*131)%100_000)
						for j := range b {
							if b[j] != 0 {
								t.Errorf("dirty byte in a fresh buffer")
								return
							}
							b[j] = byte(g + 1)
						}
						a.Free(b)
					}
				})
			}
			wg.Wait()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, NewPoolAllocator())
		})
	}
}

// TestPoolAllocatorBuffers checks the allocator under arrow-go's Buffer,
// which is how the reader uses it, with the uninitialized variant sharing
// its pool.
func TestPoolAllocatorBuffers(t *testing.T) {
	t.Parallel()
	a := NewPoolAllocator()
	for range 3 {
		raw := memory.NewResizableBuffer(uninitialized(a))
		raw.Resize(50_000)
		for i := range raw.Bytes() {
			raw.Bytes()[i] = 0x5a
		}
		raw.Release()
		zeroed := memory.NewResizableBuffer(a)
		zeroed.Resize(50_000)
		for i, v := range zeroed.Bytes() {
			if v != 0 {
				t.Fatalf("byte %d = %#x after reuse, want 0", i, v)
			}
		}
		zeroed.Resize(120_000)
		zeroed.Release()
	}
}

// TestPoolAllocatorUnderCompute takes long strings out of a column of short
// and long ones, so that Take's output outgrows its estimate: through the
// pool's own slices, whose capacity exceeds their length, arrow-go's kernel
// wrote past the end (the panic of a filtered read of samples.trips). An
// allocator wrapping the pool, as a CheckedAllocator does, hands out the
// same slices and must be made safe as well.
func TestPoolAllocatorUnderCompute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mem  memory.Allocator
	}{
		{"the pool itself", NewPoolAllocator()},
		{"a checked allocator over the pool", memory.NewCheckedAllocator(NewPoolAllocator())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			takeLongStrings(t, tc.mem)
		})
	}
}

func takeLongStrings(t *testing.T, mem memory.Allocator) {
	bld := array.NewStringBuilder(mem)
	var want []string
	var idx []int32
	for i := range 20_000 {
		v := "x"
		if i%2 == 1 {
			v = fmt.Sprintf("a longer value, number %08d", i)
			want = append(want, v)
			idx = append(idx, int32(i))
		}
		bld.Append(v)
	}
	col := bld.NewArray()
	defer col.Release()
	bld.Release()
	for round := range 3 {
		indices := int32Array(mem, idx)
		taken, err := compute.TakeArrayOpts(withComputeAllocator(context.Background(), mem), col, indices, compute.TakeOptions{BoundsCheck: false})
		indices.Release()
		if err != nil {
			t.Fatal(err)
		}
		if taken == nil {
			t.Fatalf("round %d: take returned no array and no error", round)
		}
		if err := array.ValidateFull(taken); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got := taken.(*array.String)
		for i, w := range want {
			if got.Value(i) != w {
				t.Fatalf("round %d: row %d = %q, want %q", round, i, got.Value(i), w)
			}
		}
		taken.Release()
	}
}
