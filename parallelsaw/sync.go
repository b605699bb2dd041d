package parallelsaw

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"sardonics/topology"
)

// Synchronization. The coordinator publishes a command by storing its
// sequence number s in cmd.seq; each section's command is then taken once,
// by its worker or by the coordinator, through a compare-and-swap of the
// section's claim to s. The section's work is the same whoever does it, so
// the results are too, bit for bit.
//
// A worker that is running spins on cmd.seq and claims its command within
// a fraction of a microsecond; the coordinator, after running section 0,
// waits for it (spinning for spinFor, then parked until the worker ends).
// A worker that is not running (parked, or descheduled because the OS gave
// its CPU to another thread) is not waited for: once the worker has had
// graceSpins polls to claim, or at once when it is parked or the
// coordinator ran its previous command and it has not been seen since,
// the coordinator runs the section itself. (A worker that finds its
// command taken says so in seen, and gets its grace again.) So a
// machine with fewer free CPUs than sections costs the parallel speedup,
// never a stall per flip, and the coordinator never waits for a thread that
// has no CPU except while that thread is in the middle of its section.
//
// Workers spin for spinFor waiting for the next command, then park on a
// channel (releasing their CPU and the Go scheduler's P); one that found
// its command taken twice in a row parks at once. The coordinator wakes a
// parked worker when it publishes a command, unless the worker's last
// waking spell was wasted (it ran none of its commands, or the coordinator
// ran most of them from the first one it ran): then
// it is left parked for a number of commands that doubles with each wasted
// spell (4 << pen, up to 4 << maxPen) and resets with a useful one. Every
// sleeper flag is checked by the waker before it pays for a wake-up.
// Workers beyond the threads that can run at once (GOMAXPROCS or the CPUs,
// when P exceeds them) are passive: parked from the start, never woken but
// to quit, their sections always run by the coordinator.

// maxMisses is the number of commands in a row a worker may find taken
// before it parks without spinning.
const maxMisses = 2

// maxPen bounds the wake-up back-off exponent.
const maxPen = 12

// control is the coordinator's record of worker p (the worker never
// touches it).
type control struct {
	passive bool   // never woken: the coordinator runs all its commands
	stole   bool   // the coordinator ran the worker's last command: no grace
	ran     uint64 // sequence number of the command the coordinator last ran for it
	awake   bool   // woken (or started) and not seen parked since
	first   uint64 // the first command it ran itself since then (0: none)
	taken   uint64 // commands the coordinator ran for it since then
	pen     uint8  // wake-up back-off exponent
	next    uint64 // a parked worker is left parked before this sequence number
}

// run publishes the command, runs section 0 and the sections of workers
// that are not running, and waits for the others.
func (sh *shared) run() {
	if sh.closed {
		panic("parallelsaw: engine used after Close")
	}
	sh.seq++
	s := sh.seq
	sh.cmd.seq.Store(s)
	secs := sh.secs
	for p := 1; p < len(secs); p++ {
		if secs[p].out.sleeping.Load() != 0 {
			sh.wake(p, s)
		}
	}
	secs[0].exec(sh)
	for p := 1; p < len(secs); p++ {
		if ct := &sh.ctl[p]; ct.passive || secs[p].out.sleeping.Load() != 0 || ct.stole && secs[p].out.seen.Load() != s-1 {
			sh.steal(p, s)
		}
	}
	var w backoff
	for p := 1; p < len(secs); p++ {
		sc, ct := secs[p], &sh.ctl[p]
		if ct.ran == s {
			continue
		}
		claimed := false
		for sc.out.done.Load() != s {
			if !claimed {
				w.n++
				if w.n < graceSpins || w.n&63 != 0 {
					continue
				}
				if sh.steal(p, s) {
					break
				}
				claimed = true // by the worker, which is running its section
			}
			if !w.spent() {
				continue
			}
			// Park; any worker that finishes wakes us, and we recheck.
			sh.parked.flag.Store(1)
			if sc.out.done.Load() == s && sh.parked.flag.CompareAndSwap(1, 0) {
				break
			}
			<-sh.parked.wake // a worker cleared the flag and sends once
			w = backoff{n: graceSpins}
		}
		if ct.ran != s {
			ct.stole = false
			if ct.first == 0 {
				ct.first, ct.taken = s, 0
			}
		}
	}
}

