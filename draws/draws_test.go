package draws

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// keep runs a thinning over steps 1..n after origin and returns the steps
// of the draws kept at the end, halving as it says.
func keep(origin, capacity, n int) (Thinning, []int) {
	th := New(origin, capacity)
	var kept []int
	for s := origin + 1; s <= origin+n; s++ {
		k, h := th.Next(s)
		if h {
			kept = HalveFrom(kept, 0)
		}
		if k {
			kept = append(kept, s)
		}
	}
	return th, kept
}

// Whatever the length, the kept draws are between Cap/2 and Cap, equally
// spaced at Every from the origin over the whole phase, Every the
// smallest power of 2 that fits: every step while the phase is shorter
// than Cap.
func TestThinningEvenlySpaced(t *testing.T) {
	for _, c := range []struct{ origin, capacity, n int }{{0, 64, 10}, {0, 64, 64}, {0, 64, 65}, {7, 64, 1000}, {100, 128, 12345}, {3, 64, 64 * 1024}} {
		th, kept := keep(c.origin, c.capacity, c.n)
		if len(kept) != th.Kept || th.Valid() != nil {
			t.Fatalf("%+v: %d kept, thinning %+v", c, len(kept), th)
		}
		want := 1
		for c.n/want > c.capacity {
			want *= 2
		}
		if th.Every != want || len(kept) != c.n/want {
			t.Errorf("%+v: every %d with %d draws, want every %d with %d", c, th.Every, len(kept), want, c.n/want)
		}
		if c.n >= c.capacity && (len(kept) < c.capacity/2 || len(kept) > c.capacity) {
			t.Errorf("%+v: %d draws, want between %d and %d", c, len(kept), c.capacity/2, c.capacity)
		}
		for j, s := range kept {
			if s != th.Step(j) {
				t.Fatalf("%+v: draw %d at step %d, Step says %d", c, j, s, th.Step(j))
			}
		}
	}
}

// A broken thinning (keeping the even indices when halving: steps k, 3k,
// 5k, ...) is caught by the spacing check.
func TestThinningBrokenHalveCaught(t *testing.T) {
	th := New(0, 64)
	var kept []int
	for s := 1; s <= 1000; s++ {
		k, h := th.Next(s)
		if h {
			n := len(kept) / 2
			for j := range n {
				kept[j] = kept[2*j]
			}
			kept = kept[:n]
		}
		if k {
			kept = append(kept, s)
		}
	}
	bad := false
	for j, s := range kept {
		bad = bad || s != th.Step(j)
	}
	if !bad {
		t.Fatal("halving to the even indices kept evenly spaced draws: the check cannot fail")
	}
}

func TestSubsample(t *testing.T) {
	x := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got := Subsample(x, 4); !slices.Equal(got, []int{4, 8}) {
		t.Errorf("Subsample by 4: %v", got)
	}
	if got := Subsample(x, 1); !slices.Equal(got, x) {
		t.Errorf("Subsample by 1: %v", got)
	}
}

// The moments of a long series far from zero give the mean and variance
// of exact rational arithmetic to a few ulps; the naive sum of squares does
// not.
func TestMomentsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var parts []*Moments
	sum, sq := new(big.Rat), new(big.Rat)
	n := 0
	for range 3 {
		m := &Moments{}
		for range 100000 {
			x := -7200.25 + 3*r.NormFloat64()
			m.Add(x)
			bx := new(big.Rat).SetFloat64(x)
			sum.Add(sum, bx)
			sq.Add(sq, new(big.Rat).Mul(bx, bx))
			n++
		}
		parts = append(parts, m)
	}
	bn := new(big.Rat).SetInt64(int64(n))
	mu := new(big.Rat).Quo(sum, bn)
	v := new(big.Rat).Sub(new(big.Rat).Quo(sq, bn), new(big.Rat).Mul(mu, mu))
	wantMu, _ := mu.Float64()
	wantV, _ := v.Float64()
	if got := PooledMean(parts); math.Abs(got-wantMu) > 4*math.Abs(wantMu)*0x1p-52 {
		t.Errorf("mean %v, want %v", got, wantMu)
	}
	if got := PooledVariance(parts); math.Abs(got-wantV) > 1e-12*wantV {
		t.Errorf("variance %v, want %v (relative error %.2g)", got, wantV, math.Abs(got-wantV)/wantV)
	}
	// JSON keeps the sums bit for bit (checkpoints).
	b, err := json.Marshal(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Moments
	if err := json.Unmarshal(b, &back); err != nil || back != *parts[0] {
		t.Errorf("JSON round trip: %+v, want %+v (%v)", back, *parts[0], err)
	}
}

// Integer moments are exact beyond 64 bits: 10^6-spin sums over many
// steps.
func TestIntMomentsExact(t *testing.T) {
	var a, b IntMoments
	r := rand.New(rand.NewPCG(3, 4))
	var vals []int64
	for i := range 5000 {
		v := int64(1_000_000 - r.IntN(2000))
		if i%3 == 0 {
			v = -v
		}
		vals = append(vals, v)
		if i%2 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	// A sum of squares over 2^64: 5000 x 10^12 is not, so add the
	// extreme directly.
	big1 := IntMoments{N: 1, Sum: 1 << 40, Abs: 1 << 40, Sq: [2]uint64{1 << 16, 0}} // (2^40)^2 = 2^80
	mean, absMean, v, absV := PooledInt([]*IntMoments{&a, &b}, 1e6)
	n := new(big.Rat).SetInt64(int64(len(vals)))
	s, q, ab := new(big.Rat), new(big.Rat), new(big.Rat)
	for _, x := range vals {
		bx := new(big.Rat).SetInt64(x)
		s.Add(s, bx)
		q.Add(q, new(big.Rat).Mul(bx, bx))
		ab.Add(ab, new(big.Rat).Abs(bx))
	}
	scale := new(big.Rat).SetFloat64(1e6)
	mu := new(big.Rat).Quo(s, n)
	amu := new(big.Rat).Quo(ab, n)
	f := func(x *big.Rat) float64 { y, _ := x.Float64(); return y }
	sc2 := new(big.Rat).Mul(scale, scale)
	wantV := f(new(big.Rat).Quo(new(big.Rat).Sub(new(big.Rat).Quo(q, n), new(big.Rat).Mul(mu, mu)), sc2))
	wantAV := f(new(big.Rat).Quo(new(big.Rat).Sub(new(big.Rat).Quo(q, n), new(big.Rat).Mul(amu, amu)), sc2))
	if mean != f(mu)/1e6 || absMean != f(amu)/1e6 || math.Abs(v-wantV) > 1e-15*wantV || math.Abs(absV-wantAV) > 1e-13*wantAV {
		t.Errorf("PooledInt: %v %v %v %v, want %v %v %v %v", mean, absMean, v, absV, f(mu)/1e6, f(amu)/1e6, wantV, wantAV)
	}
	var c IntMoments
	c.Add(1 << 40)
	if c != big1 {
		t.Errorf("(2^40)^2 summed as %+v, want %+v", c, big1)
	}
}
