package parallelsaw

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"sardonics/dense"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
	"sardonics/topology"
)

func newEngine(t testing.TB, m *model.RBM, s []int8, P int) *Engine {
	e, err := New(m, s, P, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// TestMatchesNaiveAndDense: Replay (both directions), Walk and Flip agree
// with the reference engine and with dense, for P = 1, 2, 3.
func TestMatchesNaiveAndDense(t *testing.T) {
	r := rand.NewPCG(7, 8)
	for trial := 0; trial < 24; trial++ {
		P := 1 + trial%3
		v, h := 3+rng.Intn(r, 6), 3+rng.Intn(r, 6)
		m := rbmtest.RandomRBM(t, v, h, 0.3+2*rng.Float64(r), uint64(trial))
		im, err := m.Ising()
		if err != nil {
			t.Fatal(err)
		}
		n := v + h
		wf := saw.Weight(trial / 3 % 2)
		gl, gh := 0.2+rng.Float64(r), 0.5+rng.Float64(r)
		s0 := rbmtest.RandomSpins(r, n)
		e, ref, d := newEngine(t, m, s0, P), saw.NewNaive(im, s0), dense.New(m, s0)
		for _, x := range []saw.Engine{e, ref, d} {
			x.SetBiases(gl, gh, wf)
		}
		for rep := 0; rep < 10; rep++ {
			path := rbmtest.RandomPath(r, n, 1+rng.Intn(r, n))
			back := rep%3 == 2
			lf, dE := e.Replay(path, back)
			lfr, dEr := ref.Replay(path, back)
			lfd, dEd := d.Replay(path, back)
			// Log-probabilities: exactly dense's (the same integer weights
			// and sums); energies: the naive engine's.
			if lf != lfd || !rbmtest.Close9(dE, dEr) || !rbmtest.Close9(dE, dEd) {
				t.Fatalf("P=%d trial %d: Replay = %v, %g (naive %v, %g; dense %v, %g)", P, trial, lf, dE, lfr, dEr, lfd, dEd)
			}
			if !rbmtest.Close9(e.Energy(), im.Energy(e.Spins())) {
				t.Fatalf("P=%d trial %d: Energy %g (Ising %g)", P, trial, e.Energy(), im.Energy(e.Spins()))
			}
			start := append([]int8(nil), e.Spins()...)
			wp, lw, dEw := e.Walk(r, 1+rng.Intn(r, n), rep%2, nil)
			ref.SetSpins(start)
			_, dEr = ref.Replay(wp, false)
			d.SetSpins(start)
			lfd, _ = d.Replay(wp, false)
			if lw != lfd || !rbmtest.Close9(dEw, dEr) {
				t.Fatalf("P=%d trial %d: Walk %v = %v, %g (dense replay %v, naive dE %g)", P, trial, wp, lw, dEw, lfd, dEr)
			}
			// The fast reverse equals dense's backward replay.
			var rev [1][2]float64
			if !e.ReverseLogProbs(wp, []int{0, len(wp)}, rev[:]) {
				t.Fatalf("P=%d trial %d: no fast reverse after a walk", P, trial)
			}
			if lr, _ := d.Replay(wp, true); rev[0] != lr {
				t.Fatalf("P=%d trial %d: fast reverse %v (dense replay %v)", P, trial, rev[0], lr)
			}
			d.SetSpins(e.Spins())
			f := rbmtest.RandomPath(r, n, rng.Intn(r, n+1))
			for _, x := range []saw.Engine{e, ref, d} {
				x.Flip(f)
			}
			if !rbmtest.Close9(e.Energy(), ref.Energy()) {
				t.Fatalf("P=%d trial %d: after Flip energy %g (naive %g)", P, trial, e.Energy(), ref.Energy())
			}
		}
	}
}

// walkSequence runs walks from a fixed seed and returns the bits picked and
// the log-probabilities.
func walkSequence(t *testing.T, m *model.RBM, P int) ([]int32, [][2]float64) {
	e := newEngine(t, m, nil, P)
	e.SetBiases(0.9, 1.1, saw.Logistic)
	r := rand.NewPCG(42, 43)
	var path []int32
	var lfs [][2]float64
	walks := 200
	if raceEnabled {
		walks = 60
	}
	for i := 0; i < walks; i++ {
		start := len(path)
		var lf [2]float64
		path, lf, _ = e.Walk(r, 1+rng.Intn(r, 20), i%2, path)
		lfs = append(lfs, lf)
		if i%3 == 0 {
			e.Flip(path[start:]) // a rejected move
		}
	}
	return path, lfs
}

func TestBitIdentical(t *testing.T) {
	m := rbmtest.RandomRBM(t, 30, 20, 0.5, 3)
	for _, P := range []int{1, 2, 3} {
		p1, l1 := walkSequence(t, m, P)
		p2, l2 := walkSequence(t, m, P)
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Fatalf("P=%d: runs differ at pick %d", P, i)
			}
		}
		for i := range l1 {
			if l1[i] != l2[i] {
				t.Fatalf("P=%d: walk %d log-probabilities %v then %v", P, i, l1[i], l2[i])
			}
		}
	}
}

