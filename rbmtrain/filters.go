package rbmtrain

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"

	"sardonics/atomicfile"
	"sardonics/model"
)

// filterLevels is the number of gray levels in the filter figure; fewer
// than 256 keep the PNG small at no visible cost.
const filterLevels = 32

// FiltersPNG draws each hidden unit's weights as a side x side gray tile
// (min-max normalized per tile to 32 levels, visible unit i at row i/side,
// column i%side) in a grid of ceil(sqrt(H)) columns with 1-pixel black borders,
// and writes the PNG atomically. It needs V = side*side.
func FiltersPNG(r *model.RBM, path string, side int) error {
	if side <= 0 || r.V != side*side {
		return fmt.Errorf("RBM has %d visible units (expected side*side = %d)", r.V, side*side)
	}
	cols := int(math.Ceil(math.Sqrt(float64(r.H))))
	rows := (r.H + cols - 1) / cols
	cell := side + 1
	img := image.NewGray(image.Rect(0, 0, cols*cell+1, rows*cell+1))
	for j := 0; j < r.H; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < r.V; i++ {
			w := r.W[i*r.H+j]
			lo, hi = math.Min(lo, w), math.Max(hi, w)
		}
		scale := 0.0
		if hi > lo {
			scale = (filterLevels - 1) / (hi - lo)
		}
		x0, y0 := (j%cols)*cell+1, (j/cols)*cell+1
		for i := 0; i < r.V; i++ {
			q := int(math.Round((r.W[i*r.H+j] - lo) * scale))
			img.Pix[(y0+i/side)*img.Stride+x0+i%side] = uint8(q * 255 / (filterLevels - 1))
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}
