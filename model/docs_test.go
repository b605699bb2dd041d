package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The tests in this file keep docs/formats.md true: every example file it
// marks is loaded, every energy table it marks is recomputed, and every
// "same model up to a constant" claim is checked on all states. The markers
// are HTML comments, described at the end of the page. cli/docs_test.go
// checks the page's `exact` outputs.

const docPath = "../docs/formats.md"

type docMarker struct {
	kind, arg string
	line      int
	block     []string // the fenced block or table that follows, if any
}

var docMarkerRE = regexp.MustCompile(`^<!-- (file|npz|energies|same|output): (.+?) -->$`)

// readDocMarkers returns the page's markers in order, each with the fenced
// block (file, npz, output) or the table (energies) right after it.
func readDocMarkers(t *testing.T) []docMarker {
	t.Helper()
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []docMarker
	for i := 0; i < len(lines); i++ {
		m := docMarkerRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		mk := docMarker{kind: m[1], arg: m[2], line: i + 1}
		switch mk.kind {
		case "file", "npz", "output":
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				t.Fatalf("%s:%d: marker %q is not followed by a fenced block", docPath, i+1, lines[i])
			}
			j := i + 2
			for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
				mk.block = append(mk.block, lines[j])
			}
			if j == len(lines) {
				t.Fatalf("%s:%d: unclosed fenced block", docPath, i+2)
			}
			i = j
		case "energies":
			j := i + 1
			for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
				mk.block = append(mk.block, lines[j])
			}
			if len(mk.block) < 3 {
				t.Fatalf("%s:%d: marker %q is not followed by a table with a header and rows", docPath, i+1, lines[i])
			}
			i = j - 1
		}
		out = append(out, mk)
	}
	return out
}

var docArrayRE = regexp.MustCompile(`\b(W|b|c)=np\.array\((\[.*?\])\)`)

// docRBM builds the RBM whose W=, b= and c= np.array literals a Python block
// of the page holds, as the .npz bytes numpy.savez would give.
func docRBM(t *testing.T, block []string) []byte {
	t.Helper()
	var w [][]float64
	var b, c []float64
	found := map[string]bool{}
	for _, m := range docArrayRE.FindAllStringSubmatch(strings.Join(block, "\n"), -1) {
		var dst any = &b
		switch m[1] {
		case "W":
			dst = &w
		case "c":
			dst = &c
		}
		if err := json.Unmarshal([]byte(m[2]), dst); err != nil {
			t.Fatalf("array %s = %s: %v", m[1], m[2], err)
		}
		found[m[1]] = true
	}
	if !found["W"] || !found["b"] || !found["c"] || len(w) == 0 {
		t.Fatalf("npz block lacks W=, b= or c= np.array(...) literals:\n%s", strings.Join(block, "\n"))
	}
	var flat []float64
	for _, row := range w {
		if len(row) != len(w[0]) {
			t.Fatalf("W is ragged: %v", w)
		}
		flat = append(flat, row...)
	}
	r, err := NewRBM(len(w), len(w[0]), flat, b, c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeDocFiles writes every file and npz example of the page into dir and
// returns their names in page order.
func writeDocFiles(t *testing.T, markers []docMarker, dir string) []string {
	t.Helper()
	var names []string
	for _, mk := range markers {
		var data []byte
		switch mk.kind {
		case "file":
			data = []byte(strings.Join(mk.block, "\n") + "\n")
		case "npz":
			data = docRBM(t, mk.block)
		default:
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, mk.arg), data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, mk.arg)
	}
	return names
}

// docEnergy is E in m's own convention, computed from its source terms
// (QUBO, RBM) or its Ising form, for bits x in the Ising form's order.
func docEnergy(m *Model, x []uint8) float64 {
	switch m.Kind {
	case KindQUBO:
		e := 0.0
		for i, d := range m.QUBO.Diag {
			e += d * float64(x[i])
		}
		for _, o := range m.QUBO.Off {
			e += o.W * float64(x[o.I]*x[o.J])
		}
		return e
	case KindRBM:
		return m.RBM.Energy(x[:m.RBM.V], x[m.RBM.V:])
	}
	return docIsingEnergy(m, x)
}

func docIsingEnergy(m *Model, x []uint8) float64 {
	s := make([]int8, len(x))
	for i, b := range x {
		s[i] = int8(2*int(b) - 1)
	}
	return m.Ising.Energy(s)
}

func docClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(a)) }

func loadDocModels(t *testing.T) (map[string]*Model, []docMarker) {
	markers := readDocMarkers(t)
	dir := t.TempDir()
	models := map[string]*Model{}
	for _, name := range writeDocFiles(t, markers, dir) {
		if models[name] != nil {
			t.Fatalf("%s: two examples named %s", docPath, name)
		}
		m, err := Load(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: example %s does not load: %v", docPath, name, err)
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("%s: example %s: %v", docPath, name, err)
		}
		models[name] = m
	}
	return models, markers
}

// TestDocFormatsExamplesLoad: the page shows one complete example of each
// format, and every example file on it loads as the kind its extension names.
func TestDocFormatsExamplesLoad(t *testing.T) {
	models, _ := loadDocModels(t)
	kinds := map[string]Kind{".txt": KindIsing, ".qubo": KindQUBO, ".npz": KindRBM}
	seen := map[Kind]bool{}
	for name, m := range models {
		want, ok := kinds[filepath.Ext(name)]
		if !ok || m.Kind != want {
			t.Errorf("%s: example %s loads as %v (expected the kind of its extension)", docPath, name, m.Kind)
		}
		seen[m.Kind] = true
	}
	for _, k := range []Kind{KindIsing, KindQUBO, KindRBM} {
		if !seen[k] {
			t.Errorf("%s has no %v example file", docPath, k)
		}
	}
}

