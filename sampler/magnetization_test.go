package sampler

import (
	"math/rand/v2"
	"testing"
)

// SpinSum agrees with a plain sum at every length (the 32-byte blocks and
// the tail) and for every mix of signs.
func TestSpinSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range append(seq(200), 2039, 2040, 2041, 4096, 100003) {
		for range 5 {
			s := make([]int8, n)
			want := 0
			p := r.Float64()
			for i := range s {
				s[i] = 1
				if r.Float64() < p {
					s[i] = -1
				}
				want += int(s[i])
			}
			if got := SpinSum(s); got != want {
				t.Fatalf("n = %d: SpinSum %d, plain sum %d", n, got, want)
			}
		}
	}
}

func BenchmarkSpinSum3600(b *testing.B) {
	s := make([]int8, 3600)
	for i := range s {
		s[i] = int8(1 - 2*(i%3&1))
	}
	b.SetBytes(int64(len(s)))
	x := 0
	for b.Loop() {
		x += SpinSum(s)
	}
	_ = x
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
