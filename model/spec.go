package model

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PaperRBM loads the bundled RBM for the spec "paper-rbm". It is set by the
// package that embeds the trained weights; while nil, "paper-rbm" is an error.
var PaperRBM func() (*Model, error)

// SpecForm is one form of --model spec.
type SpecForm struct {
	Form string // as written, optional keys in brackets: "sk:N=1000[,seed=S][,J=gauss|pm1]"
	What string // what it names, in a few words
}

// SpecForms are the --model forms Load accepts, in the order help texts
// list them: the one list that help, the error for an unknown spec and the
// README follow (TestSpecForms loads each form and checks that every
// generator and file extension Load knows is listed).
var SpecForms = []SpecForm{
	{"ferro2d:L=60", "L x L ferromagnet on a torus"},
	{"frustrated2d:L=60[,seed=S]", "L x L torus, J and h uniform on {-1,+1}"},
	{"spinglass2d:L=32[,seed=S]", "L x L torus, J uniform on {-1,+1}, h = 0 (2D +-J glass)"},
	{"spinglass3d:L=9[,seed=S]", "L^3 torus, J uniform on {-1,+1}"},
	{"chimera:M=4,N=4,T=4[,seed=S][,J=pm1][,h=pm1]", "D-Wave chimera graph C(M,N,T), J uniform on [-1,1]"},
	{"sk:N=1000[,seed=S][,J=gauss|pm1]", "Sherrington-Kirkpatrick glass, J = z/sqrt(N) on every pair (dense)"},
	{"rbm:PATH.npz", "RBM: arrays W (V x H), b (V), c (H)"},
	{"rbm-random:V=784,H=500[,seed=S][,scale=0.1]", "RBM with N(0, scale^2) weights"},
	{"paper-rbm", "the bundled 784 x 500 RBM"},
	{"PATH.txt", "native Ising text format"},
	{"PATH.qubo", "QUBO, qbsolv format"},
	{"PATH.npz", "RBM (W, b, c), or dense Ising (J, optional h) or QUBO (Q)"},
	{"PATH.npy", "dense Ising coupling matrix J (N x N)"},
}

// Specs lists the accepted --model forms in one line, for error messages.
var Specs = func() string {
	forms := make([]string, len(SpecForms))
	for i, f := range SpecForms {
		forms[i] = f.Form
	}
	return strings.Join(forms, ", ")
}()

// fileFormats are the model files Load reads, by extension (any case).
var fileFormats = []struct {
	ext  string
	read func(name string, data []byte) (*Model, error)
}{
	{".txt", textReader(ParseText)},
	{".qubo", textReader(ParseQUBO)},
	{".npz", func(name string, data []byte) (*Model, error) {
		if HasDenseArrays(data) {
			return ReadDenseNPZ(name, data)
		}
		return ReadNPZ(name, data)
	}},
	{".npy", ReadDenseNPY},
}

// File is the file a --model spec reads ("rbm:PATH", or a name with the
// extension of a model file), or "" for a generated model.
func File(spec string) string {
	if p, ok := strings.CutPrefix(spec, "rbm:"); ok {
		return p
	}
	ext := strings.ToLower(filepath.Ext(spec))
	for _, f := range fileFormats {
		if f.ext == ext {
			return spec
		}
	}
	return ""
}

// Load builds the model a --model spec names (SPEC section 2). Generator
// keys default to seed=1 and scale=0.1; every other key is required. Files
// are read by extension: .txt (native Ising), .qubo (qbsolv), .npz (RBM, or
// a dense model's J and h or Q), .npy (a dense J). SpecForms lists them all.
// Every problem is an *InputError: File is "--model" for spec problems and
// the path for file problems. Model.Spec is spec.
func Load(spec string) (*Model, error) {
	m, err := load(spec)
	if err != nil {
		return nil, err
	}
	m.Spec = spec
	m.OnGrid()
	return m, nil
}

func load(spec string) (*Model, error) {
	name, rest, hasColon := strings.Cut(spec, ":")
	switch name {
	case "ferro2d", "frustrated2d", "spinglass2d", "spinglass3d", "chimera", "rbm-random", "sk":
		if !hasColon {
			rest = ""
		}
		kv, err := parseKeys(name, rest)
		if err != nil {
			return nil, err
		}
		return generate(name, kv)
	case "rbm":
		if !hasColon || rest == "" {
			return nil, specErr("rbm: no path (expected rbm:PATH.npz)")
		}
		return loadFile(rest, ReadNPZ)
	case "paper-rbm":
		if hasColon {
			return nil, specErr("paper-rbm takes no keys (expected paper-rbm)")
		}
		if PaperRBM == nil {
			return nil, specErr("paper-rbm: the bundled RBM is not available in this build (expected rbm:PATH.npz or rbm-random:...)")
		}
		m, err := PaperRBM()
		if err == nil && m == nil {
			err = specErr("paper-rbm: the bundled RBM loader returned no model (expected an RBM)")
		}
		return m, err
	}
	ext := strings.ToLower(filepath.Ext(spec))
	for _, f := range fileFormats {
		if f.ext == ext {
			return loadFile(spec, f.read)
		}
	}
	return nil, specErr("unknown model %q (expected one of %s)", spec, Specs)
}

