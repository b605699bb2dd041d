package summary

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"sardonics/atomicfile"
)

// The lowest states found: what a QUBO user (an optimizer's user) reads
// first. Every step counts, its burn-in included: a state seen once during
// the burn-in is as much a solution as one seen after it.

// Lowest is the lowest energy a trial's chain reported and the step
// (counted from 1, the burn-in included) at which it first reported it;
// Step 0: no step yet.
type Lowest struct {
	Energy float64 `json:"energy"`
	Step   int     `json:"step"`
}

// Offer counts energy e at step: the lowest so far is kept with the first
// step that reached it.
func (l *Lowest) Offer(e float64, step int) {
	if e < l.Energy || l.Step == 0 {
		l.Energy, l.Step = e, step
	}
}

// BestState is one of the lowest distinct states a trial saw
// (--save-best): its energy, the first step at which it was seen, and its
// variables as a string of 0s and 1s (x = (1+s)/2, the order of the
// model's variables).
type BestState struct {
	Energy float64 `json:"energy"`
	Step   int     `json:"step"`
	Trial  int     `json:"trial"`
	Bits   string  `json:"bits"`
}

// BestSet keeps the K lowest distinct states offered to it, lowest first
// (ties of energy in the order they were first seen). With one energy per
// state (model.OnGrid) a state is offered again only with its own energy,
// so only states of equal energy need comparing.
type BestSet struct {
	K      int         `json:"k"`
	States []BestState `json:"states"`
}

// Full reports whether a state of energy e could not enter the set: it is
// full and e is above its highest energy. Callers ask it before building
// a state's bits (the common case, at no cost).
func (b *BestSet) Full(e float64) bool {
	return b.K <= 0 || len(b.States) == b.K && e > b.States[b.K-1].Energy
}

// Offer adds the state of spins (+-1) of energy e first seen at step of
// trial, unless it holds it already or it is not among the K lowest.
func (b *BestSet) Offer(e float64, step, trial int, spins []int8) {
	b.insert(e, func(x BestState) bool { return sameBits(x.Bits, spins) },
		func() BestState { return BestState{Energy: e, Step: step, Trial: trial, Bits: bitString(spins)} })
}

// Merge offers every state of o (their own steps and trials) to b.
func (b *BestSet) Merge(o *BestSet) {
	for _, s := range o.States {
		b.insert(s.Energy, func(x BestState) bool { return x.Bits == s.Bits }, func() BestState { return s })
	}
}

// insert puts the state that newState builds, of energy e, after the
// states of energy e already held, unless same finds it among them.
func (b *BestSet) insert(e float64, same func(BestState) bool, newState func() BestState) {
	if b.Full(e) {
		return
	}
	j, _ := slices.BinarySearchFunc(b.States, e, func(s BestState, e float64) int { return cmp.Compare(s.Energy, e) })
	for ; j < len(b.States) && b.States[j].Energy == e; j++ {
		if same(b.States[j]) {
			return
		}
	}
	if j == b.K {
		return // full of states of energy e seen before
	}
	b.States = slices.Insert(b.States, j, newState())
	if len(b.States) > b.K {
		b.States = b.States[:b.K]
	}
}

func bitString(spins []int8) string {
	x := make([]byte, len(spins))
	for i, v := range spins {
		x[i] = '0'
		if v > 0 {
			x[i] = '1'
		}
	}
	return string(x)
}

func sameBits(bits string, spins []int8) bool {
	if len(bits) != len(spins) {
		return false
	}
	for i, v := range spins {
		if (bits[i] == '1') != (v > 0) {
			return false
		}
	}
	return true
}

// LowestSummary is a sampler's lowest energy over all its trials: the
// trial that first reached it (the lowest trial number among those that
// did) and the step, and how many trials reached it.
type LowestSummary struct {
	Energy  float64 `json:"energy"`
	Trial   int     `json:"trial"`
	Step    int     `json:"step"`
	Reached int     `json:"trials_reaching_it"`
	Trials  int     `json:"trials"`
	// Best is the --save-best states of every trial merged: the K lowest
	// distinct states (SAMPLER/best.txt); nil without --save-best.
	Best *BestSet `json:"-"`
}

