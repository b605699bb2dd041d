package model

import (
	"bytes"
	"testing"
)

// The dense parsers' fuzz targets, with fuzz_test.go's property: no panic,
// every failure an *InputError, every success a valid model that survives
// a write and a second read unchanged.

func FuzzReadDenseNPY(f *testing.F) {
	f.Add(npyBytes("<f8", false, "(2, 2)", []float64{0, 1.5, 1.5, 0}))
	f.Add(npyBytes("<f4", true, "(3, 3)", []float64{0, 0, 0, 1, 0, 0, 0, -2, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadDenseNPY("fuzz.npy", data)
		checkParsed(t, m, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteDenseNPY(&buf, m); err != nil {
			t.Fatalf("cannot write a parsed model: %v", err)
		}
		back, err := ReadDenseNPY("again.npy", buf.Bytes())
		if err != nil || !sameDense(m, back) {
			t.Fatalf("write and read changed the model: %v", err)
		}
	})
}

func FuzzReadDenseNPZ(f *testing.F) {
	var seeds [][]byte
	for _, e := range [][]any{
		{"J.npy", npyBytes("<f8", false, "(2, 2)", []float64{0, 1, 0, 0}), "h.npy", npyBytes("<f8", false, "(2,)", []float64{0.5, -1})},
		{"Q.npy", npyBytes("<f4", false, "(2, 2)", []float64{1, -2, 0, 3})},
	} {
		var b bytes.Buffer
		m, err := ReadDenseNPZ("seed.npz", npzOf(&testing.T{}, 0, e...))
		if err == nil && m.Kind == KindIsing {
			WriteDenseNPZ(&b, m)
		}
		seeds = append(seeds, npzOf(&testing.T{}, 0, e...), b.Bytes())
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadDenseNPZ("fuzz.npz", data)
		checkParsed(t, m, err)
		if err != nil {
			return
		}
		if m.Dense == nil || m.Ising != nil || (m.Kind == KindQUBO) != (m.QUBO != nil) {
			t.Fatalf("kind %v, dense %v", m.Kind, m.Dense != nil)
		}
		if m.Kind == KindQUBO {
			// Its Ising form is FromQUBO's of the same terms.
			want, err := FromQUBO(m.QUBO.N, m.QUBO.Diag, m.QUBO.Off, 0)
			if err != nil || !sameIsing(want, m.Sparse()) {
				t.Fatalf("Q and its terms give different Ising forms: %v", err)
			}
			// Written back (as Q), it is the same QUBO.
			var buf bytes.Buffer
			if err := writeNPZ(&buf, m); err != nil {
				t.Fatalf("cannot write a parsed QUBO: %v", err)
			}
			back, err := ReadDenseNPZ("again.npz", buf.Bytes())
			if err != nil || !sameDense(m, back) || !sameTerms(m.QUBO, back.QUBO) {
				t.Fatalf("write and read changed the QUBO: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteDenseNPZ(&buf, m); err != nil {
			t.Fatalf("cannot write a parsed model: %v", err)
		}
		back, err := ReadDenseNPZ("again.npz", buf.Bytes())
		if err != nil || !sameDense(m, back) {
			t.Fatalf("write and read changed the model: %v", err)
		}
	})
}
