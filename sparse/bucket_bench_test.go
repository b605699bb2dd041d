package sparse

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// benchDefault runs a chain with the default theta (kl=1, ku=10) at beta
// on m's bucket engine: the setting of a plain `sample` run.
func benchDefault(b *testing.B, m *model.Ising, beta float64) {
	eng := mustBucket(b, m)
	c, err := saw.NewChain(eng, beta, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 2))
	if err != nil {
		b.Fatal(err)
	}
	for range 20000 { // equilibrate roughly
		c.Step()
	}
	f0 := c.Stats().Flips
	cpu0 := cpuTime()
	for b.Loop() {
		c.Step()
	}
	flips := float64(c.Stats().Flips - f0)
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/flips, "cpu-ns/flip")
	b.ReportMetric(flips/float64(b.N), "flips/op")
}

func BenchmarkDefaultFrustratedT1(b *testing.B)   { benchDefault(b, frustrated2d(b), 1) }
func BenchmarkDefaultFrustratedT05(b *testing.B)  { benchDefault(b, frustrated2d(b), 2) }
func BenchmarkDefaultSpinGlassBeta1(b *testing.B) { benchDefault(b, spinGlass3d(b), 1) }

func BenchmarkDefaultSmallT1(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pm := func() float64 { return float64(2*r.IntN(2) - 1) }
	benchDefault(b, torus(b, 16, pm, pm), 1)
}

// TestProbeSteps runs SARD_PROBE_STEPS steps of the default chain on
// frustrated2d at T = 1 after 5000 steps of warm-up, for instruction
// counts under callgrind (go test -c, then callgrind at two step counts:
// the difference is the cost of the extra steps). Skipped otherwise.
func TestProbeSteps(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("SARD_PROBE_STEPS"))
	if err != nil {
		t.Skip("SARD_PROBE_STEPS not set")
	}
	beta := 1.0
	if os.Getenv("SARD_PROBE_BETA") == "2" {
		beta = 2
	}
	eng := mustBucket(t, frustrated2d(t))
	c, _ := saw.NewChain(eng, beta, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 2))
	for range 5000 + n {
		c.Step()
	}
	t.Logf("flips %d", c.Stats().Flips)
}