// summarizeLowest pools the trials' lowest energies and best states (nil
// when no trial recorded one: folders of versions before them).
func summarizeLowest(recs []*TrialRecord) *LowestSummary {
	var s *LowestSummary
	for _, r := range recs {
		l := r.Lowest
		if l == nil || l.Step == 0 {
			continue
		}
		switch {
		case s == nil || l.Energy < s.Energy:
			s = &LowestSummary{Energy: l.Energy, Trial: r.Trial, Step: l.Step, Reached: 1}
		case l.Energy == s.Energy:
			s.Reached++
			if r.Trial < s.Trial {
				s.Trial, s.Step = r.Trial, l.Step
			}
		}
	}
	if s == nil {
		return nil
	}
	s.Trials = len(recs)
	for _, r := range recs {
		if r.Best == nil {
			continue
		}
		if s.Best == nil {
			s.Best = &BestSet{K: r.Best.K}
		}
		s.Best.Merge(r.Best)
	}
	return s
}

// writeBest writes each sampler's merged --save-best states to
// SAMPLER/best.txt: a comment line naming the columns, then one row per
// state, lowest energy first: its energy (exactly: shortest round-trip
// form), the trial and step that first saw it, and its N variables as 0
// or 1 (numpy.loadtxt reads it in one line).
func writeBest(dir string, results []*Result) error {
	for _, res := range results {
		if res.Lowest == nil || res.Lowest.Best == nil {
			continue
		}
		var b bytes.Buffer
		states := res.Lowest.Best.States
		n := 0
		if len(states) > 0 {
			n = len(states[0].Bits)
		}
		fmt.Fprintf(&b, "# %s: the %d lowest distinct states seen (--save-best %d), lowest first; columns: energy trial step x_0 .. x_%d\n",
			res.Sampler, len(states), res.Lowest.Best.K, n-1)
		for _, s := range states {
			b.WriteString(strconv.FormatFloat(s.Energy, 'g', -1, 64))
			fmt.Fprintf(&b, " %d %d", s.Trial, s.Step)
			for i := range len(s.Bits) {
				b.WriteByte(' ')
				b.WriteByte(s.Bits[i])
			}
			b.WriteByte('\n')
		}
		if err := atomicfile.WriteFileMkdir(filepath.Join(dir, res.Sampler, "best.txt"), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// Levels is how the kept draws' energies after the burn-in spread over
// distinct values: on a small or cold model a few states carry most of
// the probability, and the draws take a few values, each many times (the
// ranks of ESS and R-hat then tie within a value: diag averages them, as
// Stan's rank normalization does).
type Levels struct {
	// Distinct is the number of distinct energies, counted up to
	// maxLevels (More: there are more).
	Distinct int  `json:"distinct"`
	More     bool `json:"more,omitempty"`
	// Top is the most frequent energy and TopShare the fraction of the
	// draws that take it (absent when More).
	Top      *float64 `json:"top,omitempty"`
	TopShare *float64 `json:"top_share,omitempty"`
}

// maxLevels bounds the distinct energies Levels counts.
const maxLevels = 1024

// fewLevels and concentrated are where a run's draws are said to
// concentrate on a few values.
const (
	fewLevels    = 64
	concentrated = 0.5
)

func levelsOf(kept [][]float64) *Levels {
	count := map[float64]int{}
	n := 0
	for _, x := range kept {
		for _, e := range x {
			n++
			if _, ok := count[e]; ok || len(count) < maxLevels {
				count[e]++
				continue
			}
			return &Levels{Distinct: maxLevels, More: true}
		}
	}
	if n == 0 {
		return nil
	}
	l := &Levels{Distinct: len(count)}
	top, c := 0.0, -1
	for e, k := range count {
		if k > c || k == c && e < top {
			top, c = e, k
		}
	}
	share := float64(c) / float64(n)
	l.Top, l.TopShare = &top, &share
	return l
}

// Concentrated says, when the draws take few values or one value most of
// the time, so in words; else "".
func (l *Levels) Concentrated() string {
	if l == nil || l.More || l.Distinct > fewLevels && *l.TopShare < concentrated {
		return ""
	}
	return fmt.Sprintf("the kept draws take %d distinct energies, %s in %.0f%% of them: draws of one energy tie in the ranks of ESS and R-hat (average ranks, as Stan's); the tail ESS is that of the 5%% and 95%% quantiles' levels",
		l.Distinct, strconv.FormatFloat(*l.Top, 'g', 6, 64), 100**l.TopShare)
}
