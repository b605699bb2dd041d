package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir holds the golden corpus of chains (scripts/corpus.sh).
const corpusDir = "testdata/corpus"

// corpusCommands are the commands of commands.txt: name, then the flags.
func corpusCommands(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, strings.Fields(l))
		}
	}
	return out
}

// npyFloat64s are the values of a float64 .npy file (its header skipped).
func npyFloat64s(t *testing.T, b []byte) []float64 {
	t.Helper()
	if len(b) < 10 || string(b[1:6]) != "NUMPY" {
		t.Fatalf("not a .npy file")
	}
	h := int(binary.LittleEndian.Uint16(b[8:10])) + 10
	if b[6] >= 2 {
		h = int(binary.LittleEndian.Uint32(b[8:12])) + 12
	}
	b = b[h:]
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// Every chain unchanged: each command of the corpus, run now, gives every
// trial's magnetization, overlap and replica walk byte for byte as the
// build that wrote the corpus did, and every step's energy to 1e-9
// relative (the exact grid of issue 41 moves real-valued models' last
// bits). A chain that differs in one step is caught: the test also checks
// that its comparison fails on a corpus trace with one value changed.
func TestGoldenCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus runs a dozen sample commands (a few seconds)")
	}
	cmds := corpusCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("%d corpus commands", len(cmds))
	}
	compared := 0
	for _, c := range cmds {
		name, args := c[0], c[1:]
		out := t.TempDir()
		if _, _, err := run(t, append(append([]string{"sample"}, args...), "--save-trace", "--no-figures", "--quiet", "--out", out)...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden := filepath.Join(corpusDir, name)
		files, _ := filepath.Glob(filepath.Join(golden, "*", "trial-*", "*"))
		if len(files) == 0 {
			t.Fatalf("%s: no golden traces under %s (scripts/corpus.sh writes them)", name, golden)
		}
		for _, g := range files {
			rel, _ := filepath.Rel(golden, g)
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, rel))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if msg := traceDiff(t, filepath.Base(g), got, want); msg != "" {
				t.Errorf("%s: %s: %s", name, rel, msg)
			}
			compared++
			if compared == 1 { // the comparison can fail
				bad := bytes.Clone(want)
				bad[len(bad)-3] ^= 0x10
				if traceDiff(t, filepath.Base(g), bad, want) == "" {
					t.Errorf("a changed trace compares equal")
				}
			}
		}
	}
	t.Logf("%d commands, %d traces compared", len(cmds), compared)
}

// traceDiff says how got differs from the golden trace want ("" if it
// does not): energies to 1e-9 relative, everything else byte for byte.
func traceDiff(t *testing.T, base string, got, want []byte) string {
	if base != "energy.npy" {
		if !bytes.Equal(got, want) {
			return "differs from the golden trace"
		}
		return ""
	}
	g, w := npyFloat64s(t, got), npyFloat64s(t, want)
	if len(g) != len(w) {
		return "a different number of steps"
	}
	for i := range g {
		if math.Abs(g[i]-w[i]) > 1e-9*max(1, math.Abs(w[i])) {
			return fmt.Sprintf("energy of step %d is %v, golden %v", i+1, g[i], w[i])
		}
	}
	return ""
}
