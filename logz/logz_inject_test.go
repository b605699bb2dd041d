//go:build inject

package logz

import "testing"

// The broken variants (inject_on.go) against the checks of
// TestAISMatchesExact and TestREMatchesExact: each must fail them.

type brokenVariant struct {
	name string
	set  func(on bool)
}

var wrongBase = brokenVariant{"wrong base ln Z", func(on bool) { brokenBase = map[bool]float64{true: 0.5}[on] }}

func TestAISBrokenCaught(t *testing.T) {
	for _, c := range estCases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			want := exactLnZ(t, m, c.beta)
			cfg := Config{Model: m, Beta: c.beta, Sampler: c.smp, Runs: 64, Steps: 200, Seed: 5, Threads: 2}
			for _, b := range []brokenVariant{wrongBase, {"the last tenth of the increments dropped", func(on bool) { truncated = on }}} {
				b.set(true)
				bad, err := AIS(cfg)
				b.set(false)
				if err != nil {
					t.Fatal(err)
				}
				if agrees(bad, want, 0.1) {
					t.Errorf("AIS with %s passes the check: %.5f +- %.5f, exact %.5f", b.name, bad.LnZ, bad.Stderr, want)
				}
			}
		})
	}
}

func TestREBrokenCaught(t *testing.T) {
	for _, c := range estCases {
		if c.smp == "" && c.name == "rbm" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			want := exactLnZ(t, m, c.beta)
			cfg := Config{Model: m, Beta: c.beta, Sampler: c.smp, Runs: 8, Steps: 3000, Seed: 5, Threads: 2}
			for _, b := range []brokenVariant{wrongBase, {"reverse works of the wrong sign", func(on bool) { brokenBAR = on }}} {
				b.set(true)
				bad, err := RE(cfg)
				b.set(false)
				if err != nil {
					t.Fatal(err)
				}
				if agrees(bad, want, 0.1) {
					t.Errorf("RE with %s passes the check: %.5f +- %.5f, exact %.5f", b.name, bad.LnZ, bad.Stderr, want)
				}
			}
		})
	}
}
