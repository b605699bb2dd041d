package cli

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"sardonics/model"
	"sardonics/npy"
)

// readNPY reads a .npy file's header and data.
func readNPY(t *testing.T, raw []byte) *npy.File {
	t.Helper()
	a, msg := npy.Split(raw)
	if msg != "" {
		t.Fatal(msg)
	}
	return a
}

// readNPZ reads every array of an .npz archive by name.
func readNPZ(t *testing.T, path string) map[string]*npy.File {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]*npy.File{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = readNPY(t, b)
	}
	return out
}

// TestSaveEvery is the check at a smaller size: --save-every 100
// --save-states on frustrated2d:L=20 writes exactly 1% of the states that
// --save-states alone writes, namely those of steps burn+100, burn+200,
// ... (the chains are the same), and samples.npz holds the distinct ones
// with their energies and counts.
func TestSaveEvery(t *testing.T) {
	base := t.TempDir()
	m, err := model.Load("frustrated2d:L=20,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"sample", "--model", "frustrated2d:L=20,seed=1", "--T", "1", "--sampler", "sardonics,metropolis",
		"--steps", "2500", "--burn", "500", "--trials", "2", "--seed", "4", "--save-states", "--quiet", "--no-figures"}
	all, thin := filepath.Join(base, "all"), filepath.Join(base, "thin")
	if _, _, err := run(t, append(args, "--out", all)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, append(args, "--save-every", "100", "--out", thin)...); err != nil {
		t.Fatal(err)
	}
	n := m.Variables()
	for _, s := range []string{"sardonics", "metropolis"} {
		for _, tr := range []string{"trial-0", "trial-1"} {
			read := func(dir, f string) []byte {
				b, err := os.ReadFile(filepath.Join(dir, s, tr, f))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			if !bytes.Equal(read(all, "energy.csv"), read(thin, "energy.csv")) {
				t.Fatalf("%s %s: --save-every changed the chain", s, tr)
			}
			a, b := readNPY(t, read(all, "states.npy")), readNPY(t, read(thin, "states.npy"))
			if a.Shape[0] != 2000 || b.Shape[0] != 20 || b.Shape[1] != n || len(b.Data) != 20*n {
				t.Fatalf("%s %s: %v states without --save-every, %v with --save-every 100 (expected 2000 and 20)", s, tr, a.Shape, b.Shape)
			}
			for j := range 20 {
				if k := 100*(j+1) - 1; !bytes.Equal(b.Data[j*n:(j+1)*n], a.Data[k*n:(k+1)*n]) {
					t.Fatalf("%s %s: saved state %d is not that of step %d", s, tr, j, 500+100*(j+1))
				}
			}
			var st struct {
				SaveEvery      int `json:"save_every"`
				SavedStates    int `json:"saved_states"`
				DistinctStates int `json:"distinct_states"`
			}
			if err := json.Unmarshal(read(thin, "stats.json"), &st); err != nil || st.SaveEvery != 100 || st.SavedStates != 20 || st.DistinctStates < 1 {
				t.Errorf("%s %s: stats.json %+v %v", s, tr, st, err)
			}
			checkSampleSet(t, m, filepath.Join(thin, s, tr, "samples.npz"), b, st.DistinctStates)
			checkSampleSet(t, m, filepath.Join(all, s, tr, "samples.npz"), a, -1)
		}
	}
}

// checkSampleSet checks samples.npz against the states.npy rows it groups:
// distinct states in order of first appearance, their energies (the
// model's), counts adding up to the rows; want is the number of distinct
// states (-1: any).
func checkSampleSet(t *testing.T, m *model.Model, path string, rows *npy.File, want int) {
	t.Helper()
	z := readNPZ(t, path)
	st, nn, e, c := z["states.npy"], z["n.npy"], z["energies.npy"], z["counts.npy"]
	if st == nil || nn == nil || e == nil || c == nil || st.Descr != "|u1" || nn.Descr != "<i8" || e.Descr != "<f8" || c.Descr != "<i8" {
		t.Fatalf("%s: arrays %v", path, z)
	}
	n, d := rows.Shape[1], st.Shape[0]
	if len(nn.Shape) != 0 || binary.LittleEndian.Uint64(nn.Data) != uint64(n) || st.Shape[1] != (n+7)/8 ||
		e.Shape[0] != d || c.Shape[0] != d || (want >= 0 && d != want) {
		t.Fatalf("%s: shapes %v %v %v %v (expected %d distinct states of %d bits)", path, st.Shape, nn.Shape, e.Shape, c.Shape, want, n)
	}
	// The packed rows, unpacked as numpy.unpackbits(..., bitorder="little").
	w := (n + 7) / 8
	unpacked := make([]byte, d*n)
	for r := range d {
		for i := range n {
			unpacked[r*n+i] = st.Data[r*w+i/8] >> (i % 8) & 1
		}
	}
	key := func(b []byte) string { return string(b) }
	count := map[string]int64{}
	var order []string
	for j := range rows.Shape[0] {
		k := key(rows.Data[j*n : (j+1)*n])
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	if len(order) != d {
		t.Fatalf("%s: %d distinct states, states.npy has %d", path, d, len(order))
	}
	for i := range d {
		x := unpacked[i*n : (i+1)*n]
		cnt := int64(binary.LittleEndian.Uint64(c.Data[8*i:]))
		if key(x) != order[i] || cnt != count[order[i]] {
			t.Fatalf("%s: state %d out of order or count %d (expected %d)", path, i, cnt, count[order[i]])
		}
		s := make([]int8, n)
		for k, v := range x {
			s[k] = int8(2*int(v) - 1)
		}
		got, want := math.Float64frombits(binary.LittleEndian.Uint64(e.Data[8*i:])), m.Ising.Energy(s)
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("%s: state %d has energy %v, the model's is %v", path, i, got, want)
		}
	}
}
