package hugemem

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestMakeLarge: a large array is zeroed, writable to its capacity and
// mapped apart from the heap, aligned to a huge page.
func TestMakeLarge(t *testing.T) {
	var a Arena
	defer a.Release()
	const n, c = 1000, 3 << 20 // 24 MiB of capacity
	s := Make[uint64](&a, n, c)
	if len(s) != n || cap(s) != c {
		t.Fatalf("len %d cap %d, want %d %d", len(s), cap(s), n, c)
	}
	s = s[:c]
	for i := range s {
		if s[i] != 0 {
			t.Fatalf("s[%d] = %d, want 0", i, s[i])
		}
		s[i] = uint64(i)
	}
	if s[c-1] != c-1 {
		t.Fatal("last element not kept")
	}
	if runtime.GOOS == "linux" {
		if p := uintptr(unsafe.Pointer(&s[0])); p%pageBytes != 0 {
			t.Errorf("array at %#x, not aligned to a huge page", p)
		}
		if len(a.maps) != 1 {
			t.Errorf("%d mappings, want 1", len(a.maps))
		}
	}
}

// TestAlignOffset: the offset to the next huge page boundary.
func TestAlignOffset(t *testing.T) {
	for _, c := range []struct {
		p    uintptr
		want int
	}{{0, 0}, {1, pageBytes - 1}, {pageBytes, 0}, {pageBytes + 4096, pageBytes - 4096}, {7*pageBytes - 64, 64}} {
		if got := alignOffset(c.p); got != c.want {
			t.Errorf("alignOffset(%#x) = %d, want %d", c.p, got, c.want)
		}
	}
}

// TestMakeAdvisesHugePages: the kernel is asked for huge pages for the
// mapping (its VmFlags in /proc/self/smaps carry "hg").
func TestMakeAdvisesHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	var a Arena
	defer a.Release()
	s := Make[byte](&a, 4<<20, 4<<20)
	if !advised(t, uintptr(unsafe.Pointer(&s[0]))) {
		t.Fatal("mapping of the array: no hg (MADV_HUGEPAGE)")
	}
}

// TestAdviseHeap: Advise asks for huge pages for the whole huge pages of
// a large heap array, and leaves arrays below MinBytes, empty ones and nil
// alone.
func TestAdviseHeap(t *testing.T) {
	Advise([]int64(nil))
	Advise(make([]byte, 0))
	Advise(make([]byte, MinBytes-1))
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	s := make([]*int, 0, 1<<20) // 8 MiB of pointers: whole huge pages within
	Advise(s)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	page := start + uintptr(alignOffset(start))
	if !advised(t, page) {
		t.Fatalf("huge page at %#x within the array at %#x: no hg (MADV_HUGEPAGE)", page, start)
	}
	runtime.KeepAlive(s)
}

// TestWholePages: the whole huge pages of an array, never past its end.
func TestWholePages(t *testing.T) {
	const P = pageBytes
	for _, c := range []struct {
		p, size, off, n uintptr
	}{
		{P, 3 * P, 0, 3 * P},               // aligned: all of it
		{P + 4096, 3 * P, P - 4096, 2 * P}, // two whole pages inside, none past the end
		{P + 4096, 3*P + 4096, P - 4096, 2 * P},
		{P + 64, MinBytes, 0, 0},            // no whole page
		{P, MinBytes - 1, 0, 0},             // below MinBytes
		{P - 1, 2*P - 2, 1, P},              // one whole page, not the cut one after it
		{P - 1, P, 1, 0},                    // a byte short of a whole page
		{7*P + 100, 10 * P, P - 100, 9 * P}, // 9 whole pages, the 10th cut
	} {
		off, n := wholePages(c.p, c.size)
		if off != c.off || n != c.n {
			t.Errorf("wholePages(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.size, off, n, c.off, c.n)
		}
		if n > 0 && (off+n > c.size || (c.p+off)%P != 0) {
			t.Errorf("wholePages(%#x, %#x): [%#x, %#x) not aligned or past the array", c.p, c.size, off, off+n)
		}
	}
}

// advised reports whether the mapping that holds address p carries "hg"
// (MADV_HUGEPAGE) in /proc/self/smaps.
func advised(t *testing.T, p uintptr) bool {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	var in bool
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			lo, hi, ok := strings.Cut(f[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = ok && err1 == nil && err2 == nil && uint64(p) >= l && uint64(p) < h
			continue
		}
		if in && len(f) > 0 && f[0] == "VmFlags:" {
			for _, flag := range f[1:] {
				if flag == "hg" {
					return true
				}
			}
			return false
		}
	}
	t.Fatalf("mapping at %#x not found in /proc/self/smaps", p)
	return false
}

// TestMakeSmall: below MinBytes, and for a capacity below the length, the
// slice is an ordinary one and nothing is mapped.
func TestMakeSmall(t *testing.T) {
	var a Arena
	for _, c := range []struct{ n, cap, wantCap int }{
		{10, 10, 10},
		{0, MinBytes/8 - 1, MinBytes/8 - 1},
		{5, 2, 5},
		{0, 0, 0},
	} {
		s := Make[int64](&a, c.n, c.cap)
		if len(s) != c.n || cap(s) != c.wantCap {
			t.Errorf("Make(%d, %d): len %d cap %d, want %d %d", c.n, c.cap, len(s), cap(s), c.n, c.wantCap)
		}
	}
	if len(a.maps) != 0 {
		t.Errorf("%d mappings for small arrays", len(a.maps))
	}
	a.Release()
}

// TestRelease: Release unmaps once, however often it is called, and
// ReleaseWith releases the arena when its owner is collected.
func TestRelease(t *testing.T) {
	var a Arena
	before := Mapped()
	Make[byte](&a, 2<<20, 2<<20)
	if runtime.GOOS == "linux" && Mapped() < before+2<<20 {
		t.Errorf("Mapped %d after mapping 2 MiB, was %d", Mapped(), before)
	}
	a.Release()
	a.Release()
	if a.maps != nil {
		t.Fatal("mappings kept after Release")
	}
	if Mapped() != before {
		t.Errorf("Mapped %d after Release, want %d", Mapped(), before)
	}

	owner := new([64]byte)
	b := new(Arena)
	Make[byte](b, 2<<20, 2<<20)
	ReleaseWith(b, owner)
	runtime.KeepAlive(owner)
	owner = nil
	for range 100 {
		runtime.GC()
		b.mu.Lock()
		done := b.maps == nil
		b.mu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the arena was not released when its owner was collected")
}
