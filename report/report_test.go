package report

import (
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// outDir is where figures go; REPORT_KEEP=DIR keeps them for a look.
func outDir(t *testing.T) string {
	if d := os.Getenv("REPORT_KEEP"); d != "" {
		return d
	}
	return t.TempDir()
}

func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s is %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	// Not blank: some pixels must differ from the white background.
	dark := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				dark++
			}
		}
	}
	if dark < 100 {
		t.Fatalf("%s looks blank (%d dark pixels)", path, dark)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp"))
	if len(matches) > 0 {
		t.Fatalf("temporary files left behind: %v", matches)
	}
}

func energies(n int, phi, mean float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	e := make([]float64, n)
	x := 0.0
	for i := range e {
		x = phi*x + r.NormFloat64()
		e[i] = mean + 10*x
	}
	return e
}

func TestFigures(t *testing.T) {
	dir := outDir(t)
	var acf []Series
	names := []string{"sardonics", "gibbs", "sw", "blockgibbs"}
	for k, name := range names {
		tau := []float64{3, 40, 8, 15}[k]
		y := make([]float64, 101)
		for i := range y {
			y[i] = math.Exp(-float64(i) / tau)
		}
		acf = append(acf, Series{Name: name, Y: y})
	}
	p := filepath.Join(dir, "acf.png")
	if err := PlotACF(p, "ferro2d:L=60, T = 2.27", acf); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 800, 500)

	var traces []Series
	for k, name := range names[:3] {
		traces = append(traces, Series{Name: name, Y: energies(20000, 0.99, -5000+float64(k)*100, uint64(k))})
	}
	p = filepath.Join(dir, "trace.png")
	if err := PlotTraces(p, "ferro2d:L=60, T = 2.27", traces); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 800, 650)

	r := rand.New(rand.NewPCG(1, 1))
	rewards := make([]float64, 200)
	for i := range rewards {
		rewards[i] = 0.9 - 0.5*math.Exp(-float64(i)/40)*r.Float64()
	}
	rewards[17] = math.NaN() // skipped, not fatal
	p = filepath.Join(dir, "rewards.png")
	if err := PlotRewards(p, "tuning rewards", rewards); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 800, 500)
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.png")
	if err := PlotACF(p, "", []Series{{Name: "a", X: []float64{1}, Y: []float64{1, 2}}}); err == nil {
		t.Error("mismatched X and Y accepted")
	}
	if err := PlotACF(p, "", nil); err == nil {
		t.Error("no curves accepted")
	}
	if err := PlotTraces(p, "", nil); err == nil {
		t.Error("no traces accepted")
	}
	if err := PlotRewards(p, "", []float64{math.NaN()}); err == nil {
		t.Error("no finite rewards accepted")
	}
	if err := PlotRewards(filepath.Join(dir, "missing", "r.png"), "", []float64{1}); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("a failed figure left %s behind", p)
	}
}

func TestDecimateKeepsExtremes(t *testing.T) {
	s := Series{Y: make([]float64, 100000)}
	s.Y[12345] = 7
	s.Y[99999] = -3
	pts, err := s.points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) > maxPoints+2 {
		t.Fatalf("%d points after decimation", len(pts))
	}
	hi, lo := 0.0, 0.0
	for i, q := range pts {
		hi, lo = math.Max(hi, q.Y), math.Min(lo, q.Y)
		if i > 0 && q.X <= pts[i-1].X {
			t.Fatal("decimated points out of order")
		}
	}
	if hi != 7 || lo != -3 {
		t.Fatalf("extremes %v, %v lost", hi, lo)
	}
}
