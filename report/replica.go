package report

import (
	"errors"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotReplicas draws replica exchange at a glance: on the left the swap
// acceptance of each neighbouring pair of rungs against the pair's mean
// inverse temperature (one curve per sampler), on the right the rung of
// one replica after each swap round (one panel row per sampler), which
// shows whether replicas travel the whole ladder.
func PlotReplicas(path, title string, acceptance, walks []Series) error {
	if len(acceptance) == 0 {
		return errors.New("replica figure: no ladders")
	}
	left := newPlot("Swap acceptance along the ladder", "inverse temperature (pair's mean)", "swap acceptance")
	for i, c := range acceptance {
		pts, err := c.points()
		if err != nil {
			return err
		}
		if len(pts) == 0 {
			continue
		}
		l, lp, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, lp.Color = plotutil.Color(i), plotutil.Color(i)
		lp.Shape = plotutil.Shape(i)
		l.Width = vg.Points(1.5)
		left.Add(l, lp)
		left.Legend.Add(c.Name, l, lp)
	}
	left.Y.Min, left.Y.Max = 0, 1.15 // headroom for the legend
	right := newPlot("One replica's walk through the ladder (first swap rounds)", "swap round", "rung (0: hottest)")
	for i, w := range walks {
		pts, err := w.points()
		if err != nil {
			return err
		}
		if len(pts) == 0 {
			continue
		}
		right.Add(&band{pts: pts, style: draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1)}})
		l, _ := plotter.NewLine(pts[:1])
		l.Color = plotutil.Color(i)
		right.Legend.Add(w.Name, l)
	}
	return save(path, 2*Width, Height, func(dc draw.Canvas) {
		body := drawHeader(dc, title, nil)
		body.Max.Y -= vg.Points(4) // room for the panels' own titles
		half := (body.Max.X - body.Min.X) / 2
		l, r := body, body
		l.Max.X = body.Min.X + half
		r.Min.X = body.Min.X + half
		left.Draw(l)
		right.Draw(r)
	})
}

// PlotOverlap draws the distribution P(q) of the spin overlap of two
// independent replicas, one histogram outline per sampler, on q in [-1, 1].
func PlotOverlap(path, title string, hists []Series) error {
	if len(hists) == 0 {
		return errors.New("overlap figure: no histograms")
	}
	p := newPlot("", "overlap q", "P(q)") // the title is drawn by drawHeader
	lines, err := addLines(p, hists)
	if err != nil {
		return err
	}
	for _, l := range lines {
		l.StepStyle = plotter.MidStep
	}
	p.X.Min, p.X.Max = -1, 1
	p.Y.Min = 0
	return save(path, Width, Height, func(dc draw.Canvas) { p.Draw(drawHeader(dc, title, nil)) })
}
