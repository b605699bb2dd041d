package parallelsaw

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"sardonics/dense"
	pace "sardonics/internal/handoff"
)

// Lockstep walks (issue 33, item 2). A walk of k flips is one command:
// every executor (the coordinator, for section 0 and the sections it
// runs, and each worker that claimed its own) runs the walk's steps on
// its sections in lockstep. At step j a section flips the bit picked at
// step j - 1, draws its candidate with step j's two random words and
// publishes its sums and candidate on its line for step j; then every
// executor reads every section's line and makes the same pick (the
// section with probability Z_p / Z from step j's pick word, then its
// candidate, drawn with probability w_l / Z_p), so a flip costs one
// exchange of cache lines between the threads instead of a round trip
// through the coordinator, and the coordinator's bookkeeping (the log
// probabilities, the record, the spins) is done once the walk is over,
// from the picks it kept.
//
// The random words are drawn by the coordinator before the command, in the
// order step-by-step flips draw them (two candidate words, then the pick's),
// so a walk is the same, bit for bit, as one made a step at a time until a
// word is rejected (the pick's, or both of a candidate's: probability
// about 2^-22 and 2^-45): every executor then sees the same stop, and the
// coordinator makes that pick itself from the walk's stream, as a step at
// a time does, and continues the walk from the next step in a new command.
//
// stepWalks, set only by tests and benchmarks, makes the engines built
// after it walk a step at a time (each flip a round trip through the
// coordinator), as before lockstep walks: the stress tests of the
// step-at-a-time protocol (still that of Replay, Flip and the others)
// and BenchmarkLockstep use it.
var stepWalks = false

// line is section p's line for step j.
func (sh *shared) line(p, j int) *stepLine {
	if injecting && sh.brokenLines {
		j = 0
	}
	return &sh.secs[p].lines[j&1]
}

// stride is the random words of a step.
func (sh *shared) stride() int {
	if len(sh.secs) > 1 {
		return 3
	}
	return 2
}

// walkSteps runs the current opWalk command's steps on the sections own
// (in lockstep with the other executors); resolve (the coordinator's
// only) may add sections to own after the first step, which it runs
// first. waitNs counts the executor's time waiting for other sections'
// lines.
func (sh *shared) walkSteps(own []int, resolve func([]int) []int, waitNs *atomic.Int64) {
	c := &sh.cmd
	st := sh.stride()
	s := sh.cmdSeq.Load()
	l, d := int(c.first), c.firstD
	for j := int(c.j0); ; j++ {
		last := j == int(c.wk)
		for _, p := range own {
			sh.sectionStep(p, j, l, d, last, resolve != nil)
		}
		if resolve != nil && j == int(c.j0) {
			n := len(own)
			own = resolve(own)
			for _, p := range own[n:] {
				sh.sectionStep(p, j, l, d, last, true)
			}
		}
		if last && resolve == nil && !sh.secs[own[0]].compact() {
			return // nothing to catch up: the command's end is the walk's
		}
		sh.awaitLines(j, s, waitNs)
		sh.at(hookStepSeen, own[0], c.base+uint64(j))
		if resolve != nil && sh.prof != nil {
			sh.prof.imbalance(sh, j)
		}
		if resolve != nil && (j > int(c.j0) || c.first >= 0) {
			_, c.picks[j-1].zf = sh.lineSums(j)
		}
		if last {
			sh.catchUpPhase(own, resolve != nil)
			return
		}
		z, _ := sh.lineSums(j)
		if resolve != nil {
			c.picks[j].z = z
		}
		p, ok := 0, true
		if len(sh.secs) > 1 {
			var u uint64
			if u, ok = bounded(c.words[st*j+2], z[c.b]); ok {
				p = sh.sectionAt(j, int(c.b), u)
			}
		}
		var o *stepOut
		if ok {
			o = &sh.line(p, j).stepOut
			ok = o.cand >= 0
		}
		if !ok { // a rejected word: the coordinator picks (see above)
			if resolve != nil {
				c.stop = int32(j)
			}
			return
		}
		l, d = int(o.cand), o.candD
		if resolve != nil {
			c.picks[j].l, c.picks[j].F, c.picks[j].d = o.cand, o.candF, o.candD
		}
	}
}

