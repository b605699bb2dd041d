package figure

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"sardonics/atomicfile"
)

// Figure geometry: 8 x 5 in at 100 dpi is 800 x 500 pixels.
const (
	DPI         = 100
	Width       = 8 * vg.Inch
	Height      = 5 * vg.Inch
	panelHeight = 2 * vg.Inch // per panel of a trace figure
	// Longer series are decimated to the first, smallest and largest
	// point of each of maxPoints/2 buckets: more buckets than a panel has
	// pixel columns (about 750), so the envelope is drawn to the pixel.
	maxPoints = 2000
)

// Series is one named curve. A nil X means 0, 1, 2, ...; otherwise X and Y
// have the same length. Points with a non-finite coordinate are skipped.
type Series struct {
	Name string
	X, Y []float64
}

// points is the series' finite points, decimated (see decimate) when
// there are more than maxPoints, without copying a long series first.
func (s Series) points() (plotter.XYs, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(s.Y) <= maxPoints {
		pts := make(plotter.XYs, 0, len(s.Y))
		for i := range s.Y {
			if p, ok := s.at(i); ok {
				pts = append(pts, p)
			}
		}
		return pts, nil
	}
	return s.decimate(), nil
}

// check says whether s has as many x values as y values, or none.
func (s Series) check() error {
	if s.X != nil && len(s.X) != len(s.Y) {
		return fmt.Errorf("series %q has %d x values and %d y values (expected equal lengths)", s.Name, len(s.X), len(s.Y))
	}
	return nil
}

// at is point i, and whether it is finite.
func (s Series) at(i int) (plotter.XY, bool) {
	x := float64(i)
	if s.X != nil {
		x = s.X[i]
	}
	y := s.Y[i]
	return plotter.XY{X: x, Y: y}, isFinite(x) && isFinite(y)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// decimate keeps the smallest and largest finite point of each of
// maxPoints/2 buckets of consecutive points, in order (at most maxPoints
// points), so the envelope of a trace survives while drawing stays fast.
func (s Series) decimate() plotter.XYs {
	buckets := maxPoints / 2
	n := len(s.Y)
	out := make(plotter.XYs, 0, maxPoints)
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		imin, imax := -1, -1
		for i := lo; i < hi; i++ {
			y := s.Y[i]
			if !isFinite(y) || s.X != nil && !isFinite(s.X[i]) {
				continue
			}
			if imin < 0 || y < s.Y[imin] {
				imin = i
			}
			if imax < 0 || y > s.Y[imax] {
				imax = i
			}
		}
		if imin < 0 {
			continue
		}
		p, _ := s.at(min(imin, imax))
		out = append(out, p)
		if imin != imax {
			p, _ = s.at(max(imin, imax))
			out = append(out, p)
		}
	}
	return out
}

// newPlot is a plot with fonts sized for an 800-pixel-wide figure. Its
// title, if any, is fitted to the figure's width (fitText); figures with
// a header of their own (drawHeader) pass "".
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = 15
	p.Title.Text = fitText(&p.Title.TextStyle, title, Width-vg.Points(16))
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = 13
		a.Tick.Label.Font.Size = 11
		a.Scale = safeScale{}
	}
	p.X.Tick.Marker = cleanTicks{steps: 6} // up to 7 labels across 8 in
	p.Y.Tick.Marker = cleanTicks{steps: 4} // up to 5 up a 2-in panel
	p.Legend.TextStyle.Font.Size = 12
	p.Legend.XOffs = -vg.Points(8)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// cleanTicks are ticks at round values (1, 2, 2.5 or 5 times a power of
// ten), the smallest such step that divides the range into at most steps
// parts (4 when steps is 0), labelled in the shortest form that tells them
// apart ("17500", not "17500.00"). Unlike gonum's DefaultTicks they never
// panic or loop: an empty or inverted range gets no ticks, a single value
// one tick, and a range too narrow for its magnitude (1e16 to 1e16+4,
// beyond float64's resolution of round steps) or too wide for float64
// (-1e308 to 1e308, whose width overflows) ticks at its ends.
type cleanTicks struct{ steps float64 }

