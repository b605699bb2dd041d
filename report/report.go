package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
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
	maxPoints   = 4000        // longer series are decimated (min/max per bucket)
)

// Series is one named curve. A nil X means 0, 1, 2, ...; otherwise X and Y
// have the same length. Points with a non-finite coordinate are skipped.
type Series struct {
	Name string
	X, Y []float64
}

func (s Series) points() (plotter.XYs, error) {
	if s.X != nil && len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("series %q has %d x values and %d y values (expected equal lengths)", s.Name, len(s.X), len(s.Y))
	}
	pts := make(plotter.XYs, 0, len(s.Y))
	for i, y := range s.Y {
		x := float64(i)
		if s.X != nil {
			x = s.X[i]
		}
		if isFinite(x) && isFinite(y) {
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
	}
	return decimate(pts), nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// decimate keeps, for long series, the first, smallest and largest point of
// each of maxPoints/2 buckets in order, so the envelope of a trace survives
// while drawing stays fast.
func decimate(p plotter.XYs) plotter.XYs {
	if len(p) <= maxPoints {
		return p
	}
	buckets := maxPoints / 2
	out := make(plotter.XYs, 0, maxPoints+2)
	for b := 0; b < buckets; b++ {
		lo, hi := b*len(p)/buckets, (b+1)*len(p)/buckets
		imin, imax := lo, lo
		for i := lo; i < hi; i++ {
			if p[i].Y < p[imin].Y {
				imin = i
			}
			if p[i].Y > p[imax].Y {
				imax = i
			}
		}
		out = append(out, p[min(imin, imax)])
		if imin != imax {
			out = append(out, p[max(imin, imax)])
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
			l, err := styledLine(i, pts)
			if err != nil {
				return err
			}
			l.Dashes = nil // a dashed trace is unreadable
			l.Width = vg.Points(1)
			p.Add(l)
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
	if _, err = (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return model.WriteFileAtomic(path, buf.Bytes())
}
