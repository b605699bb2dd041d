package runner

import (
	"testing"

	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// BenchmarkStepMagnetization is the cost of recording M after every step
// on frustrated2d:L=60 (3600 spins) at T = 1: a step alone ("none"), with
// the sum a chain keeps ("tracked"; sardonics only) and with the spins
// summed after the step ("summed", what the runner does for chains that
// keep none). The sardonics move flips about 11 bits, a metropolis step
// is a sweep of 3600 updates.
func BenchmarkStepMagnetization(b *testing.B) {
	m, err := model.Load("frustrated2d:L=60,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"sardonics", "metropolis"} {
		for _, how := range []string{"none", "tracked", "summed"} {
			if how == "tracked" && name != "sardonics" {
				continue
			}
			b.Run(name+"/"+how, func(b *testing.B) {
				sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}
				ch, done, err := NewChain(name, m, 1, sc, StreamFor(1, 0, name), InitialState(1, 0, m.Variables()))
				if err != nil {
					b.Fatal(err)
				}
				defer done()
				for range 20000 { // past the initial descent
					ch.Step()
				}
				x := 0
				mag := func() int { return 0 }
				switch how {
				case "tracked":
					ch.(sampler.Magnetized).TrackMagnetization()
					mag = ch.(sampler.Magnetized).Magnetization
				case "summed":
					mag = func() int { return sampler.SpinSum(ch.Spins()) }
				}
				for b.Loop() {
					ch.Step()
					x += mag()
				}
				_ = x
			})
		}
	}
}
