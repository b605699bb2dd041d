package memo

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBuiltOncePerKey(t *testing.T) {
	builds := 0
	s := &Shared[int, int]{Max: 4, Build: func(k int) int { builds++; return k * k }}
	var a, b Local[int, int]
	for range 3 {
		for k := range 4 {
			if a.Get(s, k) != k*k || b.Get(s, k) != k*k {
				t.Fatalf("Get(%d) wrong", k)
			}
		}
	}
	if builds != 4 {
		t.Errorf("%d builds for 4 keys shared by two users, want 4", builds)
	}
	s.Get(9) // past Max: starts over
	if builds != 5 || len(s.m) != 1 {
		t.Errorf("after overflow: %d builds, %d kept", builds, len(s.m))
	}
}

// TestWeakOncePerSource: concurrent askers share one build; a collected
// source's value goes away; a broken cache that built per ask is caught.
func TestWeakOncePerSource(t *testing.T) {
	type src struct{ x [64]int }
	var builds atomic.Int32
	build := func(s *src) int {
		builds.Add(1)
		time.Sleep(time.Millisecond) // hold the others at the once
		return s.x[0] + 1
	}
	var w Weak[src, int]
	a := &src{}
	a.x[0] = 41
	var wg sync.WaitGroup
	got := make([]int, 8)
	for g := range got {
		wg.Go(func() { got[g] = w.Get(a, build) })
	}
	wg.Wait()
	for _, v := range got {
		if v != 42 {
			t.Fatalf("Get = %d, want 42", v)
		}
	}
	if n := builds.Load(); n != 1 || !w.Has(a) {
		t.Fatalf("%d builds for one source asked 8 times at once (has %v), want 1", n, w.Has(a))
	}
	runtime.KeepAlive(a)
	a = nil
	for i := 0; i < 100 && w.Len() > 0; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := w.Len(); n != 0 {
		t.Fatalf("%d values held after their source was collected", n)
	}
	// The pattern Weak replaced (look up, build on a miss, then store)
	// builds once per asker that missed: with every asker past its lookup
	// before any stores, the same count sees eight builds.
	builds.Store(0)
	b := &src{}
	var broken sync.Map
	var missed sync.WaitGroup
	missed.Add(len(got))
	for range got {
		wg.Go(func() {
			_, ok := broken.Load(b)
			missed.Done()
			missed.Wait()
			if !ok {
				broken.LoadOrStore(b, build(b))
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != int32(len(got)) {
		t.Fatalf("the look-up-then-store cache built %d times for %d askers; the check cannot tell", n, len(got))
	}
}