func (ct cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	switch {
	case !isFinite(lo) || !isFinite(hi) || lo > hi:
		return nil
	case lo == hi:
		return []plot.Tick{{Value: lo, Label: shortest(lo)}}
	}
	parts := ct.steps
	if parts < 1 {
		parts = 4
	}
	least := (hi/2 - lo/2) / (parts / 2) // the width / parts, without overflow
	e := math.Floor(math.Log10(least))
	base := math.Pow(10, e)
	var step, mant float64
	for _, mant = range []float64{1, 2, 2.5, 5, 10} {
		if step = mant * base; step >= least {
			break
		}
	}
	if mant == 10 {
		mant, e = 1, e+1
	}
	k0, k1 := math.Ceil(lo/step), math.Floor(hi/step)
	const exact = 1 << 52 // k step is a distinct multiple for |k| below this
	if !(step > 0) || !isFinite(step) || !(k1 >= k0) || k1-k0 > 2*parts || math.Abs(k0) > exact || math.Abs(k1) > exact ||
		k0*step == (k0+1)*step {
		return []plot.Tick{{Value: lo, Label: shortest(lo)}, {Value: hi, Label: shortest(hi)}}
	}
	// Significant digits down to the step's last digit (one more for 2.5),
	// at least 6 so that values below 10^6 print without an exponent.
	sig := int(math.Floor(math.Log10(math.Max(math.Abs(lo), math.Abs(hi))))-e) + 1
	if mant == 2.5 {
		sig++
	}
	sig = min(max(sig, 6), 17)
	var ts []plot.Tick
	for k := k0; k <= k1; k++ {
		v := k*step + 0 // + 0: no "-0"
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', sig, 64)})
	}
	// Unlabelled minor ticks: fifths of the step (halves of a step of 2).
	div := 5.0
	if mant == 2 {
		div = 2
	}
	minor := step / div
	if j0 := math.Ceil(lo / minor); math.Abs(j0) < exact {
		for i := range 100 { // at most (2 parts + 1) div of them
			j := j0 + float64(i)
			if j*minor > hi {
				break
			}
			if math.Mod(j, div) != 0 {
				ts = append(ts, plot.Tick{Value: j * minor})
			}
		}
	}
	return ts
}

// shortest is v in the shortest form that reads back as v.
func shortest(v float64) string { return strconv.FormatFloat(v+0, 'g', -1, 64) }

// safeScale is gonum's linear scale, computed in halves where the width
// of the range overflows float64 (a range from -1e308 to 1e308), and 1/2
// for an empty range, so that no coordinate is infinite or NaN.
type safeScale struct{}

func (safeScale) Normalize(lo, hi, x float64) float64 {
	if !(hi > lo) {
		return 0.5
	}
	if d := hi - lo; isFinite(d) {
		return (x - lo) / d
	}
	return (x/2 - lo/2) / (hi/2 - lo/2)
}

// settleRanges makes both axes of p a finite range of positive width, as
// gonum's own fallback (widen an empty range by 1 each way) does not where
// 1 is below the values' resolution (1e16 + 1 is 1e16): an empty range
// is widened by 1 or a millionth of its magnitude, whichever is larger,
// and a missing one is -1 to 1.
func settleRanges(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Min, a.Max = padRange(a.Min, a.Max)
	}
}

func padRange(lo, hi float64) (float64, float64) {
	if !isFinite(lo) || !isFinite(hi) || lo > hi {
		return -1, 1
	}
	if lo == hi {
		d := math.Max(1, 1e-6*math.Abs(lo))
		lo, hi = math.Max(lo-d, -math.MaxFloat64), math.Min(hi+d, math.MaxFloat64)
	}
	return lo, hi
}

