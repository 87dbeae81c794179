package cacheline

import (
	"fmt"
	"testing"
	"unsafe"
)

// Every slice starts on a line boundary and its capacity fills whole
// lines, so no other object shares a line with it; the length is n.
func TestSliceOwnsItsLines(t *testing.T) {
	for n := 0; n < 300; n += 7 {
		check := func(name string, base uintptr, length, capBytes, want int) {
			t.Helper()
			if length != want {
				t.Fatalf("%s n=%d: len %d", name, n, length)
			}
			if base%Size != 0 || capBytes%Size != 0 || capBytes < Size {
				t.Fatalf("%s n=%d: base %#x mod 64 = %d, capacity %d bytes", name, n, base, base%Size, capBytes)
			}
		}
		b := Slice[byte](n)
		check("byte", uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b), cap(b), n)
		f := Slice[float64](n)
		check("float64", uintptr(unsafe.Pointer(unsafe.SliceData(f))), len(f), 8*cap(f), n)
		w := Slice[int32](n)
		check("int32", uintptr(unsafe.Pointer(unsafe.SliceData(w))), len(w), 4*cap(w), n)
	}
}

func ExampleSlice() {
	counts := Slice[float64](3) // one worker's class counts: one line of 8
	fmt.Println(len(counts), cap(counts))
	// Output: 3 8
}
