package model

import (
	"bytes"
	"strings"
	"testing"
)

// The fuzz property of every parser: it never panics, every failure is an
// *InputError, and every success is a valid model that survives a write and
// a second parse unchanged.

func checkParsed(t *testing.T, m *Model, err error) {
	t.Helper()
	if err != nil {
		if _, ok := err.(*InputError); !ok {
			t.Fatalf("error %v is a %T (want *InputError)", err, err)
		}
		return
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("parser returned an invalid model: %v", err)
	}
}

func FuzzParseText(f *testing.F) {
	f.Add([]byte("3\n0 1 1\n2 2 -0.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseText("fuzz.txt", bytes.NewReader(data))
		checkParsed(t, m, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, m); err != nil {
			t.Fatalf("cannot write a parsed model: %v", err)
		}
		back, err := ParseText("again.txt", &buf)
		if err != nil || !sameModel(m, back) {
			t.Fatalf("write and parse changed the model: %v", err)
		}
	})
}

func FuzzParseQUBO(f *testing.F) {
	f.Add([]byte("p qubo 0 3 1 1\n0 0 1\n1 2 -2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseQUBO("fuzz.qubo", bytes.NewReader(data))
		checkParsed(t, m, err)
		if err != nil {
			return
		}
		if m.Kind != KindQUBO || m.QUBO == nil {
			t.Fatalf("kind %v", m.Kind)
		}
		var buf bytes.Buffer
		if err := WriteQUBO(&buf, m); err != nil {
			t.Fatalf("cannot write a parsed model: %v", err)
		}
		back, err := ParseQUBO("again.qubo", strings.NewReader(buf.String()))
		if err != nil {
			t.Fatalf("cannot parse a written model: %v\n%s", err, buf.String())
		}
		// Zero diagonal terms are not written, so compare the Ising forms.
		if !sameIsing(m.Ising, back.Ising) {
			t.Fatalf("write and parse changed the model")
		}
	})
}

func FuzzReadNPZ(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadNPZ("fuzz.npz", data)
		checkParsed(t, m, err)
		if err != nil {
			return
		}
		if m.Kind != KindRBM || m.RBM == nil {
			t.Fatalf("kind %v", m.Kind)
		}
		var buf bytes.Buffer
		if err := WriteNPZ(&buf, m.RBM); err != nil {
			t.Fatal(err)
		}
		back, err := ReadNPZ("again.npz", buf.Bytes())
		if err != nil || !sameModel(m, back) {
			t.Fatalf("write and read changed the model: %v", err)
		}
	})
}

// FuzzParseNPY reaches the .npy decoder directly: inside an archive, most
// mutations only break the zip's checksums.
func FuzzParseNPY(f *testing.F) {
	f.Add([]byte("\x93NUMPY\x01\x00\x46\x00{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }          \n" +
		"\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40"))
	f.Add([]byte("\x93NUMPY\x02\x00\x39\x00\x00\x00{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1)}\n\x00\x00\x80\x3f\x00\x00\x00\x40"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, msg := parseNPY(data)
		if msg != "" {
			return
		}
		n := 1
		for _, d := range a.shape {
			n *= d
		}
		if n != len(a.vals) || n > MaxRBMWeights {
			t.Fatalf("shape %v with %d values", a.shape, len(a.vals))
		}
	})
}
