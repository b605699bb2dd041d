package rng

import (
	"math/bits"
	"math/rand/v2"
)

// splitmix64 finalizer (Steele, Lea and Flood 2014): a bijective mix so that
// nearby (seed, trial) pairs give unrelated PCG states.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Stream returns the random stream of trial t of a run with the given seed.
// Sub-streams of one trial (e.g. a tuner's) use Sub.
func Stream(seed, trial uint64) *rand.PCG {
	return rand.NewPCG(mix(seed), mix(trial^0x5851f42d4c957f2d))
}

// Sub returns the k-th auxiliary stream of trial t, independent of Stream(seed, t).
func Sub(seed, trial, k uint64) *rand.PCG {
	return rand.NewPCG(mix(seed^mix(k+1)), mix(trial^0x5851f42d4c957f2d^mix(k+7)))
}

// Float64 is a uniform draw in [0, 1) from the top 53 bits, without the
// interface call of rand.Rand.
func Float64(p *rand.PCG) float64 {
	return float64(p.Uint64()>>11) * (1.0 / (1 << 53))
}

// Intn is a uniform draw in [0, n) (Lemire's multiply-shift, with rejection).
func Intn(p *rand.PCG, n int) int {
	un := uint64(n)
	for {
		x := p.Uint64()
		hi, lo := bits.Mul64(x, un)
		if lo < un {
			thresh := -un % un
			if lo < thresh {
				continue
			}
		}
		return int(hi)
	}
}
