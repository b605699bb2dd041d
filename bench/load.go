package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"sardonics/model"
	"sardonics/npy"
	"sardonics/runner"
)

// loadSpec is the dense model whose matrix file the load line reads back:
// N = 4096 (issue 26: a dense N = 4096 matrix file loads in <= 2 s).
const loadSpec = "sk:N=4096,seed=1"

// loadRounds is the number of loads timed; the median is reported.
const loadRounds = 3

// loadLine writes loadSpec as a float64 .npy file (N x N, 128 MiB) into a
// temporary folder and times model.Load of it (the whole path of --model
// FILE.npy: read, decode, check symmetry, build the dense form), reporting
// the median wall seconds of loadRounds loads and their CPU seconds.
func loadLine(get func(string) (*model.Model, error)) (Line, error) {
	m, err := get(loadSpec)
	if err != nil {
		return Line{}, err
	}
	dir, err := os.MkdirTemp("", "sardonics-bench-load")
	if err != nil {
		return Line{}, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sk4096.npy")
	f, err := os.Create(path)
	if err != nil {
		return Line{}, err
	}
	// numpy's default dtype, float64: twice the bytes of the generator's
	// float32 matrix (model.WriteDenseNPY would keep float32).
	d := m.DenseForm()
	buf := npy.F8(d.J64, d.N, d.N)
	if d.J32 != nil {
		buf = npy.F8(d.J32, d.N, d.N)
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return Line{}, err
	}
	buf = nil
	if err := f.Close(); err != nil {
		return Line{}, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return Line{}, err
	}
	var walls, cpus []float64
	for range loadRounds {
		c0, w0 := runner.ProcessCPU(), time.Now()
		lm, err := model.Load(path)
		if err != nil {
			return Line{}, err
		}
		walls = append(walls, time.Since(w0).Seconds())
		cpus = append(cpus, runner.ProcessCPU()-c0)
		if lm.Variables() != m.Variables() {
			return Line{}, fmt.Errorf("%s loaded with %d variables (expected %d)", path, lm.Variables(), m.Variables())
		}
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return Line{Name: "dense .npy load", Model: loadSpec, Value: walls[len(walls)/2], Unit: "s", Steps: loadRounds,
		CPUSec: cpus[len(cpus)/2],
		Note: fmt.Sprintf("median of %d loads of a %.0f MiB float64 file, wall %.2f-%.2f s, CPU %.2f s (median)",
			loadRounds, float64(st.Size())/(1<<20), walls[0], walls[len(walls)-1], cpus[len(cpus)/2])}, nil
}