// fitText returns s fitted to width in style sty: the font shrunk by up to
// a quarter, then, if it still does not fit, s broken into lines at
// spaces (and within words longer than a line). sty.Font.Size is set to
// the size used.
func fitText(sty *draw.TextStyle, s string, width vg.Length) string {
	if s == "" {
		return s
	}
	if sty.Handler == nil {
		sty.Handler = plot.DefaultTextHandler
	}
	floor := sty.Font.Size * 3 / 4
	for sty.Width(s) > width && sty.Font.Size-vg.Points(0.5) >= floor {
		sty.Font.Size -= vg.Points(0.5)
	}
	if sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.SplitAfter(s, " ") {
		if line != "" && sty.Width(strings.TrimRight(line+w, " ")) > width {
			lines = append(lines, strings.TrimRight(line, " "))
			line = ""
		}
		for line == "" && sty.Width(strings.TrimRight(w, " ")) > width { // a word wider than a line
			r := []rune(w)
			n := len(r) - 1
			for n > 1 && sty.Width(string(r[:n])) > width {
				n--
			}
			lines = append(lines, string(r[:n]))
			w = string(r[n:])
		}
		line += w
	}
	if line = strings.TrimRight(line, " "); line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// headerStyle is the style of a figure's overall title.
func headerStyle() draw.TextStyle {
	return draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, 16),
		Handler: plot.DefaultTextHandler,
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
	}
}

// drawHeader draws title, fitted to the canvas's width, at the top of dc
// and, below it, a row of legend entries; it returns the canvas left below
// them, for the plot. A legend there covers no data, wherever the data lie.
func drawHeader(dc draw.Canvas, title string, entries []legendEntry) draw.Canvas {
	rest, _ := header(dc, title, entries)
	return rest
}

// header is drawHeader, also returning the box of the legend row (empty
// without entries).
func header(dc draw.Canvas, title string, entries []legendEntry) (draw.Canvas, vg.Rectangle) {
	var box vg.Rectangle
	top := dc.Max.Y - vg.Points(6)
	if title != "" {
		sty := headerStyle()
		t := fitText(&sty, title, dc.Max.X-dc.Min.X-vg.Points(16))
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: top}, t)
		top -= sty.Height(t) + vg.Points(4)
	}
	if len(entries) > 0 {
		sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 12),
			Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
		thumb, gap, sep := vg.Points(20), vg.Points(5), vg.Points(18)
		h := sty.Height("Mg")
		total := vg.Length(0)
		for i, e := range entries {
			if i > 0 {
				total += sep
			}
			total += thumb + gap + sty.Width(e.name)
		}
		x := dc.Center().X - total/2
		box = vg.Rectangle{Min: vg.Point{X: x, Y: top - h}, Max: vg.Point{X: x + total, Y: top}}
		for _, e := range entries {
			icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - h}, Max: vg.Point{X: x + thumb, Y: top}}}
			for _, t := range e.thumbs {
				t.Thumbnail(&icon)
			}
			x += thumb + gap
			dc.FillText(sty, vg.Point{X: x, Y: top}, e.name)
			x += sty.Width(e.name) + sep
		}
		top -= h + vg.Points(4)
	}
	dc.Max.Y = top
	return dc, box
}

// legendEntry is one entry of a header's legend row.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// styledLine is curve i of a figure: a distinct colour and dash pattern.
func styledLine(i int, pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i)
	l.Width = vg.Points(1.5)
	return l, nil
}

// addLines adds one styled line per curve (curve i in style i) with its
// legend entry, skipping empty curves, and returns the lines.
func addLines(p *plot.Plot, curves []Series) ([]*plotter.Line, error) {
	var out []*plotter.Line
	for i, c := range curves {
		pts, err := c.points()
		if err != nil {
			return nil, err
		}
		if len(pts) == 0 {
			continue
		}
		l, err := styledLine(i, pts)
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add(c.Name, l)
		out = append(out, l)
	}
	return out, nil
}

