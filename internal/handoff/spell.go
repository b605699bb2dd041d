package handoff

import "golang.org/x/sys/unix"

// Spinning. A waiter polls its condition; every pollsPerRead polls it reads
// the clock (Now, no system call). Two reads more than gapNs apart mean
// the thread did not run in between: the OS gave its CPU to another
// thread (or the hypervisor its virtual CPU to another machine). The
// thread's CPU over the spell is then its wall time less those gaps, which
// is what CLOCK_THREAD_CPUTIME_ID would say without a system call per
// check; every cpuCheckNs of spinning the spell also reads that clock, to
// see descheduling in slices too short for a gap. A spell whose thread has
// been off its CPU for more than lostNs and more than half the wall time
// it spun (CPU / wall < 0.5) is lost: spinning on a CPU the thread does not
// get only delays the thread that has it, so the waiter parks at once and
// tells its policy. (A time slice given to a competing program lasts a
// millisecond or more; an interrupt or a kernel worker, tens of
// microseconds at most, is not taken for one.) A waiter that waits for
// another thread's computation (the pool's coordinator, for a worker's
// share) also reads that thread's CPU clock at each check (Watch): a
// partner descheduled in the middle of its work makes the spell lost too.
//
// (pollsPerRead is 128, or 8 under the race detector, whose atomics cost
// a hundred times more: race.go.)
const (
	gapNs      = 20_000
	lostNs     = 100_000
	cpuCheckNs = 16_000
)

// Spell is one wait of one thread for a condition that another thread
// makes true; it tells the caller when to stop spinning and counts the
// CPU time spent spinning. Its zero value is a spell that has not started.
type Spell struct {
	start, last int64 // the clock at the start of the counted part (0: not read yet) and at the last read
	off         int64 // ns the thread was off its CPU (gaps)
	cpu0, wall0 int64 // thread CPU and clock at the first CPU check (wall0 0: none yet)
	nextCheck   int64 // spun time of the next CPU check
	polls       uint32
	long        bool // read the clock after the start
	// The partner: the thread the spell waits for while it computes
	// (watch gives its id, 0 for none), and its CPU time and the clock
	// when it was first read.
	watch         func() int
	ptid          int
	pcpu0, pwall0 int64
}

// Watch makes the spell also watch the thread whose work it waits for
// (watch returns its id at each CPU check, 0 when there is none): a
// partner whose CPU time grows at less than half the wall time, over more
// than lostNs, has been descheduled in the middle of its work, and the
// spell is lost as if its own thread had been. Only a thread that computes
// until it makes the condition true may be watched (one that can block
// would look descheduled).
func (s *Spell) Watch(watch func() int) { s.watch = watch }

// Start begins a spell. A timed spell reads the clock now and counts all
// its time; an untimed one (cheaper, for hand-offs of a microsecond)
// counts only its time after its first periodic read.
func (s *Spell) Start(timed bool) {
	w := s.watch
	*s = Spell{nextCheck: cpuCheckNs, watch: w}
	if timed {
		s.start = Now()
		s.last = s.start
	}
}

// Poll is called after each failed check of the condition, with the spin
// budget in ns. It reports whether to stop spinning (park) and whether
// that is because the thread lost its CPU.
func (s *Spell) Poll(budget int64) (park, lost bool) {
	s.polls++
	if s.polls%pollsPerRead != 0 {
		return false, false
	}
	now := Now()
	if s.last == 0 {
		s.start, s.last, s.long = now, now, true
		return false, false
	}
	s.long = true
	if d := now - s.last; d > gapNs {
		s.off += d
	}
	s.last = now
	spun := now - s.start
	if s.off > lostNs && 2*s.off > spun {
		return true, true
	}
	if spun >= s.nextCheck {
		s.nextCheck = spun + cpuCheckNs
		c := ThreadCPU()
		if s.wall0 == 0 {
			s.cpu0, s.wall0 = c, now
		} else if off := now - s.wall0 - (c - s.cpu0); off > lostNs && 2*off > now-s.wall0 {
			return true, true
		}
		if s.watch != nil {
			switch tid := s.watch(); {
			case tid != s.ptid:
				s.ptid, s.pcpu0, s.pwall0 = tid, threadCPUOf(tid), now
			case tid > 0:
				if off := now - s.pwall0 - (threadCPUOf(tid) - s.pcpu0); off > lostNs && 2*off > now-s.pwall0 {
					return true, true
				}
			}
		}
	}
	return spun >= budget, false
}

// threadCPUOf is the CPU time in ns of thread tid of this process (its
// CPU clock, MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), 0 if it is gone.
func threadCPUOf(tid int) int64 {
	if tid <= 0 {
		return 0
	}
	var ts unix.Timespec
	if unix.ClockGettime(int32(^tid<<3|6), &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// End ends the spell and returns the CPU ns it counted (its counted wall
// time less the gaps) and whether it read the clock after its start (a
// long spell: an untimed spell that did not counts nothing).
func (s *Spell) End() (ns int64, long bool) {
	if s.start == 0 {
		return 0, false
	}
	now := Now()
	if d := now - s.last; d > gapNs {
		s.off += d
	}
	return max(0, now-s.start-s.off), s.long
}
