// Every rung of a replica-exchange trial: its record (RungTrace), rungs.csv.

package summary

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sardonics/atomicfile"
	"sardonics/draws"
)

// RungTrace is what a replica-exchange trial records of every rung of its
// ladder, hottest first, at the end of each swap round after its burn-in:
// the energy of set 0's member there and, with two sets, the overlap q of
// the two sets' members there. Like the target's kept draws (Trace), it
// keeps at most Thinning.Cap rounds, evenly thinned over the rounds
// (package draws), and the exact moments over every round. A round ends
// every swap_every steps on the step clock, after as many steps as its
// work took on the work clock (package replica).
type RungTrace struct {
	Rungs int `json:"rungs"`
	// Rounds is the swap rounds that ended after the burn-in.
	Rounds int `json:"rounds"`
	// Thinning says which of them were kept: the rounds Thinning.Step(j),
	// counted from the burn-in (round 1 is the first to end after it).
	Thinning draws.Thinning `json:"thinning"`
	// Energy is each rung's moments of the energy over every round.
	Energy []draws.Moments `json:"energy"`
	// Overlap2 is each rung's moments of q^2 over every round (two sets;
	// nil otherwise): <q^2>, and <q^4> from their variance.
	Overlap2 []draws.Moments `json:"overlap2,omitempty"`
	Steps    []int           `json:"-"` // the trial's step at which kept round j ended
	E        [][]float64     `json:"-"` // E[k][j]: rung k's energy at kept round j
	Q        [][]float64     `json:"-"` // Q[k][j]: rung k's overlap at kept round j (two sets)
}

// NewRungTrace is the empty record of a ladder of rungs rungs and sets
// sets (1 or 2), keeping at most capacity rounds.
func NewRungTrace(rungs, sets, capacity int) *RungTrace {
	rt := &RungTrace{Rungs: rungs, Thinning: draws.New(0, capacity), Energy: make([]draws.Moments, rungs), E: make([][]float64, rungs)}
	if sets == 2 {
		rt.Overlap2, rt.Q = make([]draws.Moments, rungs), make([][]float64, rungs)
	}
	return rt
}

// Add records the round that ended after step: each rung's energy e and,
// with two sets, overlap q (hottest first).
func (rt *RungTrace) Add(step int, e, q []float64) {
	rt.Rounds++
	for k, v := range e {
		rt.Energy[k].Add(v)
	}
	for k, v := range q {
		rt.Overlap2[k].Add(v * v)
	}
	keep, halve := rt.Thinning.Next(rt.Rounds)
	if halve {
		rt.Steps = draws.Halve(rt.Steps)
		for k := range rt.E {
			rt.E[k] = draws.Halve(rt.E[k])
		}
		for k := range rt.Q {
			rt.Q[k] = draws.Halve(rt.Q[k])
		}
	}
	if keep {
		rt.Steps = append(rt.Steps, step)
		for k, v := range e {
			rt.E[k] = append(rt.E[k], v)
		}
		for k, v := range q {
			rt.Q[k] = append(rt.Q[k], v)
		}
	}
}

// Valid checks a record read from a folder or checkpoint, its kept
// draws included when withDraws is true.
func (rt *RungTrace) Valid(withDraws bool) error {
	th := rt.Thinning
	if err := th.Valid(); err != nil {
		return fmt.Errorf("rungs.thinning: %v", err)
	}
	switch {
	case rt.Rungs < 2 || len(rt.Energy) != rt.Rungs || rt.Overlap2 != nil && len(rt.Overlap2) != rt.Rungs:
		return fmt.Errorf("rungs: %d rungs with moments of %d energies and %d overlaps", rt.Rungs, len(rt.Energy), len(rt.Overlap2))
	case th.Origin != 0 || rt.Rounds < 0 || th.Kept != rt.Rounds/th.Every:
		return fmt.Errorf("rungs: %d rounds do not fit the thinning %+v (origin 0, kept = rounds / every)", rt.Rounds, th)
	}
	for k := range rt.Energy {
		if rt.Energy[k].N != int64(rt.Rounds) || rt.Overlap2 != nil && rt.Overlap2[k].N != int64(rt.Rounds) {
			return fmt.Errorf("rungs: rung %d's moments are of %d rounds, not %d", k, rt.Energy[k].N, rt.Rounds)
		}
	}
	if !withDraws {
		return nil
	}
	if len(rt.Steps) != th.Kept || len(rt.E) != rt.Rungs || (rt.Q != nil) != (rt.Overlap2 != nil) || rt.Q != nil && len(rt.Q) != rt.Rungs {
		return fmt.Errorf("rungs: %d kept steps, %d energy and %d overlap series for %d kept rounds of %d rungs", len(rt.Steps), len(rt.E), len(rt.Q), th.Kept, rt.Rungs)
	}
	for k := range rt.E {
		if len(rt.E[k]) != th.Kept || rt.Q != nil && len(rt.Q[k]) != th.Kept {
			return fmt.Errorf("rungs: rung %d has %d kept rounds, not %d", k, len(rt.E[k]), th.Kept)
		}
	}
	return nil
}