// PlotACF draws one autocorrelation curve per sampler against the lag, on
// the lags acfRange chooses: a curve that goes on past them is cut at the
// right edge, and its legend entry says where it falls below acfSmall (or
// that it does not).
func PlotACF(path, title, xlabel string, curves []Series) error {
	if len(curves) == 0 {
		return errors.New("ACF figure: no curves")
	}
	for _, c := range curves {
		if err := c.check(); err != nil {
			return err
		}
	}
	xmax := acfRange(curves)
	named := make([]Series, len(curves))
	for i, c := range curves {
		named[i] = c
		if d, last, ok := acfFall(c); ok && d > xmax && last > xmax {
			if math.IsInf(d, 1) {
				named[i].Name += fmt.Sprintf("; cut: above %g up to lag %.3g", acfSmall, last)
			} else {
				named[i].Name += fmt.Sprintf("; cut: below %g at lag %.3g", acfSmall, d)
			}
		}
	}
	p := newPlot("", xlabel, "normalized energy autocorrelation")
	if _, err := addLines(p, named); err != nil {
		return err
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 100}
	zero.Width = vg.Points(0.5)
	p.Add(zero)
	// Headroom above 1 for the legend, so that a curve that stays near 1
	// (a sampler that does not mix) is not drawn under it.
	p.Y.Max = max(p.Y.Max, 1+0.07*float64(len(curves)))
	p.Y.Min = min(p.Y.Min, 0) // the zero line, where the curves go
	if isFinite(xmax) && xmax > 0 {
		p.X.Min, p.X.Max = min(p.X.Min, 0), xmax
	}
	settleRanges(p)
	return save(path, Width, Height, func(dc draw.Canvas) { p.Draw(drawHeader(dc, title, nil)) })
}

// acfSmall is the autocorrelation below which a curve has decayed, for
// acfRange: about the noise of an ACF estimated from a few hundred
// independent draws.
const acfSmall = 0.05

// acfRange is the largest lag an ACF figure shows, of curves that pass
// check. Where the slowest
// curve first falls below acfSmall (in absolute value) at most 4 times
// later than the second slowest, it is 1.5 times that lag: every curve is
// drawn whole, with a tail, the others falling within the first sixth of
// the width or later. Where the slowest falls later, or never, it is 3
// times the second slowest's lag, the slowest cut at the edge: the fast
// curves fall within the first third or later, however slow the slowest.
// Either way it is at least 20 lags of the second slowest and at most
// the longest curve's last lag. A linear axis, not a
// logarithmic one: the area under a curve (tau_int / 2 in the axis's
// unit, the cost of an independent draw) compares by eye only on a linear
// one, which also shows lag 0 and the tail about 0 that a log axis
// squeezes into its right end. With fewer than two curves that fall
// below acfSmall, the longest curve is shown whole. NaN when no curve has
// a finite point.
func acfRange(curves []Series) float64 {
	type fall struct{ at, tail float64 } // where it falls; 20 lags in
	var falls []fall
	longest := math.Inf(-1)
	for _, c := range curves {
		d, last, ok := acfFall(c)
		if !ok {
			continue
		}
		longest = math.Max(longest, last)
		falls = append(falls, fall{d, c.finiteX(20, last)})
	}
	if len(falls) == 0 {
		return math.NaN()
	}
	slices.SortFunc(falls, func(a, b fall) int { return cmp.Compare(a.at, b.at) })
	slow := falls[len(falls)-1]
	if len(falls) < 2 || math.IsInf(falls[len(falls)-2].at, 1) {
		return longest
	}
	second := falls[len(falls)-2]
	x := 1.5 * slow.at
	if slow.at > 4*second.at { // +Inf included
		x = 3 * second.at
	}
	return math.Min(math.Max(x, second.tail), longest)
}

// finiteX is the x of c's finite point k (counted from 0), or def if c
// has no more than k finite points.
func (c Series) finiteX(k int, def float64) float64 {
	for i := range c.Y {
		if p, ok := c.at(i); ok {
			if k == 0 {
				return p.X
			}
			k--
		}
	}
	return def
}

// acfFall is the first lag at which c's finite points fall below acfSmall
// in absolute value (+Inf if none does) and its last lag; ok is false
// when c has no finite point.
func acfFall(c Series) (at, last float64, ok bool) {
	at, last = math.Inf(1), math.Inf(-1)
	for i := range c.Y {
		p, fin := c.at(i)
		if !fin {
			continue
		}
		ok = true
		last = math.Max(last, p.X)
		if math.IsInf(at, 1) && math.Abs(p.Y) < acfSmall {
			at = p.X
		}
	}
	return at, last, ok
}

