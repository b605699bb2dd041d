package replica_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"sardonics/denseising"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/saw"
)

// denseCases are the kernels of the dense engines (denseising's SARDONICS
// engine, the dense single-site chains) on an SK glass of 16 spins given as
// the .txt that gen writes (a complete graph: the automatic choice puts it
// on the dense engines).
func denseCases(t *testing.T) []kernelCase {
	t.Helper()
	m, err := model.Load("sk:N=16,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sk16.txt")
	if err := model.Write(m, path); err != nil {
		t.Fatal(err)
	}
	return []kernelCase{
		{"sardonics-denseising", path, "sardonics", "", 0},
		{"gibbs-dense", path, "gibbs", "", 0},
		{"metropolis-dense", path, "metropolis", "", 0},
	}
}

// TestDenseAgreesWithEnumeration is TestAgreesWithEnumeration for the
// dense engines: inside replica exchange (SetBeta on every member) they
// give the exact mean energy and ground-state probability at beta 3.
func TestDenseAgreesWithEnumeration(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for _, kc := range denseCases(t) {
		t.Run(kc.name, func(t *testing.T) {
			zE, zP := agreement(t, kc, 16, 3000)
			t.Logf("z(mean E) = %.2f, z(P(E_min)) = %.2f", zE, zP)
			if math.Abs(zE) > 4 || math.Abs(zP) > 4 || math.IsNaN(zE) || math.IsNaN(zP) {
				t.Errorf("replica exchange of %s disagrees with enumeration: z = %.2f (energy), %.2f (ground state)", kc.kernel, zE, zP)
			}
		})
	}
}

// TestDenseStateContinues: a replica set of dense chains saved and restored
// continues bit for bit (the engines' and chains' Stateful).
func TestDenseStateContinues(t *testing.T) {
	for _, kc := range denseCases(t) {
		t.Run(kc.name, func(t *testing.T) {
			cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 7, Adapt: 400, CountFrom: 100, Sets: 2, KeepSpins: true}
			continues(t, kc, cfg, 250, 600, "")
		})
	}
	// The sardonics members do run the dense engine.
	m, err := model.Load(denseCases(t)[0].spec)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.NewPCG(1, 2)
	c, done, err := builder("sardonics", m, "", 0)(1, r, randomSpins(r, 16))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, ok := c.(*saw.Chain).Engine().(*denseising.Engine); !ok {
		t.Errorf("sardonics runs %T on a dense model (expected the dense engine)", c.(*saw.Chain).Engine())
	}
}
