package parallelsaw

import (
	"math/rand/v2"
	"testing"
	"time"

	"sardonics/internal/rbmtest"
	"sardonics/saw"
)

// spinFor busy-waits d on the calling thread (the coordinator's serial
// work between commands, as a walk's bookkeeping would be).
func busyWait(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestProfileAccounts checks that the profile sees what it claims to: a
// delay the test puts between walks is serial time, the sections' time
// covers their kernels, and the parts add up to the wall time of the
// walks, on both engines at P = 1 and 2. It would fail for a profile that
// missed the serial share (SerialNs below the injected delays) or
// counted a section's time twice (the parts above the wall time).
func TestProfileAccounts(t *testing.T) {
	const walks, delay = 200, 50 * time.Microsecond
	for _, m := range stressModels(t) {
		for _, P := range []int{1, 2} {
			e, _ := m.build(t, P)
			pe := e.(interface {
				EnableProfile()
				Profile() Profile
			})
			e.SetBiases(0.95, 1.05, saw.Logistic)
			r := rand.NewPCG(1, 2)
			path := make([]int32, 0, 8)
			pe.EnableProfile()
			t0 := time.Now()
			for i := range walks {
				path, _, _ = e.Walk(r, 4, i%2, path[:0])
				busyWait(delay)
			}
			wall := time.Since(t0)
			p := pe.Profile()
			e.Close()
			if p.Commands < walks {
				t.Errorf("%s P=%d: %d commands for %d walks", m.name, P, p.Commands, walks)
			}
			if min := int64(walks-1) * int64(delay); p.SerialNs < min {
				t.Errorf("%s P=%d: serial %d ns, below the %d ns of delays between walks", m.name, P, p.SerialNs, min)
			}
			if p.WallNs() > int64(wall) {
				t.Errorf("%s P=%d: serial + commands %d ns exceed the walks' wall time %d ns", m.name, P, p.WallNs(), wall)
			}
			if len(p.ExecNs) != P || p.CoordNs < p.ExecNs[0] || p.CoordNs > p.CommandNs {
				t.Errorf("%s P=%d: sections %v, coordinator ran %d ns of %d ns in commands", m.name, P, p.ExecNs, p.CoordNs, p.CommandNs)
			}
			for q, x := range p.ExecNs {
				if x <= 0 {
					t.Errorf("%s P=%d: section %d ran for %d ns", m.name, P, q, x)
				}
			}
			if s := p.SerialFraction(); s <= 0 || s >= 1 {
				t.Errorf("%s P=%d: serial fraction %v", m.name, P, s)
			}
			if x := p.Projected(1, 0); x < 0.999999 || x > 1.000001 {
				t.Errorf("%s P=%d: projected speedup at one section %v (expected 1)", m.name, P, x)
			}
		}
	}
}

// TestProfileOff checks that an engine without EnableProfile keeps an
// empty profile (the product's engines pay nothing for it).
func TestProfileOff(t *testing.T) {
	e, err := New(rbmtest.RandomRBM(t, 12, 8, 0.5, 6), nil, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Walk(rand.NewPCG(1, 2), 4, 0, nil)
	if p := e.Profile(); p.Commands != 0 || p.ExecNs != nil || p.SerialFraction() != -1 {
		t.Fatalf("profile without EnableProfile: %+v", p)
	}
}