// TestPickDistribution checks the first pick against w_l / Z for P = 2
// (the engine's integer weights).
func TestPickDistribution(t *testing.T) {
	m := rbmtest.RandomRBM(t, 4, 3, 1, 3)
	s0 := []int8{1, -1, 1, -1, 1, 1, -1}
	e := newEngine(t, m, s0, 2)
	e.SetBiases(0.7, 1.2, saw.Logistic)
	r := rand.NewPCG(1, 2)
	n := 20000.0
	if raceEnabled {
		n = 5000
	}
	counts := make([]float64, 7)
	for i := 0; i < int(n); i++ {
		p, _, _ := e.Walk(r, 1, 1, nil)
		counts[p[0]]++
		e.Flip(p)
	}
	var w [7]float64
	z := 0.0
	for l := range w {
		w[l] = float64(e.bias.W[1][e.bias.Class(s0[l], e.fq(int32(l)))])
		z += w[l]
	}
	for l := range w {
		p := w[l] / z
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(counts[l]/n-p) > 5*sd {
			t.Errorf("bit %d picked with frequency %.4f (expected %.4f +- %.4f)", l, counts[l]/n, p, sd)
		}
	}
}

// TestDrift bounds the rounding drift of the incremental fields and energy.
func TestDrift(t *testing.T) {
	m := rbmtest.RandomRBM(t, 60, 40, 1, 5)
	r := rand.NewPCG(3, 4)
	e := newEngine(t, m, rbmtest.RandomSpins(r, 100), 2)
	for i := 0; i < (3*RefreshEvery+1234)/50; i++ {
		e.Flip(rbmtest.RandomPath(r, 100, 50))
	}
	if e.since >= RefreshEvery || e.since == 0 {
		t.Fatalf("%d flips since the last refresh (expected 1..%d)", e.since, RefreshEvery-1)
	}
	fresh := newEngine(t, m, e.Spins(), 2)
	for p, sc := range e.sh.secs {
		for k, f := range sc.fields(e.sh) {
			if g := fresh.sh.secs[p].f[k]; math.Abs(f-g) > 1e-9 {
				t.Fatalf("section %d field %d drifted: %g (from scratch %g)", p, k, f, g)
			}
		}
	}
	im, _ := m.Ising()
	if math.Abs(e.Energy()-im.Energy(e.Spins())) > 1e-9 {
		t.Fatalf("energy %g (from scratch %g)", e.Energy(), im.Energy(e.Spins()))
	}
}