// sectionStep is section p's step j: the flip of bit l to d (l >= 0),
// the release at the walk's last step, the candidate at the others; then
// it publishes its line. When profiling, its time is the section's (and
// the coordinator's, coord).
func (sh *shared) sectionStep(p, j, l int, d int32, last, coord bool) {
	c := &sh.cmd
	var t0 int64
	if sh.prof != nil {
		t0 = pace.Now()
	}
	sc := sh.secs[p]
	if j == 0 {
		sc.wpath = sc.wpath[:0]
	}
	if l >= 0 {
		sc.wpath = append(sc.wpath, int32(l))
	}
	var r [2]uint64
	var release []int32
	if last {
		release = sc.wpath
	} else {
		st := sh.stride()
		r = [2]uint64{c.words[st*j], c.words[st*j+1]}
	}
	ln := sh.line(p, j)
	sc.stepOnce(sh, l, d, release, true, !last, c.b, r, &ln.stepOut)
	if sh.prof != nil {
		dt := pace.Now() - t0
		ln.ns = dt
		sc.execNs.Add(dt)
		if coord {
			sh.prof.CoordNs += dt
		}
	}
	ln.seq.Store(c.base + uint64(j))
	sh.at(hookStepPublished, p, c.base+uint64(j))
}

// catchUpJob is a lazy field to catch up at a lockstep walk's end:
// section q's entry x of its lazy list, cost the length of its catch-up,
// and the section whose executor does it (catchUpPhase).
type catchUpJob struct{ q, x, cost, to int32 }

// catchUpPhase is a lockstep walk's end, after its last step: the lazy
// fields of every section (the float64 fields of the walk's visible
// flips, for its energy; see section.walkf), shared out between the
// sections so that each does about the same work. Left to their owners,
// the few of a walk (about half its flips) fell unevenly: on rbm-random
// 4096 x 4096 at P = 2 the slower section's last step took 5.5 us more
// than the faster's, a walk's largest wait. Every executor makes the same
// deal from the lists, which are complete once it has read the last
// step's lines (the longest catch-up first, to the section with the least
// work so far: Graham's LPT rule), and does its sections' share. A
// catch-up reads the log of the section that does it (in its cache; every
// section logs the same hidden flips) and writes the owner's field: the
// same additions in the same order, so the same bits. The command's end
// (the coordinator's run waits for every section) is the phase's barrier;
// the coordinator then empties the lists (endCatchUps).
func (sh *shared) catchUpPhase(own []int, coord bool) {
	sc0 := sh.secs[own[0]]
	jobs := sc0.jobs[:0]
	for q, sc := range sh.secs {
		for x := 0; x < len(sc.lazy); x += lazyLen {
			jobs = append(jobs, catchUpJob{q: int32(q), x: int32(x), cost: sc.lazy[x+3]})
		}
	}
	sc0.jobs = jobs
	if len(jobs) == 0 {
		return
	}
	if len(sc0.loads) != len(sh.secs) {
		sc0.loads = make([]int64, len(sh.secs))
	}
	tie := 0
	if injecting && sh.brokenCatchUp {
		tie = own[0]
	}
	deal(jobs, sc0.loads, tie)
	sh.at(hookCatchUp, own[0], 0)
	for _, p := range own {
		var t0 int64
		if sh.prof != nil {
			t0 = pace.Now()
		}
		for _, jb := range jobs {
			if int(jb.to) == p {
				sh.secs[jb.q].catchUp(sh, int(jb.x), sh.secs[p].hflips)
			}
		}
		if sh.prof != nil {
			dt := pace.Now() - t0
			sh.secs[p].catchNs = dt
			sh.secs[p].execNs.Add(dt)
			if coord {
				sh.prof.CoordNs += dt
			}
		}
	}
}

// endCatchUps is the coordinator's part of catchUpPhase once every
// section has ended the walk's command: it empties the lazy lists (and,
// when profiling, counts the phase's imbalance).
func (sh *shared) endCatchUps() {
	if sh.prof != nil && len(sh.secs) > 1 && len(sh.secs[0].jobs) > 0 {
		lo, hi := int64(math.MaxInt64), int64(0)
		for _, sc := range sh.secs {
			lo, hi = min(lo, sc.catchNs), max(hi, sc.catchNs)
		}
		sh.prof.LastSteps++
		sh.prof.LastImbalance += hi - lo
	}
	for _, sc := range sh.secs {
		sc.lazy, sc.catchNs = sc.lazy[:0], 0
	}
}

// deal gives each job one of len(load) sections (to) by Graham's LPT
// rule: the longest job first (ties in list order), to the section with
// the least work (ties to the lowest; tie, not 0 only in the broken
// variant, to that section). It depends only on the jobs, so every
// executor makes the same deal.
func deal(jobs []catchUpJob, load []int64, tie int) {
	slices.SortStableFunc(jobs, func(a, b catchUpJob) int { return cmp.Compare(b.cost, a.cost) })
	clear(load)
	for i := range jobs {
		to := tie // 0, but in the broken variant
		for p := range load {
			if load[p] < load[to] {
				to = p
			}
		}
		jobs[i].to = int32(to)
		load[to] += int64(jobs[i].cost) + 1 // + 1: a job costs something even with nothing logged
	}
}

