package runner

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/npy"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// One energy per state (model.OnGrid): on real-valued models every
// sampler, on every engine, alone and inside replica exchange with the
// cluster move, through a checkpoint's save and restore, reports for each
// state the energy a fresh evaluation of that state gives, bit for bit,
// however long the run: so every revisit of a state reports one value.
// The same runs on the models as parsed, before OnGrid, drift: the check
// catches that (the deliberately drifting variant).

// onGridModels are small real-valued models of every form: a sparse QUBO
// with two-decimal coefficients, a 16-spin chimera with real couplings
// and +-1 fields, a dense float32 matrix (.npy), a dense QUBO (.npz Q) and
// an RBM with real weights and biases. Each is returned as parsed
// (raw) and put on its grid (Load).
func onGridModels(t *testing.T, dir string) map[string][2]*model.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(41, 7))
	dec := func() float64 { return float64(r.IntN(201)-100) / 100 }
	files := map[string][]byte{}
	// sparse QUBO, 12 variables
	var q strings.Builder
	var terms []string
	for i := range 12 {
		terms = append(terms, fmt.Sprintf("%d %d %.2f", i, i, dec()))
	}
	nd := len(terms)
	for i := range 12 {
		for j := i + 1; j < 12; j++ {
			if r.Float64() < 0.5 {
				terms = append(terms, fmt.Sprintf("%d %d %.2f", i, j, dec()))
			}
		}
	}
	fmt.Fprintf(&q, "p qubo 0 12 %d %d\n%s\n", nd, len(terms)-nd, strings.Join(terms, "\n"))
	files["q12.qubo"] = []byte(q.String())
	// dense float32 J, 16 spins
	n := 16
	j32 := make([]float32, n*n)
	for i := range n {
		for k := i + 1; k < n; k++ {
			w := float32(r.NormFloat64() / 4)
			j32[i*n+k], j32[k*n+i] = w, w
		}
	}
	files["d16.npy"] = npy32(j32, n)
	// dense QUBO, 14 variables (Q upper triangle and diagonal)
	nq := 14
	qm := make([]float64, nq*nq)
	for i := range nq {
		for k := i; k < nq; k++ {
			qm[i*nq+k] = dec()
		}
	}
	var zb bytes.Buffer
	if err := writeNPZ(&zb, map[string][]byte{"Q.npy": npy64(qm, nq)}); err != nil {
		t.Fatal(err)
	}
	files["q14.npz"] = zb.Bytes()
	out := map[string][2]*model.Model{}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		raw, err := rawLoad(path, data)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = [2]*model.Model{raw, m}
	}
	// generated: a chimera with real couplings and +-1 fields, an RBM
	// with real weights and (set here) real biases
	chim := func() *model.Model {
		m, err := model.Chimera(1, 1, 8, 3, model.ChimeraOptions{PM1H: true})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	rbm := func() *model.Model {
		m, err := model.RandomRBM(8, 6, 2, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.RBM.B {
			m.RBM.B[i] = 0.3 / float64(i+3)
		}
		for j := range m.RBM.C {
			m.RBM.C[j] = -0.7 / float64(j+7)
		}
		return m
	}
	for name, gen := range map[string]func() *model.Model{"chimera": chim, "rbm": rbm} {
		m := gen()
		m.OnGrid()
		if m.Grid.Rounded == 0 {
			t.Fatalf("%s: on its grid as generated (expected real-valued terms)", name)
		}
		out[name] = [2]*model.Model{gen(), m}
	}
	return out
}

// npy32 and npy64 are .npy files of an n x n matrix; writeNPZ zips them.
func npy32(v []float32, n int) []byte {
	b := npy.Header("<f4", n, n)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func npy64(v []float64, n int) []byte {
	b := npy.Header("<f8", n, n)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func writeNPZ(w io.Writer, files map[string][]byte) error {
	z := zip.NewWriter(w)
	for name, data := range files {
		f, err := z.Create(name)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
	}
	return z.Close()
}

// rawLoad parses a model file as Load does, without OnGrid.
func rawLoad(path string, data []byte) (*model.Model, error) {
	switch filepath.Ext(path) {
	case ".qubo":
		return model.ParseQUBO(path, bytes.NewReader(data))
	case ".npy":
		return model.ReadDenseNPY(path, data)
	}
	return model.ReadDenseNPZ(path, data)
}

// chainRun is one chain on one model.
type chainRun struct {
	name     string
	model    string
	engine   string
	replicas bool
}

func onGridRuns(models map[string][2]*model.Model) []chainRun {
	var runs []chainRun
	for spec, ms := range models {
		m := ms[1]
		for _, name := range []string{"sardonics", "hybrid", "gibbs", "metropolis", "sw", "blockgibbs"} {
			k, _ := sampler.Lookup(name)
			if k.Check != nil && k.Check(m) != nil {
				continue
			}
			engines := []string{""}
			if name == "sardonics" && m.RBM == nil {
				engines = []string{"tree", "dense", "parallel"}
			} else if name == "sardonics" {
				engines = []string{"dense", "parallel"}
			}
			for _, e := range engines {
				runs = append(runs, chainRun{name, spec, e, false})
			}
			if k.Untempered == "" && m.RBM == nil {
				runs = append(runs, chainRun{name, spec, "", true})
			}
		}
	}
	return runs
}

// checkOneEnergy steps ch for steps steps and returns the first step at
// which it reports for a state an energy other than the one it reported
// at an earlier visit or other than E(state), or -1. At mid-run the
// chain is saved and restored into a fresh one (Stateful chains).
func checkOneEnergy(t *testing.T, m *model.Model, build func() (sampler.Chain, func()), steps int) (int, string) {
	ch, done := build()
	defer func() { done() }()
	is := m.Sparse()
	seen := map[uint64]float64{}
	for step := 0; step < steps; step++ {
		if step == steps/2 {
			if st, ok := ch.(sampler.Stateful); ok {
				b := st.AppendState(nil)
				ch2, done2 := build()
				if err := ch2.(sampler.Stateful).RestoreState(b); err != nil {
					t.Fatal(err)
				}
				done()
				ch, done = ch2, done2
			}
		}
		ch.Step()
		s := ch.Spins()
		key := uint64(0)
		for i, v := range s {
			if v > 0 {
				key |= 1 << i
			}
		}
		e := ch.Energy()
		if prev, ok := seen[key]; ok {
			if prev != e {
				return step, fmt.Sprintf("state %#x reported %v, earlier %v", key, e, prev)
			}
			continue
		}
		// A table's integer energies times its unit may differ from the
		// sum of the terms in the last bits; never by more.
		if fresh := is.Energy(s); math.Abs(fresh-e) > 1e-12*m.Grid.Bound {
			return step, fmt.Sprintf("state %#x reported %v, E(state) = %v", key, e, fresh)
		}
		seen[key] = e
	}
	return -1, ""
}

func TestOneEnergyPerState(t *testing.T) {
	models := onGridModels(t, t.TempDir())
	runs := onGridRuns(models)
	// Over 10^7 steps in all, most of them the single-site chains' sweeps
	// (a sweep of a dozen spins costs about what one SARDONICS step
	// costs, a replica-exchange step a step of each of its 8 members).
	steps := func(cr chainRun) int {
		n := 700_000
		switch {
		case cr.replicas:
			n = 15_000
		case cr.engine == "parallel":
			n = 20_000
		case cr.name == "sardonics" || cr.name == "hybrid":
			n = 60_000
		}
		if testing.Short() {
			n /= 20
		}
		return n
	}
	total := 0
	drifted := 0
	for _, cr := range runs {
		for variant, m := range models[cr.model] {
			build := func() (sampler.Chain, func()) {
				cfg := &Config{Model: m, Beta: 3,
					SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: cr.engine}}
				if cr.engine == "parallel" {
					cfg.SAW.EngineThreads = 2
				}
				if cr.replicas {
					cfg.Replicas = ReplicaConfig{R: 4, BetaMin: 0.3, Overlap: true}
					if !m.UseDense() { // the cluster move is for sparse models
						cfg.Replicas.Cluster, cfg.Replicas.ClusterBetaMin = ClusterICM, 0.3
					}
				}
				init := InitialState(5, 0, m.Variables())
				ch, done, err := newTrialChain(cfg, cr.name, rand.NewPCG(9, 9), init, 1000, 0)
				if err != nil {
					t.Fatalf("%v: %v", cr, err)
				}
				return ch, done
			}
			n := steps(cr)
			if variant == 0 {
				n /= 4
			}
			at, msg := checkOneEnergy(t, m, build, n)
			if at >= 0 {
				total += at + 1
			} else {
				total += n
			}
			switch {
			case variant == 1 && at >= 0:
				t.Errorf("%s on %s (engine %q, replicas %v): step %d: %s", cr.name, cr.model, cr.engine, cr.replicas, at, msg)
			case variant == 0 && at >= 0:
				drifted++
			}
		}
	}
	t.Logf("%d chains, %d steps; %d of them drift on the models off their grid", 2*len(runs), total, drifted)
	// The check can fail: off the grid, most chains drift.
	if drifted < len(runs)/2 {
		t.Errorf("only %d of %d chains drift off the grid: the check would not catch drifting energies", drifted, len(runs))
	}
}
