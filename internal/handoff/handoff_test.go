package handoff

import (
	"testing"
	"time"
)

// sim runs n ticks of p on a simulated clock, each tick at a active
// threads costing cost(i, a) ns (i the tick), and returns the simulated
// time and the ticks run at each count.
func sim(p *Policy, n int, cost func(i, a int) int64, at func(i int)) (int64, map[int]int) {
	var clock int64
	p.SetClock(func() int64 { return clock })
	ticks := map[int]int{}
	for i := range n {
		if at != nil {
			at(i)
		}
		a := p.Tick()
		ticks[a]++
		clock += cost(i, a)
	}
	return clock, ticks
}

func price(spin time.Duration) Price {
	return Price{Spin: spin, SpinTrips: 100, Park: 30 * time.Microsecond, ParkTrips: 20}
}

// TestPolicyTakesWhatPays: rounds of 100 us that two threads do in 55 us
// run on two threads nearly all the time, within a few percent of the
// best time.
func TestPolicyTakesWhatPays(t *testing.T) {
	p := NewPolicy(2, price(time.Microsecond))
	total, ticks := sim(p, 100_000, func(_, a int) int64 { return map[int]int64{1: 100_000, 2: 55_000}[a] }, nil)
	best := int64(100_000) * 55_000
	if ticks[2] < 95_000 || total > best*105/100 {
		t.Errorf("ticks %v, %.3f of the best time (probes %d, windows %d)", ticks, float64(total)/float64(best), p.Probes, p.Windows)
	}
}

// TestPolicyStepsAside: when two threads make a round slower (hand-offs
// dearer than the split saves), the pool stays on one thread but for a
// few probes, whose number grows as the logarithm of the run.
func TestPolicyStepsAside(t *testing.T) {
	p := NewPolicy(2, price(time.Microsecond))
	total, ticks := sim(p, 100_000, func(_, a int) int64 { return map[int]int64{1: 100_000, 2: 130_000}[a] }, nil)
	serial := int64(100_000) * 100_000
	if total > serial*102/100 || p.Probes > 16 {
		t.Errorf("ticks %v, %.4f of the serial time, %d probes in %d windows", ticks, float64(total)/float64(serial), p.Probes, p.Windows)
	}
}

// TestPolicyGate: ticks too short to pay for two spin hand-offs are never
// tried on more threads.
func TestPolicyGate(t *testing.T) {
	p := NewPolicy(4, price(time.Microsecond))
	_, ticks := sim(p, 200_000, func(_, a int) int64 { return 3_000 / int64(a) }, nil)
	if ticks[1] != 200_000 || p.Probes != 0 {
		t.Errorf("ticks %v, %d probes", ticks, p.Probes)
	}
}

// TestPolicyLost: a thread that lost its CPU sends the pool back to one
// thread at the next tick, and more threads come back once they pay again.
func TestPolicyLost(t *testing.T) {
	p := NewPolicy(2, price(time.Microsecond))
	cost := func(_, a int) int64 { return map[int]int64{1: 100_000, 2: 55_000}[a] }
	sim(p, 1000, cost, nil)
	if p.Active() != 2 {
		t.Fatalf("active %d after 1000 paying ticks", p.Active())
	}
	p.Lost()
	if a := p.Tick(); a != 1 {
		t.Fatalf("active %d right after Lost", a)
	}
	_, ticks := sim(p, 10_000, cost, nil)
	if ticks[2] < 9_000 {
		t.Errorf("after one loss: ticks %v", ticks)
	}
}

// TestPolicyManyThreads: of 16 threads, the count that measures fastest
// (8, with a hand-off cost that grows with the count) is the one used.
func TestPolicyManyThreads(t *testing.T) {
	p := NewPolicy(16, price(time.Microsecond))
	cost := func(_, a int) int64 { return 1_600_000/int64(a) + 30_000*int64(a) }
	total, ticks := sim(p, 50_000, cost, nil)
	best := 50_000 * cost(0, 8)
	if ticks[8] < 45_000 || total > best*110/100 {
		t.Errorf("ticks %v, %.3f of the best time", ticks, float64(total)/float64(best))
	}
}

