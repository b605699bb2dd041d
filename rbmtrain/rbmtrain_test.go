package rbmtrain

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"sardonics/model"
	"sardonics/rng"
)

// toyPatches: 4 x 4 images, pattern A in 70% of them, pattern B in 30%,
// each pixel then flipped with probability 0.15 (so that the modes overlap
// and persistent chains can move between them).
func toyPatches(n int) *Patches {
	r := rng.Stream(11, 0)
	a := []uint8{1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1}
	b := []uint8{1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1}
	p := &Patches{N: n, Rows: 4, Cols: 4, Bits: make([]uint8, 16*n)}
	for k := 0; k < n; k++ {
		src := a
		if k%10 >= 7 {
			src = b
		}
		for i, b := range src {
			if rng.Float64(r) < 0.15 {
				b = 1 - b
			}
			p.Patch(k)[i] = b
		}
	}
	return p
}

var toyCfg = Config{Hidden: 8, Epochs: 60, Batch: 20, Chains: 20, LR: 0.1, PLLSamples: 100}

// exactMeans returns E[v] under the RBM by enumerating all 2^V visible
// states, and the mean log-likelihood of the data.
func exactMeans(r *model.RBM, data *Patches) ([]float64, float64) {
	means := make([]float64, r.V)
	logp := make([]float64, 1<<r.V)
	maxl := math.Inf(-1)
	for s := range logp {
		l := 0.0
		for i := 0; i < r.V; i++ {
			if s>>i&1 == 1 {
				l += r.B[i]
			}
		}
		for j := 0; j < r.H; j++ {
			x := r.C[j]
			for i := 0; i < r.V; i++ {
				if s>>i&1 == 1 {
					x += r.W[i*r.H+j]
				}
			}
			l += softplus(x)
		}
		logp[s] = l
		maxl = math.Max(maxl, l)
	}
	z := 0.0
	for s, l := range logp {
		p := math.Exp(l - maxl)
		z += p
		for i := 0; i < r.V; i++ {
			if s>>i&1 == 1 {
				means[i] += p
			}
		}
	}
	for i := range means {
		means[i] /= z
	}
	logZ := maxl + math.Log(z)
	ll := 0.0
	for k := 0; k < data.N; k++ {
		s := 0
		for i, b := range data.Patch(k) {
			s |= int(b) << i
		}
		ll += logp[s] - logZ
	}
	return means, ll / float64(data.N)
}

