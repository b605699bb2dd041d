package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"sardonics/model"
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
	if s.X != nil && len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("series %q has %d x values and %d y values (expected equal lengths)", s.Name, len(s.X), len(s.Y))
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

// newPlot is a plot with fonts sized for an 800-pixel-wide figure.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 15
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = 13
		a.Tick.Label.Font.Size = 11
		a.Tick.Marker = cleanTicks{}
	}
	p.Legend.TextStyle.Font.Size = 12
	p.Legend.XOffs = -vg.Points(8)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// cleanTicks are gonum's default ticks labelled in the shortest form
// ("17500", not "17500.00").
type cleanTicks struct{}

func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
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

// PlotACF draws one autocorrelation curve per sampler against the lag.
func PlotACF(path, title string, curves []Series) error {
	if len(curves) == 0 {
		return errors.New("ACF figure: no curves")
	}
	p := newPlot(title, "lag (steps)", "normalized energy autocorrelation")
	for i, c := range curves {
		pts, err := c.points()
		if err != nil {
			return err
		}
		if len(pts) == 0 {
			continue
		}
		l, err := styledLine(i, pts)
		if err != nil {
			return err
		}
		p.Add(l)
		p.Legend.Add(c.Name, l)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 100}
	zero.Width = vg.Points(0.5)
	p.Add(zero)
	// Headroom above 1 for the legend, so that a curve that stays near 1
	// (a sampler that does not mix) is not drawn under it.
	p.Y.Max = max(p.Y.Max, 1+0.07*float64(len(curves)))
	return save(path, Width, Height, func(dc draw.Canvas) { p.Draw(dc) })
}

// PlotTraces draws one energy trace per sampler, in panels stacked
// vertically and each titled with the sampler's name.
func PlotTraces(path, title string, traces []Series) error {
	if len(traces) == 0 {
		return errors.New("trace figure: no traces")
	}
	rows := make([][]*plot.Plot, len(traces))
	for i, tr := range traces {
		pts, err := tr.points()
		if err != nil {
			return err
		}
		p := newPlot(tr.Name, "step", "energy")
		p.Title.TextStyle.Font.Size = 13
		if len(pts) > 0 {
			// Not dashed: a dashed trace is unreadable.
			p.Add(&band{pts: pts, style: draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1)}})
		}
		rows[i] = []*plot.Plot{p}
	}
	height := max(Height, vg.Length(len(traces))*panelHeight+vg.Inch/2)
	return save(path, Width, height, func(dc draw.Canvas) {
		// The overall title sits above the panels.
		head := font.Length(0)
		if title != "" {
			sty := draw.TextStyle{
				Color:   color.Black,
				Font:    font.From(plot.DefaultFont, 16),
				Handler: plot.DefaultTextHandler,
				XAlign:  draw.XCenter,
				YAlign:  draw.YTop,
			}
			head = sty.Height(title) + vg.Points(8)
			dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(4)}, title)
		}
		dc.Max.Y -= head
		tiles := draw.Tiles{Rows: len(traces), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(4),
			PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(10)}
		cs := plot.Align(rows, tiles, dc)
		for i := range rows {
			rows[i][0].Draw(cs[i][0])
		}
	})
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
	if len(rewards) == 0 {
		return errors.New("reward figure: no rewards")
	}
	p := newPlot(title, "iteration", "reward")
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
		return errors.New("reward figure: no finite rewards")
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color = plotutil.Color(0)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(2.5)
	l, err := styledLine(1, best)
	if err != nil {
		return err
	}
	l.Dashes = nil
	l.Width = vg.Points(2)
	p.Add(sc, l)
	p.Legend.Add("reward", sc)
	p.Legend.Add("best so far", l)
	p.Legend.Top = false // rewards rise, so the lower right is usually free
	return save(path, Width, Height, func(dc draw.Canvas) { p.Draw(dc) })
}

// save renders a figure of w x h at DPI and writes it to path atomically.
func save(path string, w, h vg.Length, render func(draw.Canvas)) (err error) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	render(draw.New(c))
	var buf bytes.Buffer
	// BestSpeed: about a fifth less time for a trace figure than the
	// default level, for files about 5% larger.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err = enc.Encode(&buf, c.Image()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return model.WriteFileAtomic(path, buf.Bytes())
}
