package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"sardonics/model"
)

// ModelSize is the side of a model picture: 8 x 8 in at 100 dpi is
// 800 x 800 pixels.
const ModelSize = 8 * vg.Inch

// Colours of model pictures: red bonds are ferromagnetic (J > 0, they favour
// equal spins, since E = -sum J s_i s_j - sum h s_i), blue ones
// antiferromagnetic; nodes are filled by the sign of their field.
var (
	colJPos  = color.RGBA{R: 210, G: 35, B: 35, A: 255}
	colJNeg  = color.RGBA{R: 30, G: 80, B: 200, A: 255}
	colJZero = color.Gray{Y: 170}
	colHPos  = color.Gray{Y: 20}
	colHNeg  = color.Gray{Y: 150}
	colHZero = color.White
	colFrame = color.Gray{Y: 60}
)

func bondColor(w float64) color.Color {
	switch {
	case w > 0:
		return colJPos
	case w < 0:
		return colJNeg
	}
	return colJZero
}

func fieldColor(h float64) color.Color {
	switch {
	case h > 0:
		return colHPos
	case h < 0:
		return colHNeg
	}
	return colHZero
}

// bondStyle is a bond of weight w drawn with at most maxWidth for the
// largest |J| (jmax) of the model.
func bondStyle(w, jmax float64, maxWidth vg.Length) draw.LineStyle {
	frac := 1.0
	if jmax > 0 {
		frac = math.Abs(w) / jmax
	}
	return draw.LineStyle{Color: bondColor(w), Width: max(vg.Points(0.4), vg.Length(frac)*maxWidth)}
}

func maxAbsJ(m *model.Ising) float64 {
	j := 0.0
	for _, w := range m.J {
		j = math.Max(j, math.Abs(w))
	}
	return j
}

// legend records which kinds of bonds and fields a picture shows.
type legend struct {
	jpos, jneg, jzero bool
	hpos, hneg, hzero bool
	notes             []string
}

func (lg *legend) bond(w float64) {
	switch {
	case w > 0:
		lg.jpos = true
	case w < 0:
		lg.jneg = true
	default:
		lg.jzero = true
	}
}

func (lg *legend) field(h float64) {
	switch {
	case h > 0:
		lg.hpos = true
	case h < 0:
		lg.hneg = true
	default:
		lg.hzero = true
	}
}

func textStyle(size font.Length, xa draw.XAlignment, ya draw.YAlignment) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, size),
		Handler: plot.DefaultTextHandler, XAlign: xa, YAlign: ya}
}

// frame draws the title and legend of a model picture and returns the
// square area left for the drawing itself.
func frame(dc draw.Canvas, title string, lg *legend) vg.Rectangle {
	top := dc.Max.Y - vg.Points(6)
	if title != "" {
		sty := textStyle(15, draw.XCenter, draw.YTop)
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: top}, title)
		top -= sty.Height(title) + vg.Points(6)
	}
	// Legend: one row of entries, then the notes, at the bottom.
	sty := textStyle(11, draw.XLeft, draw.YCenter)
	lineH := sty.Height("Jh") + vg.Points(4)
	bottom := dc.Min.Y + vg.Points(6)
	y := bottom + vg.Length(len(lg.notes))*lineH + lineH/2
	type entry struct {
		label string
		draw  func(p vg.Point)
	}
	seg := func(c color.Color) func(vg.Point) {
		return func(p vg.Point) {
			dc.StrokeLine2(draw.LineStyle{Color: c, Width: vg.Points(2.5)}, p.X, p.Y, p.X+vg.Points(18), p.Y)
		}
	}
	dot := func(c color.Color) func(vg.Point) {
		return func(p vg.Point) {
			node(dc, vg.Point{X: p.X + vg.Points(9), Y: p.Y}, vg.Points(4.5), c)
		}
	}
	var es []entry
	if lg.jpos {
		es = append(es, entry{"J > 0 (ferro)", seg(colJPos)})
	}
	if lg.jneg {
		es = append(es, entry{"J < 0 (antiferro)", seg(colJNeg)})
	}
	if lg.jzero {
		es = append(es, entry{"J = 0", seg(colJZero)})
	}
	if lg.hpos {
		es = append(es, entry{"h > 0", dot(colHPos)})
	}
	if lg.hneg {
		es = append(es, entry{"h < 0", dot(colHNeg)})
	}
	if lg.hzero {
		es = append(es, entry{"h = 0", dot(colHZero)})
	}
	total := vg.Length(0)
	for _, e := range es {
		total += vg.Points(24) + sty.Width(e.label) + vg.Points(16)
	}
	x := dc.Center().X - total/2
	for _, e := range es {
		e.draw(vg.Point{X: x, Y: y})
		x += vg.Points(24)
		dc.FillText(sty, vg.Point{X: x, Y: y}, e.label)
		x += sty.Width(e.label) + vg.Points(16)
	}
	nsty := textStyle(10, draw.XCenter, draw.YCenter)
	for i, n := range lg.notes {
		dc.FillText(nsty, vg.Point{X: dc.Center().X, Y: y - vg.Length(i+1)*lineH}, n)
	}
	bottom = y + lineH/2 + vg.Points(4)
	side := min(top-bottom, dc.Max.X-dc.Min.X-vg.Points(12))
	x0 := dc.Center().X - side/2
	y0 := bottom + (top-bottom-side)/2
	return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + side, Y: y0 + side}}
}

