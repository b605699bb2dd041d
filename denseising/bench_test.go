package denseising

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"sardonics/dense"
	"sardonics/internal/rbmtest"
	"sardonics/model"
	"sardonics/saw"
)

// BenchmarkUpdate is one flip's pass over N spins (ns/op / N per spin).
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{1000, 4096} {
		r := rand.NewPCG(1, 1)
		s := rbmtest.RandomSpins(r, n)
		F, q := make([]int32, n), make([]int16, n)
		for i := range F {
			F[i] = int32(r.Uint64()>>40) - 1<<23
			q[i] = int16(r.Uint64())
		}
		tb := dense.NewBias(24, 2, 2.1, saw.Logistic)
		w := make([]uint64, n)
		nb := (n + blockBits - 1) / blockBits
		bs0, bs1 := make([]uint64, nb), make([]uint64, nb)
		row := make([]float32, n)
		for _, r := range [][]float32{nil, row} {
			name := "update"
			if r != nil {
				name = "update+dot"
			}
			b.Run(fmt.Sprintf("%s/N=%d", name, n), func(b *testing.B) {
				m := int32(2)
				cpu(b, func() {
					update(useAVX2, tb, s, F, q, w, m, bs0, bs1, r)
					m = -m
				}, n, "spin")
			})
		}
		b.Run(fmt.Sprintf("dot/N=%d", n), func(b *testing.B) {
			cpu(b, func() { Dot32(row, s) }, n, "spin")
		})
	}
}

// BenchmarkWalk is whole walks of 11 flips with their reverse scoring and
// undo, on sk:N=1000 at gamma 2 (ns/op / 11 per flip).
func BenchmarkWalk(b *testing.B) {
	m, err := model.Load("sk:N=1000,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.NewPCG(1, 2)
	e := New(m.Dense, rbmtest.RandomSpins(r, 1000))
	e.SetBiases(1.9, 2.1, saw.Logistic)
	var rev [1][2]float64
	cpu(b, func() {
		p, _, _ := e.Walk(r, 11, 0, nil)
		e.ReverseLogProbs(p, []int{0, 11}, rev[:])
		e.Undo(p)
	}, 11, "flip")
}

// cpu runs f in b's loop and reports thread CPU ns per op / per.
func cpu(b *testing.B, f func(), per int, what string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var t0, t1 unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t0)
	for b.Loop() {
		f()
	}
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t1)
	b.ReportMetric(float64(t1.Nano()-t0.Nano())/float64(b.N*per), "cpu-ns/"+what)
}
