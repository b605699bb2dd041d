package parallelsaw

import (
	"fmt"
	"math"
	"strings"

	pace "sardonics/internal/handoff"
)

// Profile is where an engine's wall time goes, per command, once
// EnableProfile was called (issue 33, item 1): the coordinator's time
// between commands (the walk's serial share: draws, bookkeeping, the
// sampler's own work between walks), each section's time in its kernel
// (whoever ran it), the sections the coordinator ran itself, and its time
// inside a command not running a section (waiting for the workers: the
// hand-offs and the imbalance between sections). Times are wall ns from
// the monotonic clock; profiling adds two clock reads per command and
// two per section run.
type Profile struct {
	Commands  uint64
	SerialNs  int64   // coordinator, between the end of one command and the start of the next
	CommandNs int64   // coordinator, from the start to the end of its commands
	ExecNs    []int64 // per section: running its commands, by anyone
	CoordNs   int64   // coordinator: running sections (its own and stolen ones)
	// Steps of lockstep walks, and over them the slowest section's kernel
	// time less the fastest's: the part of the waiting that no hand-off,
	// however fast, removes while every step waits for every section.
	// The walks' catch-up phases (the fields of their visible flips, for
	// their energies: catchUpPhase) are counted apart.
	Steps, LastSteps           uint64
	ImbalanceNs, LastImbalance int64
}

// WaitNs is the coordinator's time inside commands not running a
// section.
func (p Profile) WaitNs() int64 { return p.CommandNs - p.CoordNs }

// WallNs is the coordinator's wall time over the profile.
func (p Profile) WallNs() int64 { return p.SerialNs + p.CommandNs }

// WorkNs is the sections' kernel time, summed.
func (p Profile) WorkNs() int64 {
	var t int64
	for _, x := range p.ExecNs {
		t += x
	}
	return t
}

// SerialFraction is the share of one thread's work that the sections do
// not split: serial / (serial + the sections' work), Amdahl's s (-1 when
// nothing was measured).
func (p Profile) SerialFraction() float64 {
	d := p.SerialNs + p.WorkNs()
	if d == 0 {
		return -1
	}
	return float64(p.SerialNs) / float64(d)
}

// Projected is the speedup over one thread that this profile predicts at
// P sections: (serial + work) / (serial + work/P + handoffNs per
// command), where handoffNs is the cost of a command's hand-off (two
// trips of a cache line: the calibrated spin price, twice).
func (p Profile) Projected(P int, handoffNs int64) float64 {
	one := float64(p.SerialNs + p.WorkNs())
	many := float64(p.SerialNs) + float64(p.WorkNs())/float64(P) + float64(handoffNs)*float64(p.Commands)
	if many <= 0 {
		return -1
	}
	return one / many
}

// String is the profile per unit (n units, such as flips), in us.
func (p Profile) String(n float64, unit string) string {
	if n <= 0 {
		return "no " + unit
	}
	us := func(ns int64) float64 { return float64(ns) / n / 1e3 }
	var b strings.Builder
	fmt.Fprintf(&b, "per %s: wall %.2f us = serial %.2f + in commands %.2f (running sections %.2f, waiting %.2f); sections' kernels",
		unit, us(p.WallNs()), us(p.SerialNs), us(p.CommandNs), us(p.CoordNs), us(p.WaitNs()))
	for _, x := range p.ExecNs {
		fmt.Fprintf(&b, " %.2f", us(x))
	}
	fmt.Fprintf(&b, "; %.2f commands per %s", float64(p.Commands)/n, unit)
	if p.Steps > 0 {
		fmt.Fprintf(&b, "; lockstep steps %.2f per %s, the slowest section's kernel less the fastest's %.2f us a step",
			float64(p.Steps)/n, unit, float64(p.ImbalanceNs)/float64(p.Steps)/1e3)
		if p.LastSteps > 0 {
			fmt.Fprintf(&b, ", %.2f in a walk's catch-ups", float64(p.LastImbalance)/float64(p.LastSteps)/1e3)
		} else {
			b.WriteString(", no catch-ups (full sections)")
		}
	}
	return b.String()
}

// profiler is the hub's profile state (nil: off).
type profiler struct {
	Profile
	last int64 // end of the last command (0: none yet)
	t0   int64 // start of the current command
}

// imbalance adds step j of a lockstep walk (every section's line read)
// to the profile.
func (pr *profiler) imbalance(sh *shared, j int) {
	lo, hi := int64(math.MaxInt64), int64(0)
	for p := range sh.secs {
		d := sh.line(p, j).ns
		lo, hi = min(lo, d), max(hi, d)
	}
	pr.Steps++
	pr.ImbalanceNs += hi - lo
}

// enableProfile starts (or restarts) the profile.
func (sh *hub) enableProfile() {
	sh.prof = &profiler{Profile: Profile{ExecNs: make([]int64, len(sh.slots))}}
	for _, sc := range sh.slots {
		sc.execNs.Store(0)
	}
}

// profile is the profile so far (zero if not enabled).
func (sh *hub) profile() Profile {
	if sh.prof == nil {
		return Profile{}
	}
	p := sh.prof.Profile
	p.ExecNs = make([]int64, len(sh.slots))
	for i, sc := range sh.slots {
		p.ExecNs[i] = sc.execNs.Load()
	}
	return p
}

// profStart and profEnd bracket a command on the coordinator.
func (sh *hub) profStart() {
	pr := sh.prof
	pr.t0 = pace.Now()
	if pr.last != 0 {
		pr.SerialNs += pr.t0 - pr.last
	}
}

func (sh *hub) profEnd() {
	pr := sh.prof
	pr.last = pace.Now()
	pr.CommandNs += pr.last - pr.t0
	pr.Commands++
}

// exec runs section p's current command (do), timed when profiling
// (coord: on the coordinator's thread).
func (sh *hub) exec(sc *slot, coord bool) {
	if sh.prof == nil || sh.inTogether {
		sc.do()
		return
	}
	t := pace.Now()
	sc.do()
	d := pace.Now() - t
	sc.execNs.Add(d)
	if coord {
		sh.prof.CoordNs += d
	}
}

// EnableProfile starts (or restarts) the engine's Profile. Call it
// between commands, on the coordinator.
func (e *Engine) EnableProfile() { e.sh.enableProfile() }

// Profile is the engine's profile since EnableProfile.
func (e *Engine) Profile() Profile { return e.sh.profile() }

// EnableProfile starts (or restarts) the engine's Profile.
func (e *DenseEngine) EnableProfile() { e.sh.enableProfile() }

// Profile is the engine's profile since EnableProfile.
func (e *DenseEngine) Profile() Profile { return e.sh.profile() }