// RungsFile is the trial file of a RungTrace's kept rounds.
const RungsFile = "rungs.csv"

// rungsHeader is rungs.csv's header: round,step,E_0,...,E_{R-1} and with
// two sets q_0,...,q_{R-1}.
func (rt *RungTrace) rungsHeader() string {
	h := []string{"round", "step"}
	for k := range rt.Rungs {
		h = append(h, "E_"+strconv.Itoa(k))
	}
	if rt.Overlap2 != nil {
		for k := range rt.Rungs {
			h = append(h, "q_"+strconv.Itoa(k))
		}
	}
	return strings.Join(h, ",")
}

// writeRungs writes rungs.csv: a row per kept round, its number
// (counted from the burn-in), the step it ended at and each rung's energy
// (and overlap), in Go's shortest round-trip form.
func writeRungs(td string, rt *RungTrace) error {
	return atomicfile.WriteStreamMkdir(filepath.Join(td, RungsFile), func(w *bufio.Writer) error {
		b := append(make([]byte, 0, 64*rt.Rungs), rt.rungsHeader()...)
		b = append(b, '\n')
		for j, s := range rt.Steps {
			b = strconv.AppendInt(b, int64(rt.Thinning.Step(j)), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(s), 10)
			for _, x := range rt.E {
				b = strconv.AppendFloat(append(b, ','), x[j], 'g', -1, 64)
			}
			for _, x := range rt.Q {
				b = strconv.AppendFloat(append(b, ','), x[j], 'g', -1, 64)
			}
			b = append(b, '\n')
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		return nil
	})
}

// readRungs reads rungs.csv into r.Rungs (read from stats.json), checking
// that row j is kept round j of its thinning, that the steps rise within
// the trial's steps after its burn-in, and that there are as many rows as
// the thinning kept.
func readRungs(td string, r *TrialRecord) error {
	rt := r.Rungs
	path := filepath.Join(td, RungsFile)
	if err := rt.Valid(false); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(td, "stats.json"), err)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	header := rt.rungsHeader()
	if !sc.Scan() || sc.Text() != header {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		return fmt.Errorf("%s:1: missing header (expected %s, as stats.json's rungs say)", path, header)
	}
	rt.Steps, rt.E = nil, make([][]float64, rt.Rungs)
	if rt.Overlap2 != nil {
		rt.Q = make([][]float64, rt.Rungs)
	}
	cols := 2 + rt.Rungs + len(rt.Q)
	burn := 0
	if r.Trace != nil {
		burn = r.Trace.Kept.Origin
	}
	for j := 0; sc.Scan(); j++ {
		l := sc.Text()
		line := j + 2
		f := strings.Split(l, ",")
		if len(f) != cols {
			return fmt.Errorf("%s:%d: %d values (expected %d: %s)", path, line, len(f), cols, header)
		}
		round, err1 := strconv.Atoi(f[0])
		step, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s:%d: bad row %q (expected %s)", path, line, l, header)
		}
		if j >= rt.Thinning.Kept {
			return fmt.Errorf("%s:%d: more rows than the %d kept rounds stats.json's rungs.thinning gives", path, line, rt.Thinning.Kept)
		}
		if want := rt.Thinning.Step(j); round != want {
			return fmt.Errorf("%s:%d: row of round %d, expected round %d (the kept rounds stats.json's rungs.thinning gives)", path, line, round, want)
		}
		prev := burn
		if j > 0 {
			prev = rt.Steps[j-1]
		}
		if step <= prev || r.Steps > 0 && step > r.Steps || step-burn < round {
			return fmt.Errorf("%s:%d: round %d ended at step %d, expected a step after %d (the previous row's, or the burn-in), at most the trial's %d steps, and at least the round's number after the burn-in", path, line, round, step, prev, r.Steps)
		}
		rt.Steps = append(rt.Steps, step)
		for c, s := range f[2:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("%s:%d: bad value %q in column %d (expected %s)", path, line, s, c+3, header)
			}
			if c < rt.Rungs {
				rt.E[c] = append(rt.E[c], x)
			} else {
				rt.Q[c-rt.Rungs] = append(rt.Q[c-rt.Rungs], x)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(rt.Steps) != rt.Thinning.Kept {
		return fmt.Errorf("%s: %d rows, but stats.json's rungs.thinning says %d kept rounds", path, len(rt.Steps), rt.Thinning.Kept)
	}
	return nil
}
