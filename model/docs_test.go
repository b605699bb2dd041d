package model_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sardonics/internal/docpage"
	"sardonics/model"
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

// readDocMarkers returns the page's markers in order (docpage.Parse).
func readDocMarkers(t *testing.T) []docpage.Marker {
	t.Helper()
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := docpage.Parse(docPath, string(data))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// writeDocFiles writes every file and npz example of the page into dir and
// returns their names in page order.
func writeDocFiles(t *testing.T, markers []docpage.Marker, dir string) []string {
	t.Helper()
	names, err := docpage.WriteFiles(dir, markers, docpage.NPZ)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// docEnergy is E in m's own convention, computed from its source terms
// (QUBO, RBM) or its Ising form, for bits x in the Ising form's order.
func docEnergy(m *model.Model, x []uint8) float64 {
	switch m.Kind {
	case model.KindQUBO:
		e := 0.0
		for i, d := range m.QUBO.Diag {
			e += d * float64(x[i])
		}
		for _, o := range m.QUBO.Off {
			e += o.W * float64(x[o.I]*x[o.J])
		}
		return e
	case model.KindRBM:
		return m.RBM.Energy(x[:m.RBM.V], x[m.RBM.V:])
	}
	return docIsingEnergy(m, x)
}

func docIsingEnergy(m *model.Model, x []uint8) float64 {
	s := make([]int8, len(x))
	for i, b := range x {
		s[i] = int8(2*int(b) - 1)
	}
	return m.Sparse().Energy(s)
}

func docClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(a)) }

func loadDocModels(t *testing.T) (map[string]*model.Model, []docpage.Marker) {
	markers := readDocMarkers(t)
	dir := t.TempDir()
	models := map[string]*model.Model{}
	for _, name := range writeDocFiles(t, markers, dir) {
		if models[name] != nil {
			t.Fatalf("%s: two examples named %s", docPath, name)
		}
		m, err := model.Load(filepath.Join(dir, name))
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
	kinds := map[string]model.Kind{".txt": model.KindIsing, ".qubo": model.KindQUBO, ".npz": model.KindRBM}
	seen := map[model.Kind]bool{}
	for name, m := range models {
		want, ok := kinds[filepath.Ext(name)]
		if !ok || m.Kind != want {
			t.Errorf("%s: example %s loads as %v (expected the kind of its extension)", docPath, name, m.Kind)
		}
		seen[m.Kind] = true
	}
	for _, k := range []model.Kind{model.KindIsing, model.KindQUBO, model.KindRBM} {
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
		if mk.Kind != "energies" {
			continue
		}
		tables++
		f := strings.Fields(mk.Arg)
		m := models[f[0]]
		if m == nil {
			t.Errorf("%s:%d: no example file %s", docPath, mk.Line, f[0])
			continue
		}
		plus, hasPlus := 0.0, false
		for _, opt := range f[1:] {
			v, ok := strings.CutPrefix(opt, "plus=")
			p, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				t.Fatalf("%s:%d: bad option %q (expected plus=NUMBER)", docPath, mk.Line, opt)
			}
			plus, hasPlus = p, true
		}
		stateCols := 1
		if m.Kind == model.KindRBM {
			stateCols = 2 // v, then h
		}
		for k, row := range mk.Block[2:] { // after the header and the separator
			where := fmt.Sprintf("%s:%d", docPath, mk.Line+3+k)
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
func docBit(k model.Kind, tok string) (uint8, bool) {
	if k == model.KindIsing {
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
		if mk.Kind != "same" {
			continue
		}
		n++
		f := strings.Fields(mk.Arg)
		if len(f) != 3 || !strings.HasPrefix(f[2], "offset=") {
			t.Fatalf("%s:%d: %q (expected A B offset=C)", docPath, mk.Line, mk.Arg)
		}
		c, err := strconv.ParseFloat(strings.TrimPrefix(f[2], "offset="), 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", docPath, mk.Line, err)
		}
		a, b := models[f[0]], models[f[1]]
		if a == nil || b == nil || a.Variables() != b.Variables() || a.Variables() > 20 {
			t.Fatalf("%s:%d: %q needs two example files with the same (small) number of variables", docPath, mk.Line, mk.Arg)
		}
		nv := a.Variables()
		x := make([]uint8, nv)
		for k := 0; k < 1<<nv; k++ {
			for i := range x {
				x[i] = uint8(k >> i & 1)
			}
			if ea, eb := docEnergy(a, x), docEnergy(b, x); !docClose(ea, eb+c) {
				t.Errorf("%s:%d: x = %v: E_%s = %v, E_%s + %v = %v", docPath, mk.Line, x, f[0], ea, f[1], c, eb+c)
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
		if strings.HasPrefix(l, "<!--") && !docpage.IsMarker(l) {
			t.Errorf("%s:%d: unknown marker %q", docPath, n, l)
		}
	}
}
