package rbmtrain

import (
	"bytes"
	"time"

	"sardonics/atomicfile"
	"sardonics/model"
	"sardonics/npy"
)

// WriteNPZ32 writes r atomically as an .npz archive (deflated zip) of the
// float32 little-endian, C-order arrays W (V, H), b (V,) and c (H,), the
// layout `rbm:PATH.npz` reads. The bytes depend only on r.
func WriteNPZ32(r *model.RBM, path string) error {
	data, err := EncodeNPZ32(r)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// EncodeNPZ32 returns the .npz bytes WriteNPZ32 writes.
func EncodeNPZ32(r *model.RBM) ([]byte, error) {
	var buf bytes.Buffer
	err := npy.WriteArchive(&buf, npy.Options{Compress: true, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		npy.Array{Name: "W", Data: npy.F4(r.W, r.V, r.H)}, npy.Array{Name: "b", Data: npy.F4(r.B, r.V)}, npy.Array{Name: "c", Data: npy.F4(r.C, r.H)})
	return buf.Bytes(), err
}