func TestKernelDetailedBalance(t *testing.T) {
	m := rbmtest.RandomRBM(t, 3, 2, 1, 11)
	im, _ := m.Ising()
	theta, err := saw.ParseTheta("kl=1,ku=2,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, m, nil, 2)
	K, err := saw.Kernel(func(s []int8) saw.Engine { e.SetSpins(s); return e }, 5, 1, theta, saw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := saw.CheckDetailedBalance(K, saw.Boltzmann(im, 1)); v > 1e-12 {
		t.Errorf("detailed balance violated by %g", v)
	}
}

// TestOversubscribedAndParked: more sections than Ps neither deadlocks nor
// loses a step, and workers that parked while idle wake up.
func TestOversubscribedAndParked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	m := rbmtest.RandomRBM(t, 12, 8, 0.5, 4)
	e := newEngine(t, m, nil, 4)
	d := dense.New(m, nil)
	r := rand.NewPCG(3, 3)
	check := func() {
		path := rbmtest.RandomPath(r, 20, 10)
		lf, _ := e.Replay(path, false)
		lfd, _ := d.Replay(path, false)
		if !rbmtest.Close9(lf[0], lfd[0]) || !rbmtest.Close9(lf[1], lfd[1]) {
			t.Fatalf("Replay %v (dense %v)", lf, lfd)
		}
	}
	for i := 0; i < 200; i++ {
		check()
	}
	deadline := time.Now().Add(5 * time.Second)
	for p := 1; p < e.P(); p++ {
		for e.sh.secs[p].out.sleeping.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("worker %d never parked", p)
			}
			time.Sleep(time.Millisecond)
		}
	}
	check()
	e.Close()
	e.Close()
	defer func() {
		if recover() == nil {
			t.Error("Walk after Close did not panic")
		}
	}()
	e.Walk(r, 2, 0, nil)
}

func fst(lf [2]float64, _ float64) [2]float64 { return lf }

// oversubscribedRun runs walks of up to 12 flips from a fixed seed, with a
// rejected move (Flip back) after every third, and returns each walk's
// path, log-probabilities and energy after it.
func oversubscribedRun(e saw.Engine, walks int) ([][]int32, [][2]float64, []float64) {
	r := rand.NewPCG(5, 6)
	e.SetBiases(0.9, 1.1, saw.Logistic)
	var paths [][]int32
	var lfs [][2]float64
	var es []float64
	for i := 0; i < walks; i++ {
		path, lf, _ := e.Walk(r, 1+rng.Intn(r, 12), i%2, nil)
		if i%3 == 0 {
			e.Flip(path)
		}
		paths, lfs, es = append(paths, path), append(lfs, lf), append(es, e.Energy())
	}
	return paths, lfs, es
}

