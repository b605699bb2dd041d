package figure

import (
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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
	if err := PlotACF(p, "ferro2d:L=60, T = 2.27", "lag (steps)", acf); err != nil {
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
	if err := PlotACF(p, "", "lag (steps)", []Series{{Name: "a", X: []float64{1}, Y: []float64{1, 2}}}); err == nil {
		t.Error("mismatched X and Y accepted")
	}
	if err := PlotACF(p, "", "lag (steps)", nil); err == nil {
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

// TestTicksExtreme: ticks for ranges that make gonum's DefaultTicks panic
// ("illegal range" for an empty range) or loop forever (-1e308 to 1e308)
// come back at once, inside the range, in order and with distinct labels.
func TestTicksExtreme(t *testing.T) {
	for _, r := range [][2]float64{
		{-942, -900}, {0, 1}, {1, 10}, {1005, 3995}, {-1, 1},
		{1e16, 1e16}, {-3e16, -3e16}, {1e16, 1e16 + 4}, {1e16, 1e16 + 2}, {-3e16 - 8, -3e16}, {0, 1e16},
		{1e300, 1.0000001e300}, {1e300, 1e301}, {-1e308, 1e308}, {-math.MaxFloat64, math.MaxFloat64},
		{1, 1 + 1e-15}, {0, 5e-324}, {1e-300, 2e-300}, {-5e-324, 5e-324},
		{math.Inf(1), math.Inf(-1)}, {math.NaN(), 1}, {2, 1},
	} {
		for _, ct := range []cleanTicks{{}, {steps: 6}} {
			ts := ct.Ticks(r[0], r[1])
			if !(r[0] <= r[1]) || !isFinite(r[0]) || !isFinite(r[1]) {
				if len(ts) != 0 {
					t.Errorf("%v: %d ticks for an empty range", r, len(ts))
				}
				continue
			}
			labels := map[string]bool{}
			prev := math.Inf(-1)
			for _, tk := range ts {
				if !isFinite(tk.Value) || tk.Value < r[0] || tk.Value > r[1] {
					t.Errorf("%v: tick %v outside the range", r, tk.Value)
				}
				if tk.Label == "" {
					continue
				}
				if tk.Value <= prev || labels[tk.Label] || strings.Contains(tk.Label, "NaN") || strings.Contains(tk.Label, "Inf") {
					t.Errorf("%v: labels %v", r, ts)
					break
				}
				prev, labels[tk.Label] = tk.Value, true
			}
			if len(labels) == 0 || len(labels) > 2*int(max(ct.steps, 4))+1 {
				t.Errorf("%v: %d labels", r, len(labels))
			}
		}
	}
	// Round values, the shortest labels.
	got := ""
	for _, tk := range (cleanTicks{}).Ticks(-971, -893) {
		if tk.Label != "" {
			got += tk.Label + " "
		}
	}
	if got != "-960 -940 -920 -900 " {
		t.Errorf("ticks of [-971, -893]: %q", got)
	}
}

// TestFiguresExtremeValues: every figure renders values the figure code
// used to panic or hang on (a constant trace at 3e16, a trace 1e16 wide,
// values near 1e300 and at both ends of float64) as a PNG, with no error.
func TestFiguresExtremeValues(t *testing.T) {
	dir := outDir(t)
	cases := map[string][]float64{
		"const3e16":  {3e16, 3e16, 3e16, 3e16},
		"const0":     {0, 0, 0},
		"wide1e16":   {0, 1e16, 5e15, -1e16},
		"ulp1e16":    {1e16, 1e16 + 2, 1e16, 1e16 + 4},
		"near1e300":  {1e300, 1.0000001e300, 1.00000005e300},
		"span1e308":  {-math.MaxFloat64, math.MaxFloat64, 0, -1e308, 1e308},
		"one":        {-7},
		"nonfinite":  {math.NaN(), math.Inf(1), 5, math.Inf(-1)},
		"tiny":       {5e-324, 0, -5e-324},
		"manyconst":  make([]float64, 3000),
		"manyhuge":   energies(3000, 0.9, -1e15, 3),
		"farsampler": energies(5000, 0.9, -1283.5, 4),
	}
	for name, y := range cases {
		traces := []Series{{Name: "a", Y: y}, {Name: "b", Y: energies(min(len(y), 300), 0.5, 0, 1)}}
		if err := PlotTraces(filepath.Join(dir, "trace-"+name+".png"), "traces "+name, traces); err != nil {
			t.Errorf("%s: trace figure: %v", name, err)
		}
		if err := PlotACF(filepath.Join(dir, "acf-"+name+".png"), "acf "+name, "lag (steps)", traces); err != nil {
			t.Errorf("%s: ACF figure: %v", name, err)
		}
		if err := PlotRewards(filepath.Join(dir, "rewards-"+name+".png"), "rewards "+name, y); err != nil && name != "nonfinite" {
			t.Errorf("%s: reward figure: %v", name, err)
		}
	}
	checkPNG(t, filepath.Join(dir, "trace-span1e308.png"), 800, 500)
	checkPNG(t, filepath.Join(dir, "rewards-const3e16.png"), 800, 500)
}

// TestTraceSharedRange: the panels of a trace figure share one energy
// range, that of all finite energies of all traces, so that a sampler 600
// energy units from the others is drawn 600 units away.
func TestTraceSharedRange(t *testing.T) {
	traces := []Series{
		{Name: "a", Y: []float64{-940, -950, math.NaN(), -930}},
		{Name: "b", X: []float64{1, 2, 3}, Y: []float64{-1540, math.Inf(-1), -1530}},
		{Name: "c", X: []float64{1, math.NaN()}, Y: []float64{-945, 1e9}}, // 1e9 is at x = NaN: not drawn
		{Name: "empty"},
	}
	if lo, hi := sharedRange(traces); lo != -1540 || hi != -930 {
		t.Errorf("shared range [%v, %v], want [-1540, -930]", lo, hi)
	}
	if lo, hi := sharedRange([]Series{{Name: "x", Y: []float64{math.NaN()}}}); !math.IsInf(lo, 1) || !math.IsInf(hi, -1) {
		t.Errorf("no finite point: range [%v, %v]", lo, hi)
	}
	if lo, hi := padRange(3e16, 3e16); !(lo < 3e16 && hi > 3e16) {
		t.Errorf("padRange(3e16, 3e16) = [%v, %v], not a range", lo, hi)
	}
	if m, ok := traces[1].mean(); !ok || m != -1535 {
		t.Errorf("mean of b: %v, %v", m, ok)
	}
	if got := fmtResolved(-1283.46, 0.61); got != "-1283.5" {
		t.Errorf("fmtResolved(-1283.46, 0.61) = %q", got)
	}
	// The figure of a sampler far from the others: every panel's
	// trace colour spans the same rows of pixels it would if drawn alone
	// on the shared range; here simply, the far sampler's panel has its
	// trace at the bottom and the others' at the top.
	p := filepath.Join(outDir(t), "trace-far.png")
	far := []Series{
		{Name: "sardonics", Y: energies(4000, 0.9, -940, 1)},
		{Name: "gibbs", Y: energies(4000, 0.9, -1540, 2)},
	}
	if err := PlotTraces(p, "a sampler 600 energy units away", far); err != nil {
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
	// Rows of each panel's coloured pixels, relative to the panel.
	b := img.Bounds()
	half := b.Dy() / 2
	span := func(y0, y1 int) (lo, hi int) {
		lo, hi = -1, -1
		for y := y0; y < y1; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if max(r, g, bl)-min(r, g, bl) > 0x4000 { // coloured, not grey
					if lo < 0 {
						lo = y - y0
					}
					hi = y - y0
					break
				}
			}
		}
		return lo, hi
	}
	aLo, aHi := span(b.Min.Y, half)
	bLo, bHi := span(half, b.Max.Y)
	if aLo < 0 || bLo < 0 || !(aHi < bLo) {
		t.Errorf("panel a's trace in rows %d..%d, panel b's in %d..%d: want a's above b's (a shared range)", aLo, aHi, bLo, bHi)
	}
}

// TestTitleFits: a title too long for the figure is shrunk, then broken
// into lines, each fitting the width.
func TestTitleFits(t *testing.T) {
	width := Width - vg.Points(16)
	for _, title := range []string{
		"Energy traces after burn-in (every 5th step): frustrated2d:L=24,seed=1, beta = 1",
		"Energy traces after burn-in (every 5th step): chimera:M=16,N=16,T=4,seed=123456789,J=pm1,h=pm1, beta = 0.33333333333333331",
		"Energy traces after burn-in (every 5th step): /very/long/path/" + strings.Repeat("x", 300) + ".txt, beta = 1",
	} {
		sty := headerStyle()
		got := fitText(&sty, title, width)
		if strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != strings.ReplaceAll(title, " ", "") {
			t.Errorf("fitText changed the text: %q", got)
		}
		for _, line := range strings.Split(got, "\n") {
			if w := sty.Width(line); w > width {
				t.Errorf("line %q is %v wide (width %v)", line, w, width)
			}
		}
		// fitText shrinks a long title by at most a quarter, then wraps.
		if floor := headerStyle().Font.Size * 3 / 4; sty.Font.Size < floor {
			t.Errorf("font shrunk to %v (floor %v)", sty.Font.Size, floor)
		}
		p := filepath.Join(outDir(t), "title.png")
		if err := PlotTraces(p, title, []Series{{Name: "a", Y: energies(100, 0.5, 0, 1)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRewardsLegendOutsideData: the reward figure's legend is a row under
// the title, above everything the plot draws, so it covers no point
// wherever the rewards lie (here in all four corners).
func TestRewardsLegendOutsideData(t *testing.T) {
	rewards := []float64{0, 1, 0, 1, 0.5, 0, 1, 0, 1}
	p := filepath.Join(outDir(t), "rewards-corners.png")
	if err := PlotRewards(p, "Tuning rewards", rewards); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 800, 500)
	c := vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI))
	dc := draw.New(c)
	sc, _ := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}})
	rest, box := header(dc, "Tuning rewards", []legendEntry{{"reward", []plot.Thumbnailer{sc}}})
	if box.Size().X <= 0 || box.Size().Y <= 0 {
		t.Fatalf("legend box %v", box)
	}
	if box.Min.Y < rest.Max.Y || rest.Max.Y >= dc.Max.Y {
		t.Errorf("legend row %v reaches into the plot's canvas (top %v)", box, rest.Max.Y)
	}
}

// expACF is exp(-lag / tau) at lags 0..n-1, dx apart on the x-axis.
func expACF(name string, tau float64, n int, dx float64) Series {
	s := Series{Name: name, X: make([]float64, n), Y: make([]float64, n)}
	for i := range s.Y {
		s.X[i], s.Y[i] = float64(i)*dx, math.Exp(-float64(i)/tau)
	}
	return s
}

// TestACFRangeKeepsFastCurves (issue 31): with one curve 100 times slower
// than the others (sw's in CPU milliseconds), the ACF figure's lags fit
// the fast curves, which fall below 0.05 within its first third or more,
// not its first hundredth, and the slow curve is cut with a note in the
// legend; curves that fall within 4 times each other's lags are each shown
// whole.
func TestACFRangeKeepsFastCurves(t *testing.T) {
	fast := []Series{expACF("sardonics", 3, 501, 0.1), expACF("gibbs", 10, 501, 0.1), expACF("metropolis", 8, 501, 0.1)}
	slow := expACF("sw", 10, 501, 10) // the same decay in lags, each lag 100 times the CPU
	curves := append(fast, slow)
	x := acfRange(curves)
	fall := func(s Series) float64 { d, _, _ := acfFall(s); return d }
	if f := fall(fast[1]); !(f >= x/3 && x < fall(slow)) {
		t.Errorf("lags to %g: the slowest fast curve falls below 0.05 at %g (want within the first third at most), the slow one at %g (want it cut)", x, f, fall(slow))
	}
	if x := acfRange(fast); x < fall(fast[1]) || x > 3*fall(fast[1]) {
		t.Errorf("similar curves: lags to %g, the slowest falls at %g: want it whole, with a tail", x, fall(fast[1]))
	}
	// One 3 times slower than the others is shown whole.
	slower := expACF("sardonics", 10, 501, 0.3)
	if x := acfRange(append(fast, slower)); x < fall(slower) {
		t.Errorf("a curve 3 times slower: lags to %g, it falls at %g: want it whole", x, fall(slower))
	}
	// A curve that never falls below 0.05 (a sampler that does not mix)
	// is cut too; alone, or beside another such, it is shown whole.
	flat := Series{Name: "stuck", Y: []float64{1, 0.99, 0.98, 0.97, 0.96}, X: []float64{0, 100, 200, 300, 400}}
	if x := acfRange(append(fast, flat)); x >= 400 || x < fall(fast[1]) {
		t.Errorf("with a stuck curve: lags to %g", x)
	}
	if x := acfRange([]Series{flat}); x != 400 {
		t.Errorf("one stuck curve: lags to %g, want 400", x)
	}
	if x := acfRange([]Series{flat, flat}); x != 400 {
		t.Errorf("two stuck curves: lags to %g, want 400", x)
	}
	// Curves that fall at lag 1 still show 20 lags.
	white := []Series{expACF("a", 0.1, 300, 1), expACF("b", 0.2, 300, 1)}
	if x := acfRange(white); x != 20 {
		t.Errorf("white noise: lags to %g, want 20", x)
	}
	if x := acfRange([]Series{{Name: "none", Y: []float64{math.NaN()}}}); !math.IsNaN(x) {
		t.Errorf("no finite point: lags to %g, want NaN", x)
	}
	p := filepath.Join(outDir(t), "acf-slow.png")
	if err := PlotACF(p, "one sampler 100 times slower", "lag (CPU milliseconds of one trial)", curves); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 800, 500)
}