func TestTrainToy(t *testing.T) {
	data := toyPatches(200)
	m, pll, err := Train(toyCfg, data, rng.Stream(3, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The best model with independent pixels (where Train starts, W aside).
	b0 := make([]float64, 16)
	for i := range b0 {
		on := 0.0
		for k := 0; k < data.N; k++ {
			on += float64(data.Patch(k)[i])
		}
		b0[i] = math.Log(on / (float64(data.N) - on))
	}
	m0, _ := model.NewRBM(16, 8, make([]float64, 16*8), b0, nil)
	_, ll0 := exactMeans(m0, data)
	means, ll := exactMeans(m, data)
	t.Logf("pseudo-log-likelihood %.3f -> %.3f, exact log-likelihood %.3f (independent pixels) -> %.3f", pll[0], pll[len(pll)-1], ll0, ll)
	if !(ll > ll0+0.5) {
		t.Errorf("exact log-likelihood %.3f (expected more than %.3f, independent pixels' + 0.5)", ll, ll0)
	}
	if len(pll) != toyCfg.Epochs+1 {
		t.Fatalf("curve has %d points (expected %d)", len(pll), toyCfg.Epochs+1)
	}
	if !(pll[len(pll)-1] > pll[0]+1) {
		t.Errorf("pseudo-log-likelihood went from %.3f to %.3f (expected an increase)", pll[0], pll[len(pll)-1])
	}
	for i, got := range means {
		want := 0.0
		for k := 0; k < data.N; k++ {
			want += float64(data.Patch(k)[i])
		}
		want /= float64(data.N)
		if math.Abs(got-want) > 0.1 {
			t.Errorf("pixel %d: model mean %.3f, data mean %.3f", i, got, want)
		}
	}
}

func TestTrainDeterministic(t *testing.T) {
	data := toyPatches(100)
	cfg := toyCfg
	cfg.Epochs = 5
	m1, p1, err := Train(cfg, data, rng.Stream(7, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, p2, err := Train(cfg, data, rng.Stream(7, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m1, m2) || !reflect.DeepEqual(p1, p2) {
		t.Error("two runs with the same seed differ")
	}
	m3, _, _ := Train(cfg, data, rng.Stream(8, 0), nil)
	if reflect.DeepEqual(m1.W, m3.W) {
		t.Error("runs with different seeds are identical")
	}
}

// TestTrainLargeDeterministic covers gonum's parallel Gemm path.
func TestTrainLargeDeterministic(t *testing.T) {
	data := &Patches{N: 300, Rows: 16, Cols: 16, Bits: make([]uint8, 300*256)}
	r := rng.Stream(1, 1)
	for i := range data.Bits {
		data.Bits[i] = uint8(r.Uint64() & 1)
	}
	cfg := Config{Hidden: 300, Epochs: 1, Batch: 150, Chains: 150, PLLSamples: 300}
	m1, _, err := Train(cfg, data, rng.Stream(2, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, _ := Train(cfg, data, rng.Stream(2, 0), nil)
	if !reflect.DeepEqual(m1, m2) {
		t.Error("two runs with the same seed differ")
	}
}

func TestPatchesRoundTrip(t *testing.T) {
	p := &Patches{N: 3, Rows: 3, Cols: 5, Bits: make([]uint8, 45)}
	r := rng.Stream(4, 0)
	for i := range p.Bits {
		p.Bits[i] = uint8(r.Uint64() & 1)
	}
	path := filepath.Join(t.TempDir(), "p.bin")
	if err := WritePatches(p, path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 16+3*2 {
		t.Fatalf("file size %v, %v (expected 22)", fi.Size(), err)
	}
	q, err := LoadPatches(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Errorf("round trip changed the patches:\n%v\n%v", p, q)
	}
	data, _ := os.ReadFile(path)
	for _, bad := range [][]byte{nil, data[:20], append(append([]byte{}, data...), 0), []byte("XXXX" + string(data[4:]))} {
		if _, err := DecodePatches(bad); err == nil {
			t.Errorf("DecodePatches accepted %d bad bytes", len(bad))
		}
	}
}

func TestBundledPatches(t *testing.T) {
	p, err := LoadPatches("../data/patches/patches.bin")
	if err != nil {
		t.Skip(err)
	}
	if p.Rows != 28 || p.Cols != 28 || p.N < 1000 {
		t.Errorf("bundled set is %d patches of %d x %d (expected 28 x 28)", p.N, p.Rows, p.Cols)
	}
}

func TestBundledModel(t *testing.T) {
	data, err := os.ReadFile("../data/paper-rbm.npz")
	if err != nil {
		t.Skip(err)
	}
	m, err := model.ReadNPZ("paper-rbm.npz", data)
	if err != nil {
		t.Fatal(err)
	}
	if m.RBM.V != 784 || m.RBM.H != 500 {
		t.Errorf("bundled RBM is %d x %d (expected 784 x 500)", m.RBM.V, m.RBM.H)
	}
}

func TestExtractPatches(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			g.SetGray(x, y, color.Gray{uint8((x*7 + y*y) % 256)})
		}
	}
	cfg := ExtractConfig{N: 11, Side: 8, Seed: 5}
	p, err := ExtractPatches([]image.Image{g}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ExtractPatches([]image.Image{g}, cfg)
	if p.N != 11 || p.Rows != 8 || !reflect.DeepEqual(p, q) {
		t.Errorf("extraction gave %d patches of %d (expected 11 of 8, the same twice)", p.N, p.Rows)
	}
	flat := image.NewGray(image.Rect(0, 0, 20, 20))
	if _, err := ExtractPatches([]image.Image{flat}, ExtractConfig{N: 1, Side: 8, MaxTries: 10}); err == nil {
		t.Error("a flat image gave patches")
	}
}

// readNPZ32 is an independent reader of the float32 .npz layout.
func readNPZ32(t *testing.T, data []byte) map[string][]float32 {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float32{}
	for _, f := range z.File {
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if string(b[:8]) != "\x93NUMPY\x01\x00" {
			t.Fatalf("%s: bad magic", f.Name)
		}
		hl := int(binary.LittleEndian.Uint16(b[8:]))
		if (10+hl)%64 != 0 || !strings.Contains(string(b[10:10+hl]), "'<f4'") {
			t.Fatalf("%s: header %q", f.Name, b[10:10+hl])
		}
		body := b[10+hl:]
		a := make([]float32, len(body)/4)
		for i := range a {
			a[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		}
		out[strings.TrimSuffix(f.Name, ".npy")+"|"+string(b[10:10+hl])] = a
	}
	return out
}

func TestNPZ32(t *testing.T) {
	m, _ := model.NewRBM(3, 2, []float64{1, -2, 3.5, 0.25, -1e-3, 7}, []float64{0.5, 0, -0.5}, []float64{1, 2})
	data, err := EncodeNPZ32(m)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := EncodeNPZ32(m)
	if !bytes.Equal(data, again) {
		t.Error("encoding is not reproducible")
	}
	mm, err := model.ReadNPZ("m.npz", data)
	if err != nil {
		t.Fatal(err)
	}
	if mm.RBM == nil || mm.RBM.V != 3 || mm.RBM.H != 2 || mm.RBM.W[2] != 3.5 || mm.RBM.W[4] != float64(float32(-1e-3)) || mm.RBM.C[1] != 2 {
		t.Errorf("model.ReadNPZ gave %+v", mm.RBM)
	}
	got := readNPZ32(t, data)
	want := map[string][]float64{
		"W|{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }": m.W,
		"b|{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }":   m.B,
		"c|{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }":   m.C,
	}
	for k, w := range want {
		var g []float32
		for gk, gv := range got {
			if strings.HasPrefix(gk, k) {
				g = gv
			}
		}
		if len(g) != len(w) {
			t.Fatalf("array %s missing or misshapen in %v", k, got)
		}
		for i := range w {
			if g[i] != float32(w[i]) {
				t.Errorf("%s[%d] = %v (expected %v)", k[:1], i, g[i], w[i])
			}
		}
	}
}

func TestFiltersPNG(t *testing.T) {
	m, _ := model.NewRBM(4, 5, make([]float64, 20), nil, nil)
	for i := range m.W {
		m.W[i] = float64(i % 7)
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := FiltersPNG(m, path, 2); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 5 tiles in 3 columns, 2 rows of 3-pixel cells plus a border.
	if b := img.Bounds(); b.Dx() != 10 || b.Dy() != 7 {
		t.Errorf("image is %v (expected 10 x 7)", b)
	}
	if err := FiltersPNG(m, path, 3); err == nil {
		t.Error("side 3 accepted for 4 visible units")
	}
}

// TestPLLShortcut checks the cached flip against two full free energies.
func TestPLLShortcut(t *testing.T) {
	const v, h = 6, 4
	tr := newTrainer(v, h, 1, 1)
	r := rng.Stream(9, 0)
	for _, a := range [][]float64{tr.w, tr.b, tr.c} {
		for i := range a {
			a[i] = 2*rng.Float64(r) - 1
		}
	}
	set := []float64{1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0}
	flip := []int{0, 3, 5, 2, 2, 4}
	want := 0.0
	for k := 0; k < 2; k++ {
		row := append([]float64(nil), set[k*v:(k+1)*v]...)
		f := tr.freeEnergy(blas64.General{Rows: 1, Cols: v, Stride: v, Data: row})[0]
		for _, i := range flip[k*3 : (k+1)*3] {
			row[i] = 1 - row[i]
			f2 := tr.freeEnergy(blas64.General{Rows: 1, Cols: v, Stride: v, Data: row})[0]
			row[i] = 1 - row[i]
			want += v * math.Log(sigmoid(f2-f))
		}
	}
	want /= 6
	if got := tr.pll(set, flip); math.Abs(got-want) > 1e-12 {
		t.Errorf("pll = %v (expected %v)", got, want)
	}
}

// freeEnergy is the reference F(v) = -b.v - sum_j softplus(c_j + (v W)_j) per row.
func (t *trainer) freeEnergy(v blas64.General) []float64 {
	fe := make([]float64, v.Rows)
	for k := range fe {
		row := v.Data[k*t.v : (k+1)*t.v]
		s := 0.0
		for i, vi := range row {
			s -= vi * t.b[i]
		}
		for j := 0; j < t.h; j++ {
			x := t.c[j]
			for i, vi := range row {
				x += vi * t.w[i*t.h+j]
			}
			s -= softplus(x)
		}
		fe[k] = s
	}
	return fe
}

func FuzzDecodePatches(f *testing.F) {
	p := &Patches{N: 2, Rows: 3, Cols: 3, Bits: []uint8{1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}}
	good, _ := p.Encode()
	f.Add(good)
	f.Add(good[:17])
	f.Add([]byte("PTCH\xff\xff\xff\xff\x01\x00\x00\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePatches(data)
		if err != nil {
			return
		}
		again, err := p.Encode()
		if err != nil || !bytes.Equal(again[:16], data[:16]) {
			t.Errorf("decoded set does not encode back: %v", err)
		}
	})
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in, npz, img := filepath.Join(dir, "p.bin"), filepath.Join(dir, "m.npz"), filepath.Join(dir, "f.png")
	if err := WritePatches(toyPatches(50), in); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := Run(Config{Hidden: 3, Epochs: 2, Batch: 10, Chains: 10, PLLSamples: 20, Seed: 1}, in, npz, img, &log); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "pseudo-log-likelihood"); n != 3 {
		t.Errorf("log has %d epoch lines (expected 3):\n%s", n, log.String())
	}
	data, err := os.ReadFile(npz)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.ReadNPZ(npz, data)
	if err != nil || m.RBM.V != 16 || m.RBM.H != 3 {
		t.Fatalf("ReadNPZ: %v, %+v", err, m)
	}
	if _, err := os.Stat(img); err != nil {
		t.Error(err)
	}
	if err := Run(Config{}, filepath.Join(dir, "missing.bin"), "", "", nil); err == nil {
		t.Error("a missing patch file was accepted")
	}
}

// BenchmarkUpdate times one PCD update of the paper's 784 x 500 RBM with
// mini-batches and chains of 100.
func BenchmarkUpdate(b *testing.B) {
	t := newTrainer(784, 500, 100, 100)
	r := rng.Stream(1, 0)
	for i := range t.w {
		t.w[i] = 0.01 * (2*rng.Float64(r) - 1)
	}
	for i := range t.vpos.Data {
		t.vpos.Data[i] = float64(r.Uint64() & 1)
	}
	b.ResetTimer()
	for range b.N {
		t.update(r, 0.01, 0.5, 1e-4)
	}
}