// TestDocFormatsEnergies recomputes every energy table of the page: each row
// is a state and its energy in the model's own convention; the Ising form
// (which the samplers use) must give the same energy, and with plus=C a
// third column must be the energy + C (dimod's energy, for example).
func TestDocFormatsEnergies(t *testing.T) {
	models, markers := loadDocModels(t)
	tables := 0
	for _, mk := range markers {
		if mk.kind != "energies" {
			continue
		}
		tables++
		f := strings.Fields(mk.arg)
		m := models[f[0]]
		if m == nil {
			t.Errorf("%s:%d: no example file %s", docPath, mk.line, f[0])
			continue
		}
		plus, hasPlus := 0.0, false
		for _, opt := range f[1:] {
			v, ok := strings.CutPrefix(opt, "plus=")
			p, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				t.Fatalf("%s:%d: bad option %q (expected plus=NUMBER)", docPath, mk.line, opt)
			}
			plus, hasPlus = p, true
		}
		stateCols := 1
		if m.Kind == KindRBM {
			stateCols = 2 // v, then h
		}
		for k, row := range mk.block[2:] { // after the header and the separator
			where := fmt.Sprintf("%s:%d", docPath, mk.line+3+k)
			cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
			want := stateCols + 1
			if hasPlus {
				want++
			}
			if len(cells) != want {
				t.Errorf("%s: %d cells (expected %d)", where, len(cells), want)
				continue
			}
			var x []uint8
			for _, c := range cells[:stateCols] {
				for _, tok := range strings.Fields(strings.Trim(strings.TrimSpace(c), "`")) {
					b, ok := docBit(m.Kind, tok)
					if !ok {
						t.Fatalf("%s: bad state token %q for a %v model", where, tok, m.Kind)
					}
					x = append(x, b)
				}
			}
			if len(x) != m.Variables() {
				t.Errorf("%s: state has %d variables, %s has %d", where, len(x), f[0], m.Variables())
				continue
			}
			nums := make([]float64, len(cells)-stateCols)
			for i, c := range cells[stateCols:] {
				v, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
				if err != nil {
					t.Fatalf("%s: energy %q: %v", where, c, err)
				}
				nums[i] = v
			}
			e := docEnergy(m, x)
			if !docClose(e, nums[0]) {
				t.Errorf("%s: %s: E(%s) = %v, the page says %v", where, f[0], strings.Join(cells[:stateCols], "|"), e, nums[0])
			}
			if ei := docIsingEnergy(m, x); !docClose(ei, e) {
				t.Errorf("%s: %s: E(%s): the Ising form gives %v, the model %v", where, f[0], strings.Join(cells[:stateCols], "|"), ei, e)
			}
			if hasPlus && !docClose(nums[1], nums[0]+plus) {
				t.Errorf("%s: %v is not %v + %v", where, nums[1], nums[0], plus)
			}
		}
	}
	if tables < 4 {
		t.Errorf("%s has %d energy tables (expected one per format and one for dimod)", docPath, tables)
	}
}

// docBit reads a state token: spins +1/-1 for Ising models, bits otherwise.
func docBit(k Kind, tok string) (uint8, bool) {
	if k == KindIsing {
		switch tok {
		case "+1":
			return 1, true
		case "-1":
			return 0, true
		}
		return 0, false
	}
	switch tok {
	case "1":
		return 1, true
	case "0":
		return 0, true
	}
	return 0, false
}

// TestDocFormatsSameModels: where the page says two files are one model up
// to a constant (E_A(x) = E_B(x) + C: a QUBO and its Ising form, two
// conversions of one dimod model), it holds on every state.
func TestDocFormatsSameModels(t *testing.T) {
	models, markers := loadDocModels(t)
	n := 0
	for _, mk := range markers {
		if mk.kind != "same" {
			continue
		}
		n++
		f := strings.Fields(mk.arg)
		if len(f) != 3 || !strings.HasPrefix(f[2], "offset=") {
			t.Fatalf("%s:%d: %q (expected A B offset=C)", docPath, mk.line, mk.arg)
		}
		c, err := strconv.ParseFloat(strings.TrimPrefix(f[2], "offset="), 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", docPath, mk.line, err)
		}
		a, b := models[f[0]], models[f[1]]
		if a == nil || b == nil || a.Variables() != b.Variables() || a.Variables() > 20 {
			t.Fatalf("%s:%d: %q needs two example files with the same (small) number of variables", docPath, mk.line, mk.arg)
		}
		nv := a.Variables()
		x := make([]uint8, nv)
		for k := 0; k < 1<<nv; k++ {
			for i := range x {
				x[i] = uint8(k >> i & 1)
			}
			if ea, eb := docEnergy(a, x), docEnergy(b, x); !docClose(ea, eb+c) {
				t.Errorf("%s:%d: x = %v: E_%s = %v, E_%s + %v = %v", docPath, mk.line, x, f[0], ea, f[1], c, eb+c)
			}
		}
	}
	if n < 2 {
		t.Errorf("%s has %d same-model claims (expected the QUBO <-> Ising example and the dimod one)", docPath, n)
	}
}

// TestDocFormatsMarkers: the markers the page explains are the ones it uses,
// so a misspelled marker cannot silently go unchecked.
func TestDocFormatsMarkers(t *testing.T) {
	f, err := os.Open(docPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "<!--") && !docMarkerRE.MatchString(l) {
			t.Errorf("%s:%d: unknown marker %q", docPath, n, l)
		}
	}
}