// steal runs worker p's command s on the calling (coordinator's) thread
// unless the worker has claimed it; it reports whether it did.
func (sh *shared) steal(p int, s uint64) bool {
	sc := sh.secs[p]
	c := sc.claim.seq.Load()
	if c == s || !sc.claim.seq.CompareAndSwap(c, s) {
		return false
	}
	sc.exec(sh)
	ct := &sh.ctl[p]
	ct.stole, ct.ran = true, s
	ct.taken++
	sh.steals++
	return true
}

// wake wakes parked worker p for command s unless its last waking spell
// was wasted and its back-off has not run out (see above).
func (sh *shared) wake(p int, s uint64) {
	ct := &sh.ctl[p]
	if ct.passive {
		return
	}
	if ct.awake { // parked since it was woken: judge that spell
		ct.awake = false
		if ct.first != 0 && ct.taken*2 <= s-ct.first {
			ct.pen, ct.next = 0, 0
		} else {
			ct.pen = min(ct.pen+1, maxPen)
			ct.next = s + 4<<ct.pen
		}
	}
	if s < ct.next {
		return
	}
	sc := sh.secs[p]
	if sc.out.sleeping.CompareAndSwap(1, 0) {
		sc.wake <- struct{}{}
		sh.wakes++
		ct.awake, ct.first = true, 0
	}
}

// quit stops the workers (idempotent).
func (sh *shared) quit() {
	if sh.closed {
		return
	}
	sh.closed = true
	sh.seq++
	sh.cmd.op = opQuit
	sh.cmd.seq.Store(sh.seq)
	for _, sc := range sh.secs[1:] {
		if sc.out.sleeping.Load() != 0 && sc.out.sleeping.CompareAndSwap(1, 0) {
			sc.wake <- struct{}{}
		}
	}
	sh.wg.Wait()
}

func (sh *shared) worker(p, cpu int, passive bool, started *sync.WaitGroup) {
	defer sh.wg.Done()
	sc := sh.secs[p]
	if cpu >= 0 {
		sc.pinErr = topology.Pin(cpu) // locks the thread even on failure
	} else {
		runtime.LockOSThread()
	}
	sc.tid.Store(int32(topology.ThreadID()))
	started.Done()
	var last uint64
	misses := 0
	for {
		last = sc.await(&sh.cmd.seq, last, passive || misses >= maxMisses)
		// Only the current command can be claimed: a claim at or past
		// last means the coordinator took it (and maybe later ones).
		if c := sc.claim.seq.Load(); c >= last || !sc.claim.seq.CompareAndSwap(c, last) {
			sc.out.seen.Store(last)
			misses++
			continue
		}
		misses = 0
		if sh.cmd.op == opQuit {
			return
		}
		sc.exec(sh)
		sc.out.done.Store(last)
		if sh.parked.flag.Load() != 0 && sh.parked.flag.CompareAndSwap(1, 0) {
			sh.parked.wake <- struct{}{}
		}
	}
}

// await waits until seq differs from last and returns it: spinning for
// spinFor (not at all if park), then parked until the coordinator wakes it.
func (sc *section) await(seq *atomic.Uint64, last uint64, park bool) uint64 {
	var w backoff
	for {
		if s := seq.Load(); s != last {
			return s
		}
		if !park && !w.spent() {
			continue
		}
		sc.out.sleeping.Store(1)
		if seq.Load() != last && sc.out.sleeping.CompareAndSwap(1, 0) {
			continue
		}
		<-sc.wake // the coordinator cleared sleeping and sends once
		park = false
		w = backoff{}
	}
}

// backoff paces a spin loop. The clock is read once every 256 checks.
type backoff struct {
	n     uint32
	start time.Time
}

// spent is called after each failed check; it reports whether the loop
// has spun for spinFor.
func (w *backoff) spent() bool {
	w.n++
	if w.n&255 != 0 {
		return false
	}
	now := time.Now()
	if w.start.IsZero() {
		w.start = now
		return false
	}
	return now.Sub(w.start) >= spinFor
}