// TestPolicyLoadChanges: a busy core that makes two threads lose (their
// rounds stall, and the threads see it) sends the pool to one thread
// within a window, and when the core frees the pool comes back to two.
func TestPolicyLoadChanges(t *testing.T) {
	p := NewPolicy(2, price(time.Microsecond))
	const phase = 200_000
	busy := func(i int) bool { return i >= phase && i < 2*phase }
	cost := func(i, a int) int64 {
		switch {
		case a == 1:
			return 100_000
		case busy(i) && i%7 == 0:
			return 2_000_000 // a stall: the partner lost its CPU for a time slice
		case busy(i):
			return 70_000
		}
		return 55_000
	}
	var seg [3]map[int]int
	for k := range seg {
		seg[k] = map[int]int{}
	}
	var clock int64
	p.SetClock(func() int64 { return clock })
	var times [3]int64
	for i := range 3 * phase {
		k := i / phase
		a := p.Tick()
		seg[k][a]++
		c := cost(i, a)
		clock += c
		times[k] += c
		if a > 1 && c > 1_000_000 {
			p.Lost()
		}
	}
	if seg[1][1] < phase*95/100 || times[1] > 100_000*phase*105/100 {
		t.Errorf("busy: ticks %v, %.3f of the serial time", seg[1], float64(times[1])/float64(100_000*phase))
	}
	if seg[2][2] < phase*80/100 {
		t.Errorf("after: ticks %v", seg[2])
	}
	if seg[0][2] < phase*95/100 {
		t.Errorf("before: ticks %v", seg[0])
	}
}

// TestSpellSeesLostCPU: a spell whose thread does not run for a while (a
// sleep stands in for the OS giving its CPU away) reports it lost at its
// next clock read; one that runs throughout stops at its budget.
func TestSpellSeesLostCPU(t *testing.T) {
	var s Spell
	s.Start(true)
	lost := false
	for i := 0; i < 100*pollsPerRead && !lost; i++ {
		if i == pollsPerRead/2 {
			time.Sleep(2 * time.Millisecond)
		}
		_, lost = s.Poll(int64(time.Second))
	}
	if !lost {
		t.Error("a 2 ms gap in a spell was not seen")
	}
	if ns, _ := s.End(); ns > int64(time.Millisecond) {
		t.Errorf("the spell counted %d ns of CPU across a 2 ms gap", ns)
	}
	// A spin that keeps its CPU (retried: a busy machine may take it).
	for try := 0; ; try++ {
		s.Start(true)
		var park bool
		for !park {
			park, lost = s.Poll(int64(100 * time.Microsecond))
		}
		ns, _ := s.End()
		if !lost && ns >= int64(90*time.Microsecond) && ns < int64(200*time.Microsecond) {
			break
		}
		if try == 10 {
			t.Fatalf("10 spins of 100 us all lost (part of) their CPU: the last counted %d ns", ns)
		}
	}
}

// TestPolicyWeighsWaiting: two threads that save 1 us of a 10 us tick but
// spin 7 us between ticks (the waiting CPU the pool reports) do not pay,
// and are used but for probes; with 0.5 us of spinning they do.
func TestPolicyWeighsWaiting(t *testing.T) {
	for _, c := range []struct {
		wait int64
		want int
	}{{7_000, 1}, {500, 2}} {
		p := NewPolicy(2, price(100*time.Nanosecond))
		var waited int64
		p.SetCost(func() int64 { return waited })
		_, ticks := sim(p, 200_000, func(_, a int) int64 {
			if a == 2 {
				waited += c.wait
				return 9_000
			}
			return 10_000
		}, nil)
		if ticks[c.want] < 190_000 {
			t.Errorf("waiting %d ns per tick: ticks %v (want mostly %d threads)", c.wait, ticks, c.want)
		}
	}
}

// TestMeasure: the price is measured and plausible (a spin hand-off of at
// most a few microseconds, a park one of at most a few milliseconds).
func TestMeasure(t *testing.T) {
	pr := Measure(500, 8, 20*time.Millisecond)
	t.Logf("%+v", pr)
	if pr.ParkTrips == 0 || pr.Park <= 0 || pr.Park > 10*time.Millisecond {
		t.Errorf("park price %+v", pr)
	}
	if pr.SpinTrips > minTrips && pr.Spin > 100*time.Microsecond {
		t.Errorf("spin price %+v", pr)
	}
}

// TestPolicyIgnoresOutliers: a tick now and then that costs far more on
// any count (an engine's periodic refresh, a GC pause) must not send a
// pool that pays on two threads back to one: the window that holds it
// would look no faster than one thread, and one thread would "do as
// well". Each window is judged by the median of its quarters.
func TestPolicyIgnoresOutliers(t *testing.T) {
	p := NewPolicy(2, price(time.Microsecond))
	cost := func(i, a int) int64 {
		c := map[int]int64{1: 13_000, 2: 7_500}[a]
		if i%700 == 699 {
			c += 10_000_000
		}
		return c
	}
	_, ticks := sim(p, 200_000, cost, nil)
	if ticks[2] < 190_000 {
		t.Errorf("ticks %v (probes %d, windows %d)", ticks, p.Probes, p.Windows)
	}
}
