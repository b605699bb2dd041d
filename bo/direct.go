package bo

import (
	"container/heap"
	"math"
	"slices"
)

// DirectOptions configures Direct. The zero value runs plain DIRECT with
// 1000*dim evaluations.
type DirectOptions struct {
	// MaxEvals stops the search once this many evaluations are spent; the
	// rectangle being divided is finished first, so the count may exceed it
	// by at most 2*dim. Default 1000*dim when MaxIters is also zero.
	MaxEvals int
	// MaxIters bounds the iterations (rounds of dividing all potentially
	// optimal rectangles). Default unlimited.
	MaxIters int
	// Eps is Jones's epsilon: a rectangle is potentially optimal only if it
	// can improve on fmin by at least Eps*|fmin|. Default 1e-4.
	Eps float64
	// DirectL selects the locally-biased DIRECT-L of Gablonsky and Kelley
	// (2001): rectangle size is measured by its longest side, not its
	// diagonal, so fewer size groups exist, and at most one rectangle per
	// size group (the first with the lowest value) is divided per iteration.
	DirectL bool
}

// rect is a hyperrectangle of the unit cube: its center, the number of
// trisections along each dimension (side 3^-level), and f at the center.
type rect struct {
	c     []float64
	level []int
	f     float64
}

// Direct minimizes f on [0,1]^dim with the DIvided RECTangles algorithm of
// Jones, Perttunen and Stuckman (1993), "Lipschitzian optimization without
// the Lipschitz constant", J. Optim. Theory Appl. 79(1). It returns the best
// point found, its value and the number of evaluations. A NaN from f counts
// as +Inf. f may keep its argument only by copying it.
func Direct(f func([]float64) float64, dim int, opts DirectOptions) (xbest []float64, fbest float64, evals int) {
	if dim <= 0 {
		panic("bo: Direct needs dim > 0")
	}
	if opts.MaxEvals <= 0 && opts.MaxIters <= 0 {
		opts.MaxEvals = 1000 * dim
	}
	if opts.Eps == 0 {
		opts.Eps = 1e-4
	}
	eval := func(x []float64) float64 {
		evals++
		v := f(x)
		if math.IsNaN(v) {
			v = math.Inf(1)
		}
		if v < fbest || xbest == nil {
			fbest, xbest = v, append(xbest[:0], x...)
		}
		return v
	}
	c0 := make([]float64, dim)
	for i := range c0 {
		c0[i] = 0.5
	}
	fbest = math.Inf(1)
	rects := []rect{{c: c0, level: make([]int, dim), f: eval(c0)}}
	gr := &groups{dim: dim, local: opts.DirectL, heaps: map[int]*groupHeap{}}
	gr.add(rects, 0)
	// Side lengths 3^-k; beyond ~ 3^-33 centers stop being distinct floats.
	const maxLevel = 33
	for iter := 0; opts.MaxIters <= 0 || iter < opts.MaxIters; iter++ {
		if opts.MaxEvals > 0 && evals >= opts.MaxEvals {
			break
		}
		po := gr.potentiallyOptimal(rects, fbest, opts.Eps)
		divided := false
		for _, j := range po {
			if opts.MaxEvals > 0 && evals >= opts.MaxEvals {
				break
			}
			if slices.Min(rects[j].level) >= maxLevel {
				continue
			}
			n0 := len(rects)
			rects = divide(rects, j, eval)
			gr.add(rects, j) // j shrank: it joins a smaller group
			for i := n0; i < len(rects); i++ {
				gr.add(rects, i)
			}
			divided = true
		}
		if !divided {
			break
		}
	}
	return xbest, fbest, evals
}

// sizeKey groups rectangles of equal size. Division along the longest sides
// keeps every level vector within {k, k+1}, so the total number of
// trisections t identifies the diagonal (plain DIRECT) and k = min level
// identifies the longest side (DIRECT-L).
func sizeKey(r rect, local bool) int {
	if local {
		return slices.Min(r.level)
	}
	t := 0
	for _, l := range r.level {
		t += l
	}
	return t
}

// sizeOf is the size measure of a group key: half the diagonal for DIRECT,
// the longest side for DIRECT-L. Only the order and ratios matter.
func sizeOf(key, dim int, local bool) float64 {
	if local {
		return math.Pow(3, -float64(key))
	}
	k, p := key/dim, key%dim
	s2 := float64(dim-p)*math.Pow(9, -float64(k)) + float64(p)*math.Pow(9, -float64(k+1))
	return 0.5 * math.Sqrt(s2)
}

// entry is a rectangle in a size group's heap, ordered by (f, index). A
// rectangle leaves its group when divided; its stale entry is dropped lazily
// when it reaches the top (keys only grow, so a key mismatch marks it).
type entry struct {
	f   float64
	idx int
	key int
}

type groupHeap []entry