func node(dc draw.Canvas, p vg.Point, r vg.Length, fill color.Color) {
	dc.DrawGlyph(draw.GlyphStyle{Color: fill, Radius: r, Shape: draw.CircleGlyph{}}, p)
	dc.DrawGlyph(draw.GlyphStyle{Color: colFrame, Radius: r, Shape: draw.RingGlyph{}}, p)
}

// latticeBond classifies the bond between sites (x1,y1) and (x2,y2) of an
// L x L torus: dir is 0 for a horizontal and 1 for a vertical bond, wrap
// tells whether it crosses the border, and ok is false when the two sites
// are not torus neighbours. (fx,fy) is the site the bond leaves rightwards
// or downwards (before wrapping).
func latticeBond(l, x1, y1, x2, y2 int) (dir int, wrap, ok bool, fx, fy int) {
	dx, dy := ((x2-x1)%l+l)%l, ((y2-y1)%l+l)%l
	switch {
	case dy == 0 && dx == 1:
		return 0, x1 == l-1, true, x1, y1
	case dy == 0 && dx == l-1:
		return 0, x2 == l-1, true, x2, y2
	case dx == 0 && dy == 1:
		return 1, y1 == l-1, true, x1, y1
	case dx == 0 && dy == l-1:
		return 1, y2 == l-1, true, x2, y2
	}
	return 0, false, false, 0, 0
}

// latticeBond2D is an in-plane bond of an L x L torus: the site (X,Y) it
// leaves rightwards (Dir 0) or downwards (Dir 1), wrapping if Wrap.
type latticeBond2D struct {
	X, Y, Dir int
	Wrap      bool
	W         float64
}

// drawGrid draws an L x L torus in the square r: row y = 0 at the top,
// bonds first (wrap-around ones as stubs reaching past the border), then the
// nodes filled by h (indexed by y*L+x).
func drawGrid(dc draw.Canvas, r vg.Rectangle, l int, bonds []latticeBond2D, h []float64, jmax float64) {
	s := (r.Max.X - r.Min.X) / vg.Length(l)
	pos := func(x, y int) vg.Point {
		return vg.Point{X: r.Min.X + (vg.Length(x)+0.5)*s, Y: r.Max.Y - (vg.Length(y)+0.5)*s}
	}
	maxW := min(vg.Points(3), s*0.22)
	for _, b := range bonds {
		st := bondStyle(b.W, jmax, maxW)
		p := pos(b.X, b.Y)
		step := vg.Point{X: s}
		if b.Dir == 1 {
			step = vg.Point{Y: -s}
		}
		if !b.Wrap {
			q := p.Add(step)
			dc.StrokeLine2(st, p.X, p.Y, q.X, q.Y)
			continue
		}
		// A stub out of the last site and one into the first.
		half := step.Scale(0.5)
		q := p.Add(half)
		dc.StrokeLine2(st, p.X, p.Y, q.X, q.Y)
		first := pos(0, b.Y)
		if b.Dir == 1 {
			first = pos(b.X, 0)
		}
		q = first.Sub(half)
		dc.StrokeLine2(st, first.X, first.Y, q.X, q.Y)
	}
	rad := max(vg.Points(1), min(vg.Points(6), s*0.27))
	for y := 0; y < l; y++ {
		for x := 0; x < l; x++ {
			node(dc, pos(x, y), rad, fieldColor(h[y*l+x]))
		}
	}
}

