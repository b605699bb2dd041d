package figure

import (
	"path/filepath"
	"testing"

	"sardonics/model"
)

func load(t *testing.T, spec string) *model.Ising {
	t.Helper()
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m.Ising
}

func TestModelFigures(t *testing.T) {
	dir := outDir(t)
	for _, c := range []struct {
		file string
		plot func(string) error
	}{
		{"frustrated2d.png", func(p string) error {
			return PlotLattice2D(p, "frustrated 2D 60x60", load(t, "frustrated2d:L=60,seed=1"), 60)
		}},
		{"frustrated2d-small.png", func(p string) error {
			return PlotLattice2D(p, "frustrated 2D 6x6", load(t, "frustrated2d:L=6,seed=1"), 6)
		}},
		{"ferro2d.png", func(p string) error {
			return PlotLattice2D(p, "2D ferromagnet 60x60", load(t, "ferro2d:L=60"), 60)
		}},
		{"spinglass3d.png", func(p string) error {
			return PlotSpinGlass3D(p, "3D spin glass 9^3", load(t, "spinglass3d:L=9,seed=1"), 9)
		}},
		{"chimera.png", func(p string) error {
			return PlotChimera(p, "chimera C(4,4,4)", load(t, "chimera:M=4,N=4,T=4,seed=1"), 4, 4, 4)
		}},
		{"chimera-odd.png", func(p string) error {
			return PlotChimera(p, "chimera C(2,3,3), J and h = ±1", load(t, "chimera:M=2,N=3,T=3,seed=2,J=pm1,h=pm1"), 2, 3, 3)
		}},
	} {
		p := filepath.Join(dir, c.file)
		if err := c.plot(p); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		checkPNG(t, p, 800, 800)
	}
}

func TestModelFigureErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.png")
	sq := load(t, "frustrated2d:L=6,seed=1")
	cube := load(t, "spinglass3d:L=3,seed=1")
	ch := load(t, "chimera:M=2,N=2,T=4,seed=1")
	for name, err := range map[string]error{
		"lattice size":       PlotLattice2D(p, "", sq, 5),
		"lattice nil":        PlotLattice2D(p, "", nil, 6),
		"lattice of cube":    PlotLattice2D(p, "", cube, 3),
		"lattice of chimera": PlotLattice2D(p, "", load(t, "chimera:M=2,N=2,T=2"), 4), // 16 spins, not a torus
		"cube size":          PlotSpinGlass3D(p, "", cube, 4),
		"cube of square":     PlotSpinGlass3D(p, "", sq, 6),
		"chimera size":       PlotChimera(p, "", ch, 2, 2, 3),
		"chimera zero":       PlotChimera(p, "", ch, 0, 2, 4),
		"chimera layout":     PlotChimera(p, "", ch, 1, 4, 4), // 64 spins, wrong couplers
		"chimera of lattice": PlotChimera(p, "", load(t, "ferro2d:L=4"), 1, 1, 8),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