// lineSums is the sums of every section's line of step j: at its end
// (z) and right after its flip (zf).
func (sh *shared) lineSums(j int) (z, zf [2]uint64) {
	for p := range sh.secs {
		o := &sh.line(p, j).stepOut
		z[0], z[1] = z[0]+o.z[0], z[1]+o.z[1]
		zf[0], zf[1] = zf[0]+o.zf[0], zf[1]+o.zf[1]
	}
	return z, zf
}

// sectionAt is the section whose share of step j's sum at bias b holds
// u (u below that sum): section p with probability Z_p / Z.
func (sh *shared) sectionAt(j, b int, u uint64) int {
	return sectionOf(len(sh.secs), func(p int) uint64 { return sh.line(p, j).z[b] }, u)
}

// sectionOf is the first of n sections whose cumulative sum (z(0) + ...
// + z(p)) exceeds u.
func sectionOf(n int, z func(int) uint64, u uint64) int {
	p := 0
	for cum := uint64(0); p < n; p++ {
		if cum += z(p); u < cum {
			break
		}
	}
	return p
}

// awaitLines waits until every section has published step j of command
// s (the command's sequence number when the executor started it).
func (sh *shared) awaitLines(j int, s uint64, waitNs *atomic.Int64) {
	want := sh.cmd.base + uint64(j)
	for p := range sh.secs {
		ln := sh.line(p, j)
		if ln.seq.Load() >= want {
			continue
		}
		var sp pace.Spell
		sp.Start(true)
		told := false
		for n := 1; ln.seq.Load() < want; n++ {
			// Its CPU, not its wall time, is counted (a thread the OS
			// took off its CPU meanwhile did not spend it), and a lost
			// CPU sends the policy back to one thread.
			if _, lost := sp.Poll(math.MaxInt64); lost && !told && sh.pol != nil {
				sh.pol.Lost()
				told = true
			}
			if n&(1<<16-1) == 0 {
				// About 100 us: an executor without a CPU (GOMAXPROCS,
				// the OS) may need ours. (Not sooner: a thread locked to
				// its goroutine pays a wake-up for a yield.)
				runtime.Gosched()
				if sh.cmdSeq.Load() != s {
					return // Close after the coordinator failed mid-walk
				}
			}
		}
		ns, _ := sp.End()
		waitNs.Add(ns)
	}
}

// walk draws a SAW of k >= 1 flips at bias b as lockstep commands (see
// above) and returns the picks (valid until the next walk).
func (e *Engine) walk(r *rand.PCG, k, b int) []walkPick {
	sh := e.sh
	c := &sh.cmd
	st := sh.stride()
	words := c.words[:0]
	for range k * st {
		words = append(words, r.Uint64())
	}
	if cap(c.picks) < k {
		c.picks = make([]walkPick, k)
	}
	c.op, c.b, c.words, c.picks = opWalk, int32(b), words, c.picks[:k]
	c.j0, c.wk, c.first, c.firstD, c.base = 0, int32(k), -1, 0, sh.base
	sh.base += uint64(k) + 1
	for {
		c.stop = -1
		sh.together = sh.lockstep
		sh.run()
		sh.together = nil
		if c.stop < 0 {
			sh.endCatchUps()
			return c.picks
		}
		// The sections stopped at step j, every one's line published:
		// the pick from the walk's stream, as a step at a time makes it.
		j := int(c.stop)
		pk := &c.picks[j]
		p := 0
		if len(sh.secs) > 1 {
			u, ok := bounded(words[st*j+2], pk.z[b])
			if !ok {
				u = dense.Uniform(r, pk.z[b])
			}
			p = sh.sectionAt(j, b, u)
		}
		sc, o := sh.secs[p], &sh.line(p, j).stepOut
		pk.l, pk.F, pk.d = o.cand, o.candF, o.candD
		if o.cand == -2 {
			x := sc.t.Draw(b, dense.Uniform(r, o.z[b]))
			pk.l, pk.F, pk.d = int32(sc.global(sh, x)), sc.F[x], -int32(sc.sl[x])
		}
		c.j0, c.first, c.firstD = int32(j+1), pk.l, pk.d
	}
}

// lockstep is the coordinator's part of a lockstep walk: the sections
// own, and resolve (see hub.together).
func (sh *shared) lockstep(own []int, resolve func([]int) []int) {
	sh.walkSteps(own, resolve, &sh.waitNs)
}