// TestReplicaLegendOutsideData (issue 31): the replica figure's legend is
// the header's row, one entry per sampler naming the trial of its walk,
// and neither panel has a legend over its data; a sampler without a walk
// keeps its colour for the others'.
func TestReplicaLegendOutsideData(t *testing.T) {
	acc := []Series{{Name: "metropolis", X: []float64{0.2, 0.5, 1}, Y: []float64{0.9, 0.3, 0.95}}, {Name: "gibbs", X: []float64{0.2, 0.5}, Y: []float64{1, 0}}}
	walk := make([]float64, 2000)
	for i := range walk {
		walk[i] = float64((i / 100) % 8)
	}
	walks := []Series{{Name: "trial 0", Y: walk}, {}}
	left, right, legend, err := replicaPlots(acc, walks)
	if err != nil {
		t.Fatal(err)
	}
	if len(legend) != 2 || legend[0].name != "metropolis, walk: trial 0" || legend[1].name != "gibbs" {
		t.Errorf("legend %+v", legend)
	}
	if right.Y.Min != -0.5 || right.Y.Max != 7.5 || left.Y.Max != 1 {
		t.Errorf("rungs from %g to %g, acceptance to %g: want -0.5 to 7.5 and 1", right.Y.Min, right.Y.Max, left.Y.Max)
	}
	for _, p := range []*plot.Plot{left, right} {
		if c := p.Legend.Rectangle(draw.New(vgimg.New(Width, Height))); c.Size().X != 0 {
			t.Errorf("a panel has a legend %v", c)
		}
	}
	if _, _, _, err := replicaPlots(acc, append(walks, Series{})); err == nil {
		t.Error("more walks than ladders accepted")
	}
	p := filepath.Join(outDir(t), "replicas.png")
	if err := PlotReplicas(p, "Replica exchange", acc, walks); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 1600, 500)
}

// TestRewardsMargin: the reward figure's axes leave a margin around the
// data, so that the lowest reward's point (and the first and last
// iterations') is drawn whole rather than cut by the axis.
func TestRewardsMargin(t *testing.T) {
	rewards := []float64{0.2, -1.5, 0.7, 3, 2.5}
	p, _, err := rewardsPlot(rewards)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.Y.Min < -1.5 && p.Y.Max > 3 && p.X.Min < 1 && p.X.Max > 5) {
		t.Errorf("axes x %v..%v, y %v..%v: want a margin around iterations 1..5 and rewards -1.5..3", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	if p, _, _ := rewardsPlot([]float64{1}); !(p.Y.Min < 1 && p.Y.Max > 1) {
		t.Errorf("one reward: y %v..%v", p.Y.Min, p.Y.Max)
	}
}
