package figure

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotReplicas draws replica exchange at a glance: on the left the swap
// acceptance of each neighbouring pair of rungs against the pair's mean
// inverse temperature (one curve per sampler), on the right the rung of
// one replica after each swap round (one walk per sampler), which shows
// whether replicas travel the whole ladder. walks[i], if any, is the
// sampler of acceptance[i], drawn in its colour. One legend row under the
// title serves both panels, so that it covers no walk or acceptance
// wherever they lie: entry i is acceptance[i].Name, followed by
// walks[i].Name (which trial's replica walks) when that is not empty.
func PlotReplicas(path, title string, acceptance, walks []Series) error {
	left, right, legend, err := replicaPlots(acceptance, walks)
	if err != nil {
		return err
	}
	return save(path, 2*Width, Height, func(dc draw.Canvas) {
		body := drawHeader(dc, title, legend)
		body.Max.Y -= vg.Points(4) // room for the panels' own titles
		half := (body.Max.X - body.Min.X) / 2
		l, r := body, body
		l.Max.X = body.Min.X + half
		r.Min.X = body.Min.X + half
		left.Draw(l)
		right.Draw(r)
	})
}

// replicaPlots is PlotReplicas' two panels, with no legend of their own,
// and the legend row of its header.
func replicaPlots(acceptance, walks []Series) (left, right *plot.Plot, legend []legendEntry, err error) {
	if len(acceptance) == 0 {
		return nil, nil, nil, errors.New("replica figure: no ladders")
	}
	if len(walks) > len(acceptance) {
		return nil, nil, nil, fmt.Errorf("replica figure: %d walks for %d ladders (expected at most one each)", len(walks), len(acceptance))
	}
	left = newPlot("Swap acceptance along the ladder", "inverse temperature (pair's mean)", "swap acceptance")
	for i, c := range acceptance {
		pts, err := c.points()
		if err != nil {
			return nil, nil, nil, err
		}
		name := c.Name
		if i < len(walks) && walks[i].Name != "" {
			name += ", walk: " + walks[i].Name
		}
		l, lp, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, nil, nil, err
		}
		l.Color, lp.Color = plotutil.Color(i), plotutil.Color(i)
		lp.Shape = plotutil.Shape(i)
		l.Width = vg.Points(1.5)
		if len(pts) > 0 {
			left.Add(l, lp)
		}
		legend = append(legend, legendEntry{name, []plot.Thumbnailer{l, lp}})
	}
	left.Y.Min, left.Y.Max = 0, 1
	right = newPlot("One replica's walk through the ladder (first swap rounds)", "swap round", "rung (0: hottest)")
	for i, w := range walks {
		pts, err := w.points()
		if err != nil {
			return nil, nil, nil, err
		}
		if len(pts) > 0 {
			right.Add(&band{pts: pts, style: draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1)}})
		}
	}
	// Half a rung above the coldest and below the hottest, so that a
	// walk's time at either end is not drawn on the panel's frame.
	if right.Y.Min <= right.Y.Max {
		right.Y.Min, right.Y.Max = right.Y.Min-0.5, right.Y.Max+0.5
	}
	return left, right, legend, nil
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
