package summary

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// bestRef is the K lowest distinct states of a stream by brute force:
// every distinct state with its first step, sorted by energy then step.
func bestRef(es []float64, ss [][]int8, k int) []BestState {
	first := map[string]BestState{}
	for i, s := range ss {
		b := bitString(s)
		if _, ok := first[b]; !ok {
			first[b] = BestState{Energy: es[i], Step: i + 1, Bits: b}
		}
	}
	var all []BestState
	for _, s := range first {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b BestState) int {
		return cmp.Or(cmp.Compare(a.Energy, b.Energy), cmp.Compare(a.Step, b.Step))
	})
	return all[:min(k, len(all))]
}

// A stream of states from a few levels (ties of energy between distinct
// states, as a symmetric model's s and -s) revisited often: BestSet keeps
// the brute force's K lowest, and Lowest the first step of the lowest
// energy. A set that does not recognize a state it holds is caught.
func TestBestSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 6
	var es []float64
	var ss [][]int8
	for range 3000 {
		s := make([]int8, n)
		x := r.IntN(1 << n)
		for i := range s {
			s[i] = int8(2*(x>>i&1) - 1)
		}
		e := float64(sum8(s)*sum8(s)) - 0.5*float64(s[0]) // levels shared by many states
		es, ss = append(es, e), append(ss, s)
	}
	for _, k := range []int{1, 3, 10, 100} {
		for _, broken := range []bool{false, true} {
			if broken && k < 10 {
				continue // the lowest level has more distinct states than k: no revisit enters
			}
			b := &BestSet{K: k}
			var l Lowest
			for i := range es {
				l.Offer(es[i], i+1)
				if broken {
					// forgets what it holds: every revisit is a new state
					b.insert(es[i], func(BestState) bool { return false },
						func() BestState { return BestState{Energy: es[i], Step: i + 1, Bits: bitString(ss[i])} })
				} else {
					b.Offer(es[i], i+1, 0, ss[i])
				}
			}
			want := bestRef(es, ss, k)
			same := slices.Equal(b.States, want)
			if same == broken {
				t.Errorf("k = %d, broken %v: kept %v, brute force %v", k, broken, b.States, want)
			}
			if l.Energy != want[0].Energy || l.Step != want[0].Step {
				t.Errorf("Lowest %+v, brute force %+v", l, want[0])
			}
		}
	}
	// Merging trials' sets is the set of the concatenated streams, each
	// state first seen in the lower trial.
	a, c := &BestSet{K: 7}, &BestSet{K: 7}
	for i := range 1500 {
		a.Offer(es[i], i+1, 0, ss[i])
	}
	for i := 1500; i < 3000; i++ {
		c.Offer(es[i], i+1, 0, ss[i])
	}
	m := &BestSet{K: 7}
	m.Merge(a)
	m.Merge(c)
	if want := bestRef(es, ss, 7); !slices.EqualFunc(m.States, want, func(x, y BestState) bool { return x.Energy == y.Energy && x.Bits == y.Bits }) {
		t.Errorf("merged %v, brute force %v", m.States, want)
	}
}

func sum8(s []int8) int {
	t := 0
	for _, v := range s {
		t += int(v)
	}
	return t
}

// Draws of a few levels are said to concentrate; draws of many distinct
// values, or more than maxLevels of them, are not.
func TestLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	few := [][]float64{{}, {}}
	many := [][]float64{{}, {}}
	for i := range 4000 {
		few[i%2] = append(few[i%2], float64(min(r.IntN(10), 3)))
		many[i%2] = append(many[i%2], r.NormFloat64())
	}
	l := levelsOf(few)
	if l == nil || l.Distinct != 4 || *l.Top != 3 || *l.TopShare < 0.6 || l.Concentrated() == "" {
		t.Errorf("few levels: %+v %q", l, l.Concentrated())
	}
	if l := levelsOf(many); l == nil || !l.More || l.Concentrated() != "" {
		t.Errorf("many values: %+v", l)
	}
	if l := levelsOf([][]float64{{}}); l != nil {
		t.Errorf("no draws: %+v", l)
	}
}