// PlotLattice2D draws the L x L torus m (site (x,y) has index y*L+x) as a
// grid of nodes filled by the sign of their field, with each bond coloured
// by the sign of its coupling and as wide as |J| allows; bonds that wrap
// around the torus are short stubs at the border. Every coupling of m must
// join torus neighbours.
func PlotLattice2D(path, title string, m *model.Ising, L int) error {
	if m == nil {
		return fmt.Errorf("lattice figure: no model")
	}
	if L < 3 || m.N != L*L {
		return fmt.Errorf("lattice figure: model has %d spins, not an L x L torus with L = %d (expected L >= 3 and %d spins)", m.N, L, L*L)
	}
	lg := &legend{}
	var bonds []latticeBond2D
	wraps := 0
	for _, e := range m.Edges() {
		i, j := int(e.I), int(e.J)
		dir, wrap, ok, fx, fy := latticeBond(L, i%L, i/L, j%L, j/L)
		if !ok {
			return fmt.Errorf("lattice figure: coupling %d-%d does not join neighbours of the %dx%d torus", i, j, L, L)
		}
		if wrap {
			wraps++
		}
		bonds = append(bonds, latticeBond2D{fx, fy, dir, wrap, e.W})
		lg.bond(e.W)
	}
	for _, h := range m.H {
		lg.field(h)
	}
	lg.notes = []string{fmt.Sprintf("%d x %d torus, %d couplings; line width ~ |J|; stubs at the border are the %d wrap-around bonds",
		L, L, len(bonds), wraps)}
	jmax := maxAbsJ(m)
	return save(path, ModelSize, ModelSize, func(dc draw.Canvas) {
		r := frame(dc, title, lg)
		drawGrid(dc, r, L, bonds, m.H, jmax)
	})
}

// PlotSpinGlass3D draws the L x L x L torus m (site (x,y,z) has index
// (z*L+y)*L+x) as its L layers z = 0..L-1 side by side, each an L x L grid
// with its in-layer bonds as in PlotLattice2D. Bonds between layers are
// counted in the legend but not drawn.
func PlotSpinGlass3D(path, title string, m *model.Ising, L int) error {
	if m == nil {
		return fmt.Errorf("3D lattice figure: no model")
	}
	if L < 3 || m.N != L*L*L {
		return fmt.Errorf("3D lattice figure: model has %d spins, not an L x L x L torus with L = %d (expected L >= 3 and %d spins)", m.N, L, L*L*L)
	}
	lg := &legend{}
	layers := make([][]latticeBond2D, L)
	between := 0
	for _, e := range m.Edges() {
		i, j := int(e.I), int(e.J)
		x1, y1, z1 := i%L, i/L%L, i/(L*L)
		x2, y2, z2 := j%L, j/L%L, j/(L*L)
		if z1 != z2 {
			if dz := ((z2-z1)%L + L) % L; x1 != x2 || y1 != y2 || (dz != 1 && dz != L-1) {
				return fmt.Errorf("3D lattice figure: coupling %d-%d does not join neighbours of the %d^3 torus", i, j, L)
			}
			between++
			continue
		}
		dir, wrap, ok, fx, fy := latticeBond(L, x1, y1, x2, y2)
		if !ok {
			return fmt.Errorf("3D lattice figure: coupling %d-%d does not join neighbours of the %d^3 torus", i, j, L)
		}
		layers[z1] = append(layers[z1], latticeBond2D{fx, fy, dir, wrap, e.W})
		lg.bond(e.W)
	}
	for _, h := range m.H {
		lg.field(h)
	}
	lg.notes = []string{fmt.Sprintf("%d^3 torus shown as its %d layers z = 0..%d (left to right, top to bottom); line width ~ |J|",
		L, L, L-1),
		fmt.Sprintf("the %d bonds between layers are omitted; stubs at each layer's border are wrap-around bonds", between)}
	cols := int(math.Ceil(math.Sqrt(float64(L))))
	rows := (L + cols - 1) / cols
	jmax := maxAbsJ(m)
	return save(path, ModelSize, ModelSize, func(dc draw.Canvas) {
		r := frame(dc, title, lg)
		cell := (r.Max.X - r.Min.X) / vg.Length(cols)
		gap := cell * 0.12
		lsty := textStyle(10, draw.XCenter, draw.YTop)
		lh := lsty.Height("z")
		// Centre the block of rows vertically.
		y0 := r.Max.Y - (r.Max.Y-r.Min.Y-vg.Length(rows)*cell)/2
		for z := 0; z < L; z++ {
			cx := r.Min.X + vg.Length(z%cols)*cell
			cy := y0 - vg.Length(z/cols)*cell
			dc.FillText(lsty, vg.Point{X: cx + cell/2, Y: cy}, fmt.Sprintf("z = %d", z))
			side := cell - gap - lh
			sq := vg.Rectangle{Min: vg.Point{X: cx + (cell-side)/2, Y: cy - lh - side}, Max: vg.Point{X: cx + (cell+side)/2, Y: cy - lh}}
			drawGrid(dc, sq, L, layers[z], m.H[z*L*L:(z+1)*L*L], jmax)
		}
	})
}