func specErr(format string, args ...any) *InputError { return inputErr("--model", 0, format, args...) }

func textReader(parse func(string, io.Reader) (*Model, error)) func(string, []byte) (*Model, error) {
	return func(name string, data []byte) (*Model, error) { return parse(name, bytes.NewReader(data)) }
}

func loadFile(path string, parse func(string, []byte) (*Model, error)) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputErr(path, 0, "cannot read: %v (expected a readable model file)", err)
	}
	return parse(path, data)
}

// keyInfo describes the keys of one generator.
var generatorKeys = map[string]struct {
	required, optional []string
}{
	"ferro2d":      {[]string{"L"}, nil},
	"frustrated2d": {[]string{"L"}, []string{"seed"}},
	"spinglass2d":  {[]string{"L"}, []string{"seed"}},
	"spinglass3d":  {[]string{"L"}, []string{"seed"}},
	"chimera":      {[]string{"M", "N", "T"}, []string{"seed", "J", "h"}},
	"rbm-random":   {[]string{"V", "H"}, []string{"seed", "scale"}},
	"sk":           {[]string{"N"}, []string{"seed", "J"}},
}

func parseKeys(name, rest string) (map[string]string, error) {
	keys := generatorKeys[name]
	allowed := append(append([]string(nil), keys.required...), keys.optional...)
	kv := map[string]string{}
	if rest != "" {
		for _, item := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(item, "=")
			if !ok || k == "" || v == "" {
				return nil, specErr("%s: bad item %q (expected key=value with keys %s)", name, item, strings.Join(allowed, ", "))
			}
			if !contains(allowed, k) {
				return nil, specErr("%s: unknown key %q (expected %s)", name, k, strings.Join(allowed, ", "))
			}
			if _, dup := kv[k]; dup {
				return nil, specErr("%s: key %s given twice (expected each key once)", name, k)
			}
			kv[k] = v
		}
	}
	for _, k := range keys.required {
		if _, ok := kv[k]; !ok {
			return nil, specErr("%s: missing key %s (expected %s:%s)", name, k, name, example(name))
		}
	}
	return kv, nil
}

func example(name string) string {
	return map[string]string{
		"ferro2d": "L=60", "frustrated2d": "L=60,seed=1", "spinglass2d": "L=32,seed=1", "spinglass3d": "L=9,seed=1",
		"chimera": "M=4,N=4,T=4,seed=1", "rbm-random": "V=784,H=500,seed=1,scale=0.1",
		"sk": "N=1000,seed=1",
	}[name]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func generate(name string, kv map[string]string) (*Model, error) {
	intKey := func(k string) (int, error) {
		lo := int64(1)
		if k == "L" {
			lo = 3 // see checkTorus
		}
		v, err := strconv.ParseInt(kv[k], 10, 64)
		if err != nil || v < lo || v > MaxVariables {
			return 0, specErr("%s: %s=%s (expected an integer in %d..%d)", name, k, kv[k], lo, MaxVariables)
		}
		return int(v), nil
	}
	seed := uint64(defaultSeed)
	if s, ok := kv["seed"]; ok {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, specErr("%s: seed=%s (expected an integer in 0..%d)", name, s, uint64(math.MaxUint64))
		}
		seed = v
	}
	switch name {
	case "ferro2d", "frustrated2d", "spinglass2d", "spinglass3d":
		l, err := intKey("L")
		if err != nil {
			return nil, err
		}
		switch name {
		case "ferro2d":
			return Ferro2D(l)
		case "frustrated2d":
			return Frustrated2D(l, seed)
		case "spinglass2d":
			return SpinGlass2D(l, seed)
		}
		return SpinGlass3D(l, seed)
	case "chimera":
		var mnt [3]int
		for i, k := range []string{"M", "N", "T"} {
			v, err := intKey(k)
			if err != nil {
				return nil, err
			}
			mnt[i] = v
		}
		var opt ChimeraOptions
		for _, k := range []string{"J", "h"} {
			v, ok := kv[k]
			if !ok {
				continue
			}
			def := map[string]string{"J": "uniform", "h": "0"}[k]
			if v != "pm1" && v != def {
				return nil, specErr("chimera: %s=%s (expected %s=pm1 or %s=%s)", k, v, k, k, def)
			}
			if k == "J" {
				opt.PM1J = v == "pm1"
			} else {
				opt.PM1H = v == "pm1"
			}
		}
		return Chimera(mnt[0], mnt[1], mnt[2], seed, opt)
	case "sk":
		n, err := intKey("N")
		if err != nil {
			return nil, err
		}
		pm := false
		if v, ok := kv["J"]; ok {
			if v != "gauss" && v != "pm1" {
				return nil, specErr("sk: J=%s (expected J=gauss or J=pm1)", v)
			}
			pm = v == "pm1"
		}
		return SK(n, seed, pm)
	}
	v, err := intKey("V")
	if err != nil {
		return nil, err
	}
	h, err := intKey("H")
	if err != nil {
		return nil, err
	}
	scale := 0.1
	if s, ok := kv["scale"]; ok {
		x, msg := parseValue(s)
		if msg != "" || x < 0 {
			return nil, specErr("rbm-random: scale=%s (expected a finite number >= 0)", s)
		}
		scale = x
	}
	return RandomRBM(v, h, seed, scale)
}