// PlotTraces draws one energy trace per sampler, in panels stacked
// vertically, each titled with the sampler's name and its mean energy.
// All panels share one energy range (sharedRange), so that a sampler
// whose energies sit far from the others' shows as far away, not as a
// trace like theirs on an axis of its own.
func PlotTraces(path, title string, traces []Series) error {
	if len(traces) == 0 {
		return errors.New("trace figure: no traces")
	}
	lo, hi := sharedRange(traces)
	lo, hi = padRange(lo, hi)
	rows := make([][]*plot.Plot, len(traces))
	for i, tr := range traces {
		pts, err := tr.points()
		if err != nil {
			return err
		}
		name := tr.Name
		if m, ok := tr.mean(); ok {
			name += ", mean " + fmtResolved(m, (hi-lo)/1000)
		}
		p := newPlot("", "step", "energy")
		p.Title.TextStyle.Font.Size = 13
		p.Title.Text = fitText(&p.Title.TextStyle, name, Width-vg.Points(30))
		if len(pts) > 0 {
			// Not dashed: a dashed trace is unreadable.
			p.Add(&band{pts: pts, style: draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1)}})
		}
		p.Y.Min, p.Y.Max = lo, hi
		settleRanges(p)
		rows[i] = []*plot.Plot{p}
	}
	height := max(Height, vg.Length(len(traces))*panelHeight+vg.Inch/2)
	return save(path, Width, height, func(dc draw.Canvas) {
		// The overall title sits above the panels.
		dc = drawHeader(dc, title, nil)
		tiles := draw.Tiles{Rows: len(traces), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(4),
			PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(10)}
		cs := plot.Align(rows, tiles, dc)
		for i := range rows {
			rows[i][0].Draw(cs[i][0])
		}
	})
}

// sharedRange is the smallest and largest finite energy of all traces
// (+Inf, -Inf when there is none): the energy range of every panel of a
// trace figure.
func sharedRange(traces []Series) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, tr := range traces {
		for i := range tr.Y {
			if p, ok := tr.at(i); ok {
				lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
			}
		}
	}
	return lo, hi
}

// mean is the mean of the series' finite points, and whether there is
// one. It sums v/n, so that no sum of large values overflows.
func (s Series) mean() (float64, bool) {
	n := 0
	for i := range s.Y {
		if _, ok := s.at(i); ok {
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	m := 0.0
	for i := range s.Y {
		if p, ok := s.at(i); ok {
			m += p.Y / float64(n)
		}
	}
	return m, true
}

// fmtResolved is v with significant digits down to res (> 0), at least 4
// and at most 15 ("-942.68" for res 0.01).
func fmtResolved(v, res float64) string {
	sig := 4
	if a := math.Abs(v); a > 0 && res > 0 && isFinite(a/res) {
		sig = int(math.Floor(math.Log10(a))-math.Floor(math.Log10(res))) + 1
	}
	return strconv.FormatFloat(v+0, 'g', min(max(sig, 4), 15), 64)
}

// band draws a trace with more points than its panel has pixel columns
// as what a line through them covers: in each column, from the smallest to
// the largest value the line takes there (the segments into and out of the
// column included), widened by the line's width, all filled as one
// polygon. Stroking such a line instead costs time in proportion to its
// length, which for a fast-mixing trace is the panel's height times the
// number of points (seconds for a 40,000-point white-noise trace), while
// the polygon costs about one edge per column. Shorter traces are stroked.
type band struct {
	pts   plotter.XYs // x nondecreasing
	style draw.LineStyle
}

// pixel is one pixel of a figure.
const pixel = vg.Inch / DPI

func (b *band) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(b.pts) }

func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	cols := int((c.Max.X-c.Min.X)/pixel) + 1
	if len(b.pts) <= 2*cols {
		line := make([]vg.Point, len(b.pts))
		for i, q := range b.pts {
			line[i] = vg.Point{X: trX(q.X), Y: trY(q.Y)}
		}
		c.StrokeLines(b.style, c.ClipLinesXY(line)...)
		return
	}
	lo, hi := make([]vg.Length, cols), make([]vg.Length, cols)
	seen := make([]bool, cols)
	add := func(k int, y vg.Length) {
		if !seen[k] {
			lo[k], hi[k], seen[k] = y, y, true
			return
		}
		lo[k], hi[k] = min(lo[k], y), max(hi[k], y)
	}
	prev, prevY := -1, vg.Length(0)
	for _, q := range b.pts {
		k := min(max(int((trX(q.X)-c.Min.X)/pixel), 0), cols-1)
		y := trY(q.Y)
		add(k, y)
		if prev >= 0 && prev != k { // the segment between the two columns
			add(prev, y)
			add(k, prevY)
		}
		prev, prevY = k, y
	}
	half := b.style.Width / 2
	poly := make([]vg.Point, 0, 4*cols)
	for k := range cols {
		if seen[k] {
			x := c.Min.X + vg.Length(k)*pixel
			poly = append(poly, vg.Point{X: x, Y: hi[k] + half}, vg.Point{X: x + pixel, Y: hi[k] + half})
		}
	}
	for k := cols - 1; k >= 0; k-- {
		if seen[k] {
			x := c.Min.X + vg.Length(k)*pixel
			poly = append(poly, vg.Point{X: x + pixel, Y: lo[k] - half}, vg.Point{X: x, Y: lo[k] - half})
		}
	}
	c.FillPolygon(b.style.Color, c.ClipPolygonXY(poly))
}

