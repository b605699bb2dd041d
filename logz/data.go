package logz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"sardonics/npy"
)

// ReadRows decodes an .npy array of visible vectors: shape (rows, v) or
// (v,), each value 0 or 1, of dtype bool, uint8, int8, int16, int32,
// int64, float32 or float64 (little-endian), C or Fortran order. The
// error says what is wrong and what was expected.
func ReadRows(raw []byte, v int) ([][]uint8, error) {
	f, msg := npy.Split(raw)
	if msg != "" {
		return nil, errors.New(msg)
	}
	size, kind := 0, byte(0)
	switch f.Descr {
	case "|u1", "<u1", "u1", "|b1", "b1":
		size, kind = 1, 'u'
	case "|i1", "<i1", "i1":
		size, kind = 1, 'i'
	case "<i2":
		size, kind = 2, 'i'
	case "<i4":
		size, kind = 4, 'i'
	case "<i8":
		size, kind = 8, 'i'
	case "<f4":
		size, kind = 4, 'f'
	case "<f8":
		size, kind = 8, 'f'
	default:
		return nil, fmt.Errorf("dtype %q (expected 0/1 values as bool, uint8, a little-endian integer or float)", f.Descr)
	}
	rows, cols := 1, 0
	switch len(f.Shape) {
	case 1:
		cols = f.Shape[0]
	case 2:
		rows, cols = f.Shape[0], f.Shape[1]
	default:
		return nil, fmt.Errorf("shape %v (expected (rows, %d) or (%d,))", f.Shape, v, v)
	}
	if cols != v {
		return nil, fmt.Errorf("rows of %d values (expected %d, one per visible unit)", cols, v)
	}
	if rows == 0 {
		return nil, errors.New("no rows (expected at least one visible vector)")
	}
	if len(f.Data)/size/v < rows || len(f.Data) != rows*v*size {
		return nil, fmt.Errorf("%d bytes of data (expected %d for shape (%d, %d) of %s)", len(f.Data), rows*v*size, rows, v, f.Descr)
	}
	out := make([][]uint8, rows)
	for r := range out {
		out[r] = make([]uint8, v)
		for i := range v {
			k := r*v + i
			if f.Fortran {
				k = i*rows + r
			}
			x := value(f.Data[k*size:(k+1)*size], kind)
			switch x {
			case 0:
			case 1:
				out[r][i] = 1
			default:
				return nil, fmt.Errorf("row %d, column %d holds %v (expected 0 or 1: an RBM's visible units are bits)", r, i, x)
			}
		}
	}
	return out, nil
}

// value is one little-endian element as a float64 (NaN for a bit pattern
// that is not a number).
func value(b []byte, kind byte) float64 {
	switch {
	case kind == 'f' && len(b) == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case kind == 'f':
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case kind == 'u':
		return float64(b[0])
	case len(b) == 1:
		return float64(int8(b[0]))
	case len(b) == 2:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case len(b) == 4:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	}
	return float64(int64(binary.LittleEndian.Uint64(b)))
}

// LogProbs are the exact ln p(v) = ln f_beta(v) - lnZ of each row (see
// FreeEnergies), given an estimate lnZ; their mean's error is lnZ's, the
// rows being given.
func LogProbs(fe []float64, lnZ float64) []float64 {
	out := make([]float64, len(fe))
	for i, f := range fe {
		out[i] = f - lnZ
	}
	return out
}
