package report

import (
	"fmt"
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

// TestDecimateMillion: a 10^6-point trace (non-finite points included)
// reaches the plotter as at most a few thousand points, in order, with its
// extremes.
func TestDecimateMillion(t *testing.T) {
	const n = 1_000_000
	s := Series{X: make([]float64, n), Y: energies(n, 0.9, 0, 5)}
	for i := range s.X {
		s.X[i] = float64(5 * i)
	}
	s.Y[777] = math.NaN()
	s.X[778] = math.Inf(1)
	s.Y[n-1] = 1e6
	pts, err := s.points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) > maxPoints || maxPoints > 5000 {
		t.Fatalf("%d points after decimation (at most %d)", len(pts), maxPoints)
	}
	lo := math.Inf(1)
	for i, y := range s.Y {
		if isFinite(y) && isFinite(s.X[i]) {
			lo = min(lo, y)
		}
	}
	seenLo, seenHi := false, false
	for i, q := range pts {
		if !isFinite(q.X) || !isFinite(q.Y) {
			t.Fatalf("non-finite point %v kept", q)
		}
		if i > 0 && q.X <= pts[i-1].X {
			t.Fatal("decimated points out of order")
		}
		seenLo = seenLo || q.Y == lo
		seenHi = seenHi || q.Y == 1e6
	}
	if !seenLo || !seenHi {
		t.Fatalf("extremes lost (min %v kept: %v, max kept: %v)", lo, seenLo, seenHi)
	}
}

// TestTraceBandKeepsSpike draws a 10^6-point flat trace with one spike
// through the filled band: the spike must reach the top of its panel.
func TestTraceBandKeepsSpike(t *testing.T) {
	s := Series{Name: "spike", Y: make([]float64, 1_000_000)}
	s.Y[654321] = 1
	p := filepath.Join(outDir(t), "spike.png")
	if err := PlotTraces(p, "", []Series{s}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The trace's colour (red) in the upper half of the figure: only the
	// spike goes there, everything else lies on the panel's floor.
	b := img.Bounds()
	red := 0
	for y := b.Min.Y + b.Dy()/10; y < b.Min.Y+b.Dy()/2; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r > 0xc000 && g < 0x8000 && bl < 0x8000 {
				red++
			}
		}
	}
	if red < 20 {
		t.Fatalf("the spike is not drawn (%d red pixels in the upper half)", red)
	}
}

// BenchmarkTraces draws a trace figure of two 40,000-point traces (a
// 200,000-step run, every 5th step), slowly and fast mixing.
func BenchmarkTraces(b *testing.B) {
	for _, phi := range []float64{0.999, 0} {
		b.Run(fmt.Sprintf("phi=%g", phi), func(b *testing.B) {
			dir := b.TempDir()
			traces := []Series{{Name: "a", Y: energies(40000, phi, -5000, 1)}, {Name: "b", Y: energies(40000, phi, -5000, 2)}}
			for b.Loop() {
				if err := PlotTraces(filepath.Join(dir, "t.png"), "title", traces); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
