package rbmtrain

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
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

// npy32 encodes a float32 array in the .npy format (model.NPYHeader, then
// the little-endian data).
func npy32(shape []int, data []float64) []byte {
	out := model.NPYHeader("<f4", shape...)
	for _, x := range data {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(x)))
	}
	return out
}
