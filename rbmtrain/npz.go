package rbmtrain

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"sardonics/model"
)

// WriteNPZ32 writes r atomically as an .npz archive (deflated zip) of the
// float32 little-endian, C-order arrays W (V, H), b (V,) and c (H,), the
// layout `rbm:PATH.npz` reads. The bytes depend only on r.
func WriteNPZ32(r *model.RBM, path string) error {
	data, err := EncodeNPZ32(r)
	if err != nil {
		return err
	}
	return model.WriteFileAtomic(path, data)
}

// EncodeNPZ32 returns the .npz bytes WriteNPZ32 writes.
func EncodeNPZ32(r *model.RBM) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	arrays := []struct {
		name  string
		shape []int
		data  []float64
	}{
		{"W", []int{r.V, r.H}, r.W},
		{"b", []int{r.V}, r.B},
		{"c", []int{r.H}, r.C},
	}
	for _, a := range arrays {
		w, err := z.CreateHeader(&zip.FileHeader{
			Name:     a.name + ".npy",
			Method:   zip.Deflate,
			Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC),
		})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(npy32(a.shape, a.data)); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// npy32 encodes a float32 array in the .npy format, version 1.0: magic,
// version, header length, a Python dict literal padded with spaces to a
// multiple of 64 bytes and ended by '\n', then the data.
func npy32(shape []int, data []float64) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	s := strings.Join(dims, ", ")
	if len(shape) == 1 {
		s += ","
	}
	hdr := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", s)
	pad := 64 - (10+len(hdr)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr += strings.Repeat(" ", pad) + "\n"
	out := make([]byte, 0, 10+len(hdr)+4*len(data))
	out = append(out, "\x93NUMPY\x01\x00"...)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(hdr)))
	out = append(out, hdr...)
	for _, x := range data {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(x)))
	}
	return out
}
