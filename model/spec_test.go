package model

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestLoadSpecs(t *testing.T) {
	for _, tc := range []struct {
		spec string
		kind Kind
		n    int
		desc string
	}{
		{"ferro2d:L=60", KindIsing, 3600, "ferro2d:L=60: 3600 variables, 7200 interactions"},
		{"frustrated2d:L=4,seed=9", KindIsing, 16, "frustrated2d:L=4,seed=9: 16 variables, 32 interactions"},
		{"spinglass3d:L=9,seed=3", KindIsing, 729, ""},
		{"chimera:M=4,N=4,T=4", KindIsing, 128, "chimera:M=4,N=4,T=4: 128 variables, 352 interactions"},
		{"chimera:T=2,N=3,M=1,seed=4,J=pm1,h=pm1", KindIsing, 12, ""},
		{"chimera:M=1,N=1,T=1,J=uniform,h=0", KindIsing, 2, ""},
		{"rbm-random:V=784,H=500,seed=2,scale=0.1", KindRBM, 1284,
			"rbm-random:V=784,H=500,seed=2,scale=0.1: 1284 variables (784 visible, 500 hidden), 392000 interactions"},
		{"rbm-random:H=3,V=4,scale=0", KindRBM, 7, ""},
	} {
		m := mustLoad(t, tc.spec)
		if m.Spec != tc.spec || m.Kind != tc.kind || m.Variables() != tc.n {
			t.Errorf("%s: spec %q, kind %v, %d variables (want %v, %d)", tc.spec, m.Spec, m.Kind, m.Variables(), tc.kind, tc.n)
		}
		if tc.desc != "" && m.Describe() != tc.desc {
			t.Errorf("Describe() = %q (want %q)", m.Describe(), tc.desc)
		}
	}
	// Key order does not matter; the instance is the same.
	if modelHash(mustLoad(t, "chimera:M=2,N=3,T=4,seed=5")) != modelHash(mustLoad(t, "chimera:seed=5,T=4,N=3,M=2")) {
		t.Errorf("key order changes the chimera instance")
	}
}

func TestLoadSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"ferro2d", "--model: ferro2d: missing key L (expected ferro2d:L=60)"},
		{"ferro2d:L=2", "--model: ferro2d: L=2 (expected an integer in 3.."},
		{"ferro2d:L=abc", "L=abc (expected an integer in 3.."},
		{"ferro2d:L=60,seed=1", "ferro2d: unknown key \"seed\" (expected L)"},
		{"frustrated2d:L=4,L=5", "key L given twice"},
		{"frustrated2d:L=4,", "bad item \"\" (expected key=value"},
		{"frustrated2d:L=4,seed", "bad item \"seed\""},
		{"frustrated2d:L=4,seed=-1", "seed=-1 (expected an integer in 0..18446744073709551615)"},
		{"spinglass3d:L=100000", "spinglass3d: L=100000 gives more than 4194304 variables"},
		{"chimera:M=4,N=4", "chimera: missing key T"},
		{"chimera:M=4,N=4,T=0", "chimera: T=0 (expected an integer in 1.."},
		{"chimera:M=4,N=4,T=4,J=gauss", "chimera: J=gauss (expected J=pm1 or J=uniform)"},
		{"chimera:M=4,N=4,T=4,h=1", "chimera: h=1 (expected h=pm1 or h=0)"},
		{"chimera:M=4000,N=4000,T=4", "gives more than"},
		{"rbm-random:V=10", "rbm-random: missing key H"},
		{"rbm-random:V=10,H=10,scale=-1", "scale=-1 (expected a finite number >= 0)"},
		{"rbm-random:V=10,H=10,scale=nan", "scale=nan"},
		{"rbm-random:V=10,H=10,scale=1e300", "rbm-random: scale=1e+300 gives weights whose magnitudes sum to 7.81875e+301"},
		{"rbm-random:V=10,H=10,scale=1e308", "sum to more than 1.7976931348623157e+308 (expected at most 1e+15, the largest |energy| a model may reach: here scale <= 1.27e+13)"},
		{"rbm-random:V=100000,H=100000", "too large"},
		{"rbm:", "rbm: no path (expected rbm:PATH.npz)"},
		{"paper-rbm:x=1", "paper-rbm takes no keys"},
		{"isingchain:L=3", "unknown model \"isingchain:L=3\" (expected one of ferro2d:L=60"},
		{"", "unknown model \"\""},
		{"nonexistent.txt", "nonexistent.txt: cannot read: no such file or directory"},
		{"rbm:nonexistent.npz", "nonexistent.npz: cannot read"},
	} {
		_, err := Load(tc.spec)
		wantInputError(t, err, tc.want)
	}
}

