package walkrec

// Walks is the record of the walks since the last one that started with an
// empty path (or of one forward replay). The zero value holds nothing.
type Walks struct {
	ok     bool
	n      int         // bits recorded
	bounds []int       // walk w is bits bounds[w]:bounds[w+1]
	zav    [][2]uint64 // per bit: Z at both biases right after it was taken and flipped
	e0     float64     // energy before the first walk
}

// Invalidate forgets the record (any change of state or biases but a walk).
func (r *Walks) Invalidate() { r.ok = false }

// E0 is the energy before the recorded walks, if the record holds n bits.
func (r *Walks) E0(n int) (float64, bool) { return r.e0, r.ok && r.n == n }

// Begin starts a walk whose path so far has start bits, from energy e; it
// reports whether a fresh record was started (start == 0). A walk that does
// not continue the recorded path invalidates the record.
func (r *Walks) Begin(start int, e float64) bool {
	if start == 0 {
		r.ok, r.n, r.e0 = true, 0, e
		r.bounds = append(r.bounds[:0], 0)
		r.zav = r.zav[:0]
		return true
	}
	if !r.ok || r.n != start {
		r.ok = false
	}
	return false
}

// Add records the sums z0, z1 right after a take and its flip.
func (r *Walks) Add(z0, z1 uint64) {
	if r.ok {
		r.zav = append(r.zav, [2]uint64{z0, z1})
	}
}

// End closes a walk; the path now has n bits.
func (r *Walks) End(n int) {
	if !r.ok {
		return
	}
	if len(r.zav) != n {
		r.ok = false
		return
	}
	r.n = n
	r.bounds = append(r.bounds, n)
}

// Matches reports whether the record holds exactly the walks of path and
// bounds.
func (r *Walks) Matches(path []int32, bounds []int) bool {
	if !r.ok || r.n != len(path) || len(bounds) != len(r.bounds) {
		return false
	}
	for i, b := range bounds {
		if r.bounds[i] != b {
			return false
		}
	}
	return true
}

// Sums are the recorded normalizers, one pair per bit of the path (valid
// when Matches holds).
func (r *Walks) Sums() [][2]uint64 { return r.zav }

// Bounds are the recorded walks' bounds: walk w is bits Bounds()[w] to
// Bounds()[w+1] of the path.
func (r *Walks) Bounds() []int { return r.bounds }

// Valid reports whether the record still holds the walks since the last
// fresh Begin.
func (r *Walks) Valid() bool { return r.ok }
