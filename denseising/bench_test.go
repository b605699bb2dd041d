package denseising

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
		F, mask, q := make([]int32, n), make([]uint32, n), make([]int16, n)
		for i := range F {
			F[i] = int32(r.Uint64()>>40) - 1<<23
			q[i] = int16(r.Uint64())
			mask[i] = ^uint32(0)
		}
		tb := dense.NewBias(24, 2, 2.1, saw.Logistic)
		w0, w1 := make([]uint32, n), make([]uint32, n)
		nb := (n + blockBits - 1) / blockBits
		bs0, bs1 := make([]uint64, nb), make([]uint64, nb)
		row := make([]float32, n)
		b.Run(fmt.Sprintf("update/N=%d", n), func(b *testing.B) {
			m := int32(2)
			for b.Loop() {
				update(useAVX2, tb, s, F, mask, q, w0, w1, m, bs0, bs1)
				m = -m
			}
		})
		b.Run(fmt.Sprintf("dot/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				Dot32(row, s)
			}
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
	for b.Loop() {
		p, _, _ := e.Walk(r, 11, 0, nil)
		e.ReverseLogProbs(p, []int{0, 11}, rev[:])
		e.Undo(p)
	}
}