// PlotRewards draws the reward of each tuning iteration as points and the
// best reward so far as a line. Iterations are numbered from 1.
func PlotRewards(path, title string, rewards []float64) error {
	p, legend, err := rewardsPlot(rewards)
	if err != nil {
		return err
	}
	return save(path, Width, Height, func(dc draw.Canvas) { p.Draw(drawHeader(dc, title, legend)) })
}

// rewardMargin is the share of each axis's data range added on both sides
// of the reward figure, so that its extreme points (the lowest reward, the
// first and last iterations) are drawn whole, not cut by the axes.
const rewardMargin = 0.05

// rewardsPlot is PlotRewards's plot and legend.
func rewardsPlot(rewards []float64) (*plot.Plot, []legendEntry, error) {
	if len(rewards) == 0 {
		return nil, nil, errors.New("reward figure: no rewards")
	}
	p := newPlot("", "iteration", "reward")
	pts := make(plotter.XYs, 0, len(rewards))
	best := make(plotter.XYs, 0, len(rewards))
	b := math.Inf(-1)
	for i, r := range rewards {
		if !isFinite(r) {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(i + 1), Y: r})
		b = math.Max(b, r)
		best = append(best, plotter.XY{X: float64(i + 1), Y: b})
	}
	if len(pts) == 0 {
		return nil, nil, errors.New("reward figure: no finite rewards")
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, nil, err
	}
	sc.GlyphStyle.Color = plotutil.Color(0)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(2.5)
	l, err := styledLine(1, best)
	if err != nil {
		return nil, nil, err
	}
	l.Dashes = nil
	l.Width = vg.Points(2)
	p.Add(sc, l)
	settleRanges(p)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		d := rewardMargin * (a.Max - a.Min)
		a.Min, a.Max = a.Min-d, a.Max+d
	}
	// The legend is a row under the title, outside the data, so that it
	// covers no point wherever the rewards lie.
	legend := []legendEntry{{"reward", []plot.Thumbnailer{sc}}, {"best so far", []plot.Thumbnailer{l}}}
	return p, legend, nil
}

// save renders a figure of w x h at DPI and writes it to path atomically.
// A panic while rendering (a gonum plot bug on data this package does not
// anticipate) becomes an error, and no file is written: a figure is never
// worth a crash of the run that made its data.
func save(path string, w, h vg.Length, render func(draw.Canvas)) (err error) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	if err := safeRender(render, draw.New(c)); err != nil {
		return fmt.Errorf("drawing %s: %w", path, err)
	}
	var buf bytes.Buffer
	// BestSpeed: about a fifth less time for a trace figure than the
	// default level, for files about 5% larger.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err = enc.Encode(&buf, c.Image()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// safeRender calls render(dc), turning a panic into an error.
func safeRender(render func(draw.Canvas), dc draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("figure code panicked: %v", r)
		}
	}()
	render(dc)
	return nil
}
