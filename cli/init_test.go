package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/npy"
	"sardonics/runner"
	"sardonics/sawsampler"
)

// TestInitScripts: --init from a text file and from the states.npy of
// --save-states, one row or one per trial; wrong shapes exit 2 with the
// file, line and what was expected; --resume after --init is identical and
// refuses a changed file.
func TestInitScripts(t *testing.T) { commandScript(t, "init_") }

func readEnergies(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		_, v, _ := strings.Cut(l, ",")
		e, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// A run continued with --init from the last state a previous run saved
// starts exactly there: that state's energy (from the model) is the
// previous run's last energy and the new chain's energy before its first
// step, and the new trace is that of a chain built at the state with the
// trial's random stream.
func TestInitStartsFromSavedState(t *testing.T) {
	base := t.TempDir()
	const spec, beta, seed = "frustrated2d:L=6,seed=1", 1.0, 7
	a := filepath.Join(base, "a")
	if _, _, err := run(t, "sample", "--model", spec, "--beta", "1", "--sampler", "gibbs", "--steps", "300", "--burn", "299",
		"--trials", "1", "--save-states", "--quiet", "--out", a); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	states := filepath.Join(a, "gibbs", "trial-0", "states.npy")
	rows, err := readInit(states, m.Variables(), 2)
	if err != nil || len(rows) != 1 {
		t.Fatalf("states.npy: %d rows, %v", len(rows), err)
	}
	last := readEnergies(t, filepath.Join(a, "gibbs", "trial-0", "energy.csv"))
	if e := m.Ising.Energy(rows[0]); e != last[len(last)-1] {
		t.Fatalf("energy of the saved state %v, last energy of its run %v", e, last[len(last)-1])
	}
	b := filepath.Join(base, "b")
	if _, _, err := run(t, "sample", "--model", spec, "--beta", "1", "--sampler", "gibbs,metropolis", "--steps", "50", "--burn", "10",
		"--trials", "2", "--seed", strconv.Itoa(seed), "--quiet", "--init", states, "--out", b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gibbs", "metropolis"} {
		for tr := range 2 {
			got := readEnergies(t, filepath.Join(b, name, "trial-"+strconv.Itoa(tr), "energy.csv"))
			ch, release, err := runner.NewChain(name, m, beta, sawsampler.Config{}, runner.StreamFor(seed, tr, name), slices.Clone(rows[0]))
			if err != nil {
				t.Fatal(err)
			}
			if e := ch.Energy(); e != last[len(last)-1] {
				t.Errorf("%s trial %d: energy at the start %v, want the saved state's %v", name, tr, e, last[len(last)-1])
			}
			for i, e := range got {
				ch.Step()
				if ch.Energy() != e {
					t.Fatalf("%s trial %d step %d: energy %v, chain from the saved state %v", name, tr, i+1, e, ch.Energy())
				}
			}
			release()
		}
	}
}

func TestReadInitNPY(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npy := func(descr string, fortran bool, shape []int, data ...byte) []byte {
		b := npy.Header(descr, shape...)
		if fortran {
			b = []byte(strings.Replace(string(b), "'fortran_order': False,", "'fortran_order': True, ", 1))
		}
		return append(b, data...)
	}
	// Two rows of three: C order and the same array in Fortran order.
	want := [][]int8{{1, -1, -1}, {-1, 1, 1}}
	for name, b := range map[string][]byte{
		"c.npy":    npy("|u1", false, []int{2, 3}, 1, 0, 0, 0, 1, 1),
		"f.npy":    npy("|u1", true, []int{2, 3}, 1, 0, 0, 1, 0, 1),
		"bool.npy": npy("|b1", false, []int{2, 3}, 1, 0, 0, 0, 1, 1),
	} {
		rows, err := readInit(write(name, b), 3, 2)
		if err != nil || len(rows) != 2 || !slices.Equal(rows[0], want[0]) || !slices.Equal(rows[1], want[1]) {
			t.Errorf("%s: %v, %v", name, rows, err)
		}
	}
	// A text file that starts with a byte order mark reads as without it.
	if rows, err := readInit(write("bom.txt", []byte("\ufeff+1 -1 -1\n-1 +1 +1\n")), 3, 2); err != nil || len(rows) != 2 || !slices.Equal(rows[0], want[0]) || !slices.Equal(rows[1], want[1]) {
		t.Errorf("text with a byte order mark: %v, %v", rows, err)
	}
	if rows, err := readInit(write("one.npy", npy("|u1", false, []int{3}, 0, 1, 0)), 3, 5); err != nil || len(rows) != 1 || !slices.Equal(rows[0], []int8{-1, 1, -1}) {
		t.Errorf("1-D array: %v, %v", rows, err)
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"two.npy":   {npy("|u1", false, []int{1, 3}, 0, 2, 1), "row 0, column 1 holds 2 (expected 0 for -1 or 1 for +1)"},
		"f8.npy":    {npy("<f8", false, []int{1, 3}, make([]byte, 24)...), `dtype "<f8" (expected uint8 '|u1' bits, as --save-states writes)`},
		"short.npy": {npy("|u1", false, []int{2, 3}, 0, 1, 0), "3 bytes of data (expected 2 x 3 for shape (2, 3))"},
		"3d.npy":    {npy("|u1", false, []int{1, 1, 3}, 0, 1, 0), "shape [1 1 3] (expected (rows, 3) or (3,))"},
		"trunc.npy": {[]byte(npyMagic + "\x01\x00\xff"), "truncated .npy header"},
	} {
		_, err := readInit(write(name, c.b), 3, 1)
		if want := "--init " + filepath.Join(dir, name) + ": " + c.want; err == nil || err.Error() != want || ExitCode(err) != 2 {
			t.Errorf("%s: %v (exit %d), want %q", name, err, ExitCode(err), want)
		}
	}
}

// TestReportRefusesOtherInit (issue 25, item 4): --init's content is part
// of a run's settings, so report refuses to merge runs started from
// different states.
func TestReportRefusesOtherInit(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i, init := range []string{"-1 -1 -1 -1 -1 -1 -1 -1 -1\n", "1 1 1 1 1 1 1 1 1\n"} {
		f := filepath.Join(dir, fmt.Sprintf("init%d.txt", i))
		if err := os.WriteFile(f, []byte(init), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := run(t, "sample", "--model", "ferro2d:L=3", "--T", "2", "--sampler", "gibbs", "--steps", "200", "--trials", "1",
			"--trial-offset", strconv.Itoa(i), "--init", f, "--quiet", "--no-figures", "--out", []string{a, b}[i]); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr)
		}
	}
	_, _, err := run(t, "report", "--out", filepath.Join(dir, "m"), a, b)
	if err == nil || !strings.Contains(err.Error(), "init: sha256:") {
		t.Errorf("report merged runs from different --init files: %v", err)
	}
}