// PlotChimera draws the chimera C(M,N,T) m in D-Wave's indexing (qubit k of
// half u of cell (i,j) has index ((i*N+j)*2+u)*T+k) in the cross layout:
// each cell's vertical half (u = 0) is a row of T nodes and its horizontal
// half (u = 1) a column through the cell's centre, joined by the K_{T,T}
// intra-cell couplers; vertical couplers join u = 0 qubits of vertically
// adjacent cells and horizontal ones u = 1 qubits of horizontally adjacent
// cells. Couplings are coloured by sign and as wide as |J| allows. Every
// coupling of m must be a chimera coupler.
func PlotChimera(path, title string, m *model.Ising, M, N, T int) error {
	if m == nil {
		return fmt.Errorf("chimera figure: no model")
	}
	if M < 1 || N < 1 || T < 1 || m.N != 2*M*N*T {
		return fmt.Errorf("chimera figure: model has %d spins, not a chimera C(%d,%d,%d) (expected positive sizes and %d spins)", m.N, M, N, T, 2*M*N*T)
	}
	type qubit struct{ i, j, u, k int }
	at := func(v int) qubit {
		k := v % T
		v /= T
		u := v % 2
		v /= 2
		return qubit{v / N, v % N, u, k}
	}
	lg := &legend{}
	edges := m.Edges()
	intra, inter := 0, 0
	for _, e := range edges {
		a, b := at(int(e.I)), at(int(e.J))
		switch {
		case a.i == b.i && a.j == b.j && a.u != b.u:
			intra++
		case a.u == b.u && a.k == b.k && a.u == 0 && a.j == b.j && (a.i-b.i == 1 || b.i-a.i == 1):
			inter++
		case a.u == b.u && a.k == b.k && a.u == 1 && a.i == b.i && (a.j-b.j == 1 || b.j-a.j == 1):
			inter++
		default:
			return fmt.Errorf("chimera figure: coupling %d-%d is not a coupler of C(%d,%d,%d)", e.I, e.J, M, N, T)
		}
		lg.bond(e.W)
	}
	for _, h := range m.H {
		lg.field(h)
	}
	lg.notes = []string{fmt.Sprintf("C(%d,%d,%d): %d cells of K_{%d,%d}; rows of nodes are the vertical qubits (u = 0), columns the horizontal ones (u = 1)",
		M, N, T, M*N, T, T),
		fmt.Sprintf("%d intra-cell and %d inter-cell couplers; line width ~ |J|", intra, inter)}
	jmax := maxAbsJ(m)
	// Offsets of the T nodes of a half from the cell centre, in node
	// spacings, leaving a gap at the centre where the row and the column
	// cross, so that couplers between cells pass clear of the other half.
	offs := make([]float64, T)
	for k := range offs {
		o := float64(k) - float64(T-1)/2
		offs[k] = o + math.Copysign(0.75, o)
		if o == 0 { // the middle node of an odd T: just off the centre line
			offs[k] = 0.75
		}
	}
	span := 2 * math.Abs(offs[0])
	if T == 1 {
		span = 1.5
	}
	return save(path, ModelSize, ModelSize, func(dc draw.Canvas) {
		r := frame(dc, title, lg)
		cell := (r.Max.X - r.Min.X) / vg.Length(max(M, N))
		// Centre the M x N cells in the square.
		ox := r.Min.X + (r.Max.X-r.Min.X-vg.Length(N)*cell)/2
		oy := r.Max.Y - (r.Max.Y-r.Min.Y-vg.Length(M)*cell)/2
		s := cell / vg.Length(span+1.6)
		pos := func(q qubit) vg.Point {
			c := vg.Point{X: ox + (vg.Length(q.j)+0.5)*cell, Y: oy - (vg.Length(q.i)+0.5)*cell}
			if q.u == 0 {
				return vg.Point{X: c.X + vg.Length(offs[q.k])*s, Y: c.Y}
			}
			return vg.Point{X: c.X, Y: c.Y - vg.Length(offs[q.k])*s}
		}
		// Faint cell outlines.
		box := draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Points(0.8)}
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				x0, y0 := ox+vg.Length(j)*cell+cell*0.04, oy-vg.Length(i+1)*cell+cell*0.04
				x1, y1 := x0+cell*0.92, y0+cell*0.92
				dc.StrokeLines(box, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
			}
		}
		maxW := min(vg.Points(3.5), s*0.25)
		for _, e := range edges {
			p, q := pos(at(int(e.I))), pos(at(int(e.J)))
			dc.StrokeLine2(bondStyle(e.W, jmax, maxW), p.X, p.Y, q.X, q.Y)
		}
		rad := max(vg.Points(1.5), min(vg.Points(5), s*0.22))
		for v := 0; v < m.N; v++ {
			node(dc, pos(at(v)), rad, fieldColor(m.H[v]))
		}
	})
}