func TestLoadPaperRBM(t *testing.T) {
	defer func(f func() (*Model, error)) { PaperRBM = f }(PaperRBM)
	PaperRBM = nil
	_, err := Load("paper-rbm")
	wantInputError(t, err, "--model: paper-rbm: the bundled RBM is not available")
	PaperRBM = func() (*Model, error) { return RandomRBM(3, 2, 1, 0.1) }
	m, err := Load("paper-rbm")
	if err != nil || m.Spec != "paper-rbm" || m.Kind != KindRBM {
		t.Fatalf("got %v, %v", m, err)
	}
	PaperRBM = func() (*Model, error) { return nil, errors.New("boom") }
	if _, err := Load("paper-rbm"); err == nil || err.Error() != "boom" {
		t.Errorf("PaperRBM's error lost: %v", err)
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "a.txt")
	os.WriteFile(txt, []byte("3\n0 1 2\n"), 0o644)
	qubo := filepath.Join(dir, "a.QUBO")
	os.WriteFile(qubo, []byte("p qubo 0 2 1 1\n1 1 3\n0 1 -1\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0 1 2\n1 0 3\n"), 0o644)
	rbm := mustLoad(t, "rbm-random:V=4,H=3")
	npz := filepath.Join(dir, "r.npz")
	if err := Write(rbm, npz); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		kind Kind
		n    int
	}{{txt, KindIsing, 3}, {qubo, KindQUBO, 2}, {npz, KindRBM, 7}, {"rbm:" + npz, KindRBM, 7}} {
		m := mustLoad(t, tc.spec)
		if m.Kind != tc.kind || m.Variables() != tc.n || m.Spec != tc.spec {
			t.Errorf("%s: kind %v, %d variables, spec %q", tc.spec, m.Kind, m.Variables(), m.Spec)
		}
		if tc.kind == KindRBM && !sameModel(m, rbm) {
			t.Errorf("%s: RBM changed through the file", tc.spec)
		}
	}
	_, err := Load(bad)
	wantInputError(t, err, bad+":2: pair 0-1 given twice (first on line 1)")
	if !strings.HasPrefix(err.Error(), bad) {
		t.Errorf("error does not start with the path: %v", err)
	}
}

// TestSpecForms (issue 31): SpecForms, which help and the error for an
// unknown spec list, names every generator and file format Load knows,
// and Load accepts each form as written (optional keys left out; a file
// form is read, and only fails for want of the file).
func TestSpecForms(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range SpecForms {
		name, _, _ := strings.Cut(f.Form, ":")
		if p, ok := strings.CutPrefix(f.Form, "PATH"); ok {
			name = p
		}
		listed[name] = true
		if !strings.Contains(Specs, f.Form) {
			t.Errorf("Specs lacks %s", f.Form)
		}
		spec := regexp.MustCompile(`\[[^]]*\]`).ReplaceAllString(f.Form, "")
		spec = strings.ReplaceAll(spec, "PATH", filepath.Join(t.TempDir(), "none"))
		_, err := Load(spec)
		switch {
		case strings.Contains(f.Form, "PATH"):
			wantInputError(t, err, "none"+filepath.Ext(spec)+": cannot read: no such file")
		case name == "paper-rbm" && PaperRBM == nil:
			wantInputError(t, err, "paper-rbm: the bundled RBM is not available")
		case err != nil:
			t.Errorf("%s (as %s): %v", f.Form, spec, err)
		}
	}
	for name := range generatorKeys {
		if !listed[name] {
			t.Errorf("generator %s is not in SpecForms", name)
		}
	}
	for _, f := range fileFormats {
		if !listed[f.ext] {
			t.Errorf("file format PATH%s is not in SpecForms", f.ext)
		}
	}
	for _, name := range []string{"rbm", "paper-rbm"} {
		if !listed[name] {
			t.Errorf("%s is not in SpecForms", name)
		}
	}
	if len(listed) != len(SpecForms) {
		t.Errorf("SpecForms lists a form twice")
	}
}

// TestREADMEListsSpecForms (issue 31): the README's list of models names
// every form of SpecForms (files as FILE.EXT).
func TestREADMEListsSpecForms(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(b), "Models (`--model`")
	list, _, ok2 := strings.Cut(list, "Temperatures:")
	if !ok || !ok2 {
		t.Fatal("README has no Models (`--model` ... Temperatures: paragraph")
	}
	for _, f := range SpecForms {
		want := "`" + strings.Replace(f.Form, "PATH", "FILE", 1)
		if name, _, ok := strings.Cut(f.Form, ":"); ok && !strings.HasPrefix(f.Form, "rbm:") {
			want = "`" + name + ":" // generators: keys as the README writes them
		}
		if !strings.Contains(list, want) {
			t.Errorf("README's models do not name %s (want %q)", f.Form, want)
		}
	}
}

// TestFile: the file a spec reads, for every file form, and none for a
// generator.
func TestFile(t *testing.T) {
	for spec, want := range map[string]string{
		"a.txt": "a.txt", "d/b.QUBO": "d/b.QUBO", "r.npz": "r.npz", "j.npy": "j.npy", "rbm:w.npz": "w.npz",
		"ferro2d:L=4": "", "sk:N=10": "", "paper-rbm": "", "x.csv": "",
	} {
		if got := File(spec); got != want {
			t.Errorf("File(%q) = %q, want %q", spec, got, want)
		}
	}
}