// TestOversubscribedBitIdentical (issue 15, point 2): with more sections
// than Ps (GOMAXPROCS 1, P = 4 and 8, no pinning; the engine made before
// GOMAXPROCS drops, so that its workers are active, or after, so that they
// are passive) the engine finishes and its walks are bit for bit those
// with free CPUs, however the sections' work was shared between workers
// and coordinator; their log-probabilities are bit for bit the serial
// dense engine's on the same paths.
func TestOversubscribedBitIdentical(t *testing.T) {
	m := rbmtest.RandomRBM(t, 12, 8, 0.5, 6)
	walks := 3000
	if raceEnabled {
		walks = 300
	}
	for _, c := range []struct {
		P      int
		before bool
	}{{4, true}, {8, true}, {4, false}, {8, false}} {
		P := c.P
		paths, lfs, es := oversubscribedRun(newEngine(t, m, nil, P), walks)
		done := make(chan struct{})
		var (
			e       *Engine
			p1      [][]int32
			l1      [][2]float64
			e1      []float64
			elapsed time.Duration
		)
		if c.before {
			e = newEngine(t, m, nil, P)
		}
		go func() {
			defer close(done)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			t0 := time.Now()
			if !c.before {
				e = newEngine(t, m, nil, P)
			}
			p1, l1, e1 = oversubscribedRun(e, walks)
			elapsed = time.Since(t0)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang guard, not a timing test
			t.Fatalf("P=%d: %d walks on GOMAXPROCS 1 did not finish in 2 minutes", P, walks)
		}
		t.Logf("P=%d on GOMAXPROCS 1 (engine made before: %v): %d walks in %v, %d sections run by the coordinator, %d wake-ups",
			P, c.before, walks, elapsed, e.sh.steals, e.sh.wakes)
		d := dense.New(m, nil)
		d.SetBiases(0.9, 1.1, saw.Logistic)
		for i := range paths {
			if !slices.Equal(p1[i], paths[i]) || l1[i] != lfs[i] || e1[i] != es[i] {
				t.Fatalf("P=%d walk %d: %v, %v, energy %v on GOMAXPROCS 1; %v, %v, %v with free CPUs", P, i, p1[i], l1[i], e1[i], paths[i], lfs[i], es[i])
			}
			if lfd, _ := d.Replay(paths[i], false); lfd != lfs[i] {
				t.Fatalf("P=%d walk %d: log-probabilities %v (dense %v)", P, i, lfs[i], lfd)
			}
			if i%3 == 0 {
				d.Flip(paths[i])
			}
			if !rbmtest.Close9(d.Energy(), es[i]) {
				t.Fatalf("P=%d walk %d: energy %v (dense %v)", P, i, es[i], d.Energy())
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	m := rbmtest.RandomRBM(t, 3, 2, 1, 1)
	for _, P := range []int{0, 6, MaxP + 1} {
		if e, err := New(m, nil, P, nil); err == nil {
			e.Close()
			t.Errorf("New with P=%d succeeded (expected an error)", P)
		}
	}
	if _, err := New(m, make([]int8, 4), 1, nil); err == nil {
		t.Error("New with 4 spins for 5 units succeeded")
	}
	e, err := New(m, nil, 2, []int{0, 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.PinError() == nil {
		t.Error("pinning to CPU 1<<20 reported no error")
	}
	e.Walk(rand.NewPCG(1, 1), 3, 0, nil) // still works unpinned
}

// TestCleanup: the workers of an engine that was never closed stop once it
// is unreachable.
func TestCleanup(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		e, err := New(rbmtest.RandomRBM(t, 6, 6, 1, 1), nil, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Walk(rand.NewPCG(1, 1), 4, 0, nil)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines (expected %d): workers not stopped", runtime.NumGoroutine(), before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestState: a state saved between refreshes (a compact engine's visible
// fields behind, hidden flips logged) restores into a fresh engine with
// as many sections, which continues as the saved one does; a state of
// another number of sections or a cut one is refused.
func TestState(t *testing.T) {
	m := rbmtest.RandomRBM(t, 40, 30, 1, 9)
	r := rand.NewPCG(5, 6)
	a := newEngine(t, m, rbmtest.RandomSpins(r, 70), 3)
	a.SetBiases(0.9, 1.1, saw.Logistic)
	for range 60 {
		p, _, _ := a.Walk(r, 7, 0, nil)
		a.Flip(p[:3])
	}
	st := a.AppendState(nil)
	b := newEngine(t, m, nil, 3)
	if err := b.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	b.SetBiases(0.9, 1.1, saw.Logistic)
	ra, rb := *r, *r
	for i := range 60 {
		pa, la, ea := a.Walk(&ra, 8, i%2, nil)
		pb, lb, eb := b.Walk(&rb, 8, i%2, nil)
		if !slices.Equal(pa, pb) || la != lb || ea != eb || a.Energy() != b.Energy() {
			t.Fatalf("walk %d after restore differs", i)
		}
		a.Flip(pa[:i%4])
		b.Flip(pb[:i%4])
	}
	if err := newEngine(t, m, nil, 2).RestoreState(st); err == nil {
		t.Error("state of 3 sections restored into 2")
	}
	if err := b.RestoreState(st[:len(st)-1]); err == nil {
		t.Error("cut state accepted")
	}
}

// TestWaitCPU: the waiting CPU the engine reports (spins estimated from a
// sample of them, parks measured) is at least 0 and at most the CPU of
// its threads, the caller's and the workers'.
func TestWaitCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := rbmtest.RandomRBM(t, 40, 30, 0.5, 3)
	e := newEngine(t, m, nil, 2)
	tid := topology.ThreadID()
	c0 := topology.ThreadCPU(tid)
	oversubscribedRun(e, 3000)
	total := topology.ThreadCPU(tid) - c0 + e.WorkerCPUSeconds()
	if w := e.WaitCPUSeconds(); !(w >= 0) || w > 1.1*total+0.005 {
		t.Errorf("WaitCPUSeconds %g of %g CPU seconds", w, total)
	}
	t.Logf("waited %.4f of %.4f CPU seconds", e.WaitCPUSeconds(), total)
}