func (h groupHeap) Len() int { return len(h) }
func (h groupHeap) Less(i, j int) bool {
	return h[i].f < h[j].f || (h[i].f == h[j].f && h[i].idx < h[j].idx)
}
func (h groupHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *groupHeap) Push(x any)   { *h = append(*h, x.(entry)) }
func (h *groupHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// groups indexes rectangles by size key, so that each iteration touches only
// the best rectangle of each group instead of scanning all of them.
type groups struct {
	dim   int
	local bool
	heaps map[int]*groupHeap
}

func (g *groups) add(rects []rect, i int) {
	k := sizeKey(rects[i], g.local)
	h := g.heaps[k]
	if h == nil {
		h = &groupHeap{}
		g.heaps[k] = h
	}
	heap.Push(h, entry{f: rects[i].f, idx: i, key: k})
}

// potentiallyOptimal returns the indices of the rectangles j for which some
// K > 0 gives f_j - K d_j <= f_i - K d_i for all i and
// f_j - K d_j <= fmin - eps |fmin| (Jones et al. 1993, Definition 4.1 and
// Lemma 4.3). Only the lowest value of each size group can qualify; with the
// groups sorted by size, K must lie between the steepest slope to a smaller
// group and the shallowest slope to a larger one, which leaves the vertices
// of the lower-right convex hull of the points (size, value).
// Plain DIRECT takes every rectangle tied at a group's minimum, DIRECT-L
// only the first.
func (g *groups) potentiallyOptimal(rects []rect, fmin, eps float64) []int {
	type group struct {
		key   int
		d, f  float64
		which []int
	}
	var gs []group
	for k, h := range g.heaps {
		for h.Len() > 0 && sizeKey(rects[(*h)[0].idx], g.local) != (*h)[0].key {
			heap.Pop(h)
		}
		if h.Len() == 0 {
			delete(g.heaps, k)
			continue
		}
		top := (*h)[0]
		gr := group{key: k, d: sizeOf(k, g.dim, g.local), f: top.f, which: []int{top.idx}}
		if !g.local {
			// Collect the ties: pop them (and stale entries), push the live ones back.
			var keep []entry
			heap.Pop(h)
			for h.Len() > 0 && (*h)[0].f == top.f {
				e := heap.Pop(h).(entry)
				if sizeKey(rects[e.idx], g.local) == e.key {
					gr.which = append(gr.which, e.idx)
					keep = append(keep, e)
				}
			}
			heap.Push(h, top)
			for _, e := range keep {
				heap.Push(h, e)
			}
		}
		gs = append(gs, gr)
	}
	slices.SortFunc(gs, func(a, b group) int { return b.key - a.key }) // ascending d
	// Lower convex hull of the points (d, f) by Andrew's monotone chain,
	// keeping collinear points (they satisfy the conditions with equality).
	hull := make([]int, 0, len(gs))
	for i := range gs {
		for len(hull) >= 2 {
			a, b := gs[hull[len(hull)-2]], gs[hull[len(hull)-1]]
			if (b.d-a.d)*(gs[i].f-a.f)-(b.f-a.f)*(gs[i].d-a.d) >= 0 {
				break
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, i)
	}
	// Off the hull, some smaller and larger group pair squeezes K empty;
	// on it, K lies between the slopes of the adjacent hull edges.
	var out []int
	for h, j := range hull {
		gr := gs[j]
		lo, hi := 0.0, math.Inf(1)
		if h > 0 {
			p := gs[hull[h-1]]
			lo = math.Max(lo, (gr.f-p.f)/(gr.d-p.d))
		}
		if h+1 < len(hull) {
			n := gs[hull[h+1]]
			hi = (n.f - gr.f) / (n.d - gr.d)
		}
		if !(hi > 0) || lo > hi {
			continue
		}
		if !math.IsInf(hi, 1) && gr.f-hi*gr.d > fmin-eps*math.Abs(fmin) {
			continue
		}
		out = append(out, gr.which...)
	}
	slices.Sort(out)
	return out
}

// divide trisects rectangle j along all its longest sides, the side whose
// new points have the lowest value first, so the best points get the
// largest rectangles (Jones et al. 1993, Section 4).
func divide(rects []rect, j int, eval func([]float64) float64) []rect {
	r := rects[j]
	k := slices.Min(r.level)
	delta := math.Pow(3, -float64(k+1))
	type side struct {
		dim    int
		cp, cm []float64
		fp, fm float64
	}
	var sides []side
	for i, l := range r.level {
		if l != k {
			continue
		}
		s := side{dim: i, cp: slices.Clone(r.c), cm: slices.Clone(r.c)}
		s.cp[i] += delta
		s.cm[i] -= delta
		s.fp, s.fm = eval(s.cp), eval(s.cm)
		sides = append(sides, s)
	}
	slices.SortStableFunc(sides, func(a, b side) int {
		wa, wb := math.Min(a.fp, a.fm), math.Min(b.fp, b.fm)
		switch {
		case wa < wb:
			return -1
		case wa > wb:
			return 1
		}
		return 0
	})
	for _, s := range sides {
		r.level[s.dim]++
		rects = append(rects,
			rect{c: s.cp, level: slices.Clone(r.level), f: s.fp},
			rect{c: s.cm, level: slices.Clone(r.level), f: s.fm})
	}
	return rects
}
