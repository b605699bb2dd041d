package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Writer appends values to B.
type Writer struct{ B []byte }

func (w *Writer) Uint64(x uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, x) }
func (w *Writer) Int64(x int64)   { w.Uint64(uint64(x)) }
func (w *Writer) Float64(x float64) {
	w.Uint64(math.Float64bits(x))
}

// Int8s appends len(x) and x.
func (w *Writer) Int8s(x []int8) {
	w.Uint64(uint64(len(x)))
	for _, v := range x {
		w.B = append(w.B, byte(v))
	}
}

// Bytes appends len(x) and x.
func (w *Writer) Bytes(x []byte) {
	w.Uint64(uint64(len(x)))
	w.B = append(w.B, x...)
}

// Int32s appends len(x) and x.
func (w *Writer) Int32s(x []int32) {
	w.Uint64(uint64(len(x)))
	for _, v := range x {
		w.B = binary.LittleEndian.AppendUint32(w.B, uint32(v))
	}
}

// Float64s appends len(x) and x.
func (w *Writer) Float64s(x []float64) {
	w.Uint64(uint64(len(x)))
	for _, v := range x {
		w.Float64(v)
	}
}

// Int64s appends len(x) and x.
func (w *Writer) Int64s(x []int64) {
	w.Uint64(uint64(len(x)))
	for _, v := range x {
		w.Int64(v)
	}
}

// Float32s appends len(x) and x.
func (w *Writer) Float32s(x []float32) {
	w.Uint64(uint64(len(x)))
	for _, v := range x {
		w.B = binary.LittleEndian.AppendUint32(w.B, math.Float32bits(v))
	}
}

// Reader reads what a Writer wrote, in the same order.
type Reader struct {
	B   []byte
	err error
}

// ErrShort is the error of a Reader that ran out of bytes.
var ErrShort = errors.New("state: truncated")

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.B) < n {
		r.err = ErrShort
		return nil
	}
	b := r.B[:n]
	r.B = r.B[n:]
	return b
}

func (r *Reader) Uint64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}
func (r *Reader) Int64() int64     { return int64(r.Uint64()) }
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// length reads a slice length and checks it equals want.
func (r *Reader) length(want int, what string) bool {
	n := r.Uint64()
	if r.err != nil {
		return false
	}
	if n != uint64(want) {
		r.err = fmt.Errorf("state: %d %s (expected %d)", n, what, want)
		return false
	}
	return true
}

// Int8s fills dst, whose length the state must match.
func (r *Reader) Int8s(dst []int8) {
	if !r.length(len(dst), "int8 values") {
		return
	}
	for i, v := range r.take(len(dst)) { // nothing when short
		dst[i] = int8(v)
	}
}

// Spins is Int8s for a state's spins: any value but -1 and +1 is an error.
func (r *Reader) Spins(dst []int8) {
	r.Int8s(dst)
	if r.err != nil {
		return
	}
	for i, v := range dst {
		if v != 1 && v != -1 {
			r.err = fmt.Errorf("state: spin %d is %d (expected -1 or +1)", i, v)
			return
		}
	}
}

// Bytes returns a slice of any length (a view into the buffer).
func (r *Reader) Bytes() []byte {
	n := r.Uint64()
	if n > uint64(len(r.B)) {
		r.err = ErrShort
		return nil
	}
	return r.take(int(n))
}

// Int32s fills dst, whose length the state must match.
func (r *Reader) Int32s(dst []int32) {
	if !r.length(len(dst), "int32 values") {
		return
	}
	b := r.take(4 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// Int64s fills dst, whose length the state must match.
func (r *Reader) Int64s(dst []int64) {
	if !r.length(len(dst), "int64 values") {
		return
	}
	b := r.take(8 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// Float64s fills dst, whose length the state must match.
func (r *Reader) Float64s(dst []float64) {
	if !r.length(len(dst), "float64 values") {
		return
	}
	b := r.take(8 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// Float32s fills dst, whose length the state must match.
func (r *Reader) Float32s(dst []float32) {
	if !r.length(len(dst), "float32 values") {
		return
	}
	b := r.take(4 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// Fail records err if no error was recorded yet (a decoder's own check).
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Bad is the first error so far, for decoders that must stop early (Err
// also checks that nothing is left over, so it belongs at the end).
func (r *Reader) Bad() error { return r.err }

// Err is the first error, or an error if bytes are left over.
func (r *Reader) Err() error {
	if r.err == nil && len(r.B) != 0 {
		return fmt.Errorf("state: %d bytes left over", len(r.B))
	}
	return r.err
}
