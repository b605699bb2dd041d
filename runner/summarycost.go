package runner

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"sardonics/diag"
)

// summaryCost estimates, for the ETA, how long the summary that follows the
// trials takes: its work is a few rank-normalized ESS and R-hat
// computations over each sampler's draws (sorts and FFTs), so its time
// grows as D log2 D in the sampler's total steps D. On first use it times
// one diag.Diagnose of 2^16 draws on this machine (about 60 ms on the
// 2-core VM) and scales it by summaryDiagnoses.
type summaryCost struct {
	once    sync.Once
	perUnit float64 // seconds per D log2 D
}

// summaryDiagnoses is the summary's cost in Diagnose-equivalents over the
// same draws (the energy's Diagnose, the four observables' DiagnoseBulk,
// the trend test, the ACF, the files and figures), measured on the 2-core
// VM: whole summaries of 1.1, 3.1 and 16.4 million steps (report of
// --budget runs) took 1.4-1.9e-7 s per D log2 D, one Diagnose 5.6-7.4e-8.
const summaryDiagnoses = 2.8

// estimate is the summary time of a sampler of steps draws in all.
func (c *summaryCost) estimate(steps int64) time.Duration {
	if steps < 2 {
		return 0
	}
	c.once.Do(c.calibrate)
	d := float64(steps)
	return time.Duration(c.perUnit * d * math.Log2(d) * 1e9)
}

func (c *summaryCost) calibrate() {
	runtime.LockOSThread() // ThreadCPU reads this thread's clock
	defer runtime.UnlockOSThread()
	const n = 1 << 15
	r := rand.New(rand.NewPCG(1, 2))
	chains := [][]float64{make([]float64, n), make([]float64, n)}
	for _, ch := range chains {
		v := 0.0
		for i := range ch {
			v = 0.95*v + r.NormFloat64()
			ch[i] = v
		}
	}
	t0 := ThreadCPU()
	diag.Diagnose(chains)
	dt := ThreadCPU() - t0
	c.perUnit = summaryDiagnoses * dt / (2 * n * math.Log2(2*n))
}
