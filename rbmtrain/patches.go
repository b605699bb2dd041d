package rbmtrain

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"

	"sardonics/atomicfile"
	"sardonics/rng"
)

// Patches is a set of N binary images of Rows x Cols pixels. Bits holds
// N*Rows*Cols values in {0,1}, patch after patch, each row-major.
type Patches struct {
	N, Rows, Cols int
	Bits          []uint8
}

// Patch returns patch k (a view into Bits).
func (p *Patches) Patch(k int) []uint8 {
	v := p.Rows * p.Cols
	return p.Bits[k*v : (k+1)*v]
}

// Patch file format: the 4 bytes "PTCH", then count, rows and cols as
// little-endian uint32, then each patch's bits row-major, packed 8 per byte
// most significant bit first, each patch padded to a whole byte.
const patchMagic = "PTCH"

// LoadPatches reads a patch file written by WritePatches.
func LoadPatches(path string) (*Patches, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := DecodePatches(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// DecodePatches parses the bytes of a patch file.
func DecodePatches(data []byte) (*Patches, error) {
	if len(data) < 16 || string(data[:4]) != patchMagic {
		return nil, fmt.Errorf("not a patch file (expected the magic %q and a 16-byte header)", patchMagic)
	}
	n := binary.LittleEndian.Uint32(data[4:])
	rows := binary.LittleEndian.Uint32(data[8:])
	cols := binary.LittleEndian.Uint32(data[12:])
	if n == 0 || rows == 0 || cols == 0 || rows > 4096 || cols > 4096 {
		return nil, fmt.Errorf("header says %d patches of %d x %d (expected positive sizes, at most 4096)", n, rows, cols)
	}
	v := int(rows) * int(cols)
	stride := (v + 7) / 8
	if uint64(len(data)-16) != uint64(n)*uint64(stride) {
		return nil, fmt.Errorf("body is %d bytes (expected %d for %d patches of %d x %d)", len(data)-16, uint64(n)*uint64(stride), n, rows, cols)
	}
	p := &Patches{N: int(n), Rows: int(rows), Cols: int(cols), Bits: make([]uint8, int(n)*v)}
	body := data[16:]
	for k := 0; k < p.N; k++ {
		src := body[k*stride : (k+1)*stride]
		dst := p.Patch(k)
		for i := range dst {
			dst[i] = (src[i>>3] >> (7 - uint(i&7))) & 1
		}
	}
	return p, nil
}

// Encode returns the patch file bytes of p.
func (p *Patches) Encode() ([]byte, error) {
	v := p.Rows * p.Cols
	if p.N <= 0 || p.Rows <= 0 || p.Cols <= 0 || len(p.Bits) != p.N*v {
		return nil, fmt.Errorf("patch set %d x %d x %d with %d bits (expected positive sizes and N*Rows*Cols bits)", p.N, p.Rows, p.Cols, len(p.Bits))
	}
	stride := (v + 7) / 8
	out := make([]byte, 16+p.N*stride)
	copy(out, patchMagic)
	binary.LittleEndian.PutUint32(out[4:], uint32(p.N))
	binary.LittleEndian.PutUint32(out[8:], uint32(p.Rows))
	binary.LittleEndian.PutUint32(out[12:], uint32(p.Cols))
	for k := 0; k < p.N; k++ {
		dst := out[16+k*stride : 16+(k+1)*stride]
		for i, b := range p.Patch(k) {
			if b > 1 {
				return nil, fmt.Errorf("patch %d pixel %d is %d (expected 0 or 1)", k, i, b)
			}
			dst[i>>3] |= b << (7 - uint(i&7))
		}
	}
	return out, nil
}

// WritePatches writes p to path atomically.
func WritePatches(p *Patches, path string) error {
	data, err := p.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// ExtractConfig fixes the patch extraction. Zero fields take the defaults.
type ExtractConfig struct {
	N         int     // patches in all (default 10000), split evenly over the sources
	Side      int     // patch side in pixels (default 28)
	MinStd    float64 // reject patches whose gray-level standard deviation is below this (default 8, of 255)
	Seed      uint64  // random stream rng.Stream(Seed, 0) (default 0)
	MaxTries  int     // draws per accepted patch before giving up (default 1000)
	NoHalving bool    // use full-resolution images only (default: full and half resolution)
}

// ExtractPatches cuts binarized patches out of grayscale images.
//
// Procedure: each image is turned to gray levels by color.GrayModel (Go's
// ITU-R 601 luma on 16-bit channels); unless NoHalving, a half-resolution
// copy (2 x 2 box mean, rounded half up) follows it, making the list of
// sources. For source s in order, N/len(sources) patches (the first N mod
// len(sources) sources take one more) are drawn: top-left corner x =
// Intn(width-Side+1), then y = Intn(height-Side+1); a patch whose standard
// deviation is below MinStd is rejected and redrawn. Pixel bits are 1 where
// the gray level is strictly above the patch mean. The patches are then
// shuffled by Fisher-Yates (i from N-1 down to 1, j = Intn(i+1)) on the
// same stream.
func ExtractPatches(imgs []image.Image, cfg ExtractConfig) (*Patches, error) {
	if cfg.N == 0 {
		cfg.N = 10000
	}
	if cfg.Side == 0 {
		cfg.Side = 28
	}
	if cfg.MinStd == 0 {
		cfg.MinStd = 8
	}
	if cfg.MaxTries == 0 {
		cfg.MaxTries = 1000
	}
	var srcs []*image.Gray
	for _, im := range imgs {
		g := toGray(im)
		srcs = append(srcs, g)
		if !cfg.NoHalving {
			srcs = append(srcs, halve(g))
		}
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("no images (expected at least one)")
	}
	s := cfg.Side
	v := s * s
	p := &Patches{N: cfg.N, Rows: s, Cols: s, Bits: make([]uint8, cfg.N*v)}
	r := rng.Stream(cfg.Seed, 0)
	k := 0
	for si, g := range srcs {
		w, h := g.Rect.Dx(), g.Rect.Dy()
		if w < s || h < s {
			return nil, fmt.Errorf("source %d is %d x %d (expected at least %d x %d)", si, w, h, s, s)
		}
		want := cfg.N / len(srcs)
		if si < cfg.N%len(srcs) {
			want++
		}
		for got := 0; got < want; got++ {
			ok := false
			for try := 0; try < cfg.MaxTries && !ok; try++ {
				x := rng.Intn(r, w-s+1)
				y := rng.Intn(r, h-s+1)
				ok = cutPatch(g, x, y, s, cfg.MinStd, p.Patch(k))
			}
			if !ok {
				return nil, fmt.Errorf("source %d: no patch with standard deviation >= %g in %d draws", si, cfg.MinStd, cfg.MaxTries)
			}
			k++
		}
	}
	tmp := make([]uint8, v)
	for i := p.N - 1; i > 0; i-- {
		j := rng.Intn(r, i+1)
		copy(tmp, p.Patch(i))
		copy(p.Patch(i), p.Patch(j))
		copy(p.Patch(j), tmp)
	}
	return p, nil
}

// cutPatch binarizes the s x s patch at (x, y) of g into dst at its mean; it
// reports false (leaving dst unspecified) if the patch is too flat.
func cutPatch(g *image.Gray, x, y, s int, minStd float64, dst []uint8) bool {
	sum, sum2 := 0, 0
	for dy := 0; dy < s; dy++ {
		row := g.Pix[(y+dy)*g.Stride+x : (y+dy)*g.Stride+x+s]
		for _, q := range row {
			sum += int(q)
			sum2 += int(q) * int(q)
		}
	}
	n := s * s
	// Variance in exact integers: (n*sum2 - sum^2) / n^2.
	if math.Sqrt(float64(n*sum2-sum*sum))/float64(n) < minStd {
		return false
	}
	for dy := 0; dy < s; dy++ {
		row := g.Pix[(y+dy)*g.Stride+x : (y+dy)*g.Stride+x+s]
		for dx, q := range row {
			// q > mean  <=>  n*q > sum, exactly.
			if n*int(q) > sum {
				dst[dy*s+dx] = 1
			} else {
				dst[dy*s+dx] = 0
			}
		}
	}
	return true
}

// toGray converts im to a zero-origin gray image by color.GrayModel.
func toGray(im image.Image) *image.Gray {
	b := im.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			g.Pix[y*g.Stride+x] = color.GrayModel.Convert(im.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
		}
	}
	return g
}

// halve returns the 2 x 2 box mean of g (odd edges dropped), rounded half up.
func halve(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx()/2, g.Rect.Dy()/2
	o := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := int(g.Pix[2*y*g.Stride+2*x]) + int(g.Pix[2*y*g.Stride+2*x+1]) +
				int(g.Pix[(2*y+1)*g.Stride+2*x]) + int(g.Pix[(2*y+1)*g.Stride+2*x+1])
			o.Pix[y*o.Stride+x] = uint8((a + 2) / 4)
		}
	}
	return o
}
