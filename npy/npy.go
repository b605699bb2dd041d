package npy

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxHeader is the longest .npy header dictionary Split accepts.
const MaxHeader = 1 << 16

// File is a .npy file split into its header's fields and its data.
type File struct {
	Descr   string // dtype, e.g. '<f8' or '|u1'
	Fortran bool   // column-major data
	Shape   []int
	Data    []byte
}

// Split reads a .npy file's header (format versions 1-3); msg is empty
// on success. The data are not checked against the shape.
func Split(raw []byte) (*File, string) {
	const magic = "\x93NUMPY"
	if len(raw) < 6 || string(raw[:6]) != magic {
		return nil, "not an .npy file (expected the \\x93NUMPY magic)"
	}
	if len(raw) < 10 {
		return nil, "truncated .npy header"
	}
	var hlen, start int
	switch raw[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return nil, "truncated header (expected a 4-byte header length)"
		}
		hlen, start = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return nil, fmt.Sprintf(".npy version %d.%d (expected 1.0, 2.0 or 3.0)", raw[6], raw[7])
	}
	if hlen > MaxHeader || start+hlen > len(raw) {
		return nil, fmt.Sprintf("header of %d bytes does not fit the file (expected at most %d)", hlen, min(MaxHeader, len(raw)-start))
	}
	descr, fortran, shape, msg := parseHeader(string(raw[start : start+hlen]))
	if msg != "" {
		return nil, msg
	}
	return &File{Descr: descr, Fortran: fortran, Shape: shape, Data: raw[start+hlen:]}, ""
}

// parseHeader reads the header dictionary, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseHeader(s string) (descr string, fortran bool, shape []int, msg string) {
	p := &pyLit{s: s}
	bad := func(what string) (string, bool, []int, string) {
		return "", false, nil, "bad header: " + what + " (expected {'descr': ..., 'fortran_order': ..., 'shape': (...)})"
	}
	if !p.eat('{') {
		return bad("no '{'")
	}
	got := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return bad("expected 'key':")
		}
		if got[key] {
			return bad("key " + strconv.Quote(key) + " given twice")
		}
		got[key] = true
		switch key {
		case "descr":
			if descr, ok = p.str(); !ok {
				return bad("descr is not a string")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				fortran = true
			case p.word("False"):
				fortran = false
			default:
				return bad("fortran_order is not True or False")
			}
		case "shape":
			if shape, ok = p.tuple(); !ok {
				return bad("shape is not a tuple of integers")
			}
		default:
			return bad("unknown key " + strconv.Quote(key))
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return bad("expected ',' or '}'")
			}
			break
		}
	}
	if !got["descr"] || !got["fortran_order"] || !got["shape"] {
		return bad("missing key")
	}
	if strings.TrimSpace(p.s[p.i:]) != "" {
		return bad("text after '}'")
	}
	return descr, fortran, shape, ""
}

// pyLit scans the small subset of Python literals an .npy header uses.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyLit) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyLit) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyLit) str() (string, bool) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *pyLit) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int{}
	for {
		if p.eat(')') {
			return shape, true
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i || j-p.i > 12 || len(shape) >= 32 {
			return nil, false
		}
		d, _ := strconv.Atoi(p.s[p.i:j])
		p.i = j
		shape = append(shape, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, false
			}
			return shape, true
		}
	}
}

// Header is the start of a NumPy .npy file (format version 1.0) holding a
// C-order array of dtype descr (e.g. "<f8", "<f4", "|u1") and the given
// shape: magic, version, header length, and the header dict padded with
// spaces so that the data starts on a 64-byte boundary, as numpy writes it.
// Every .npy writer of sardonics starts with it.
func Header(descr string, shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	pad := 64 - (10+len(hdr)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr += strings.Repeat(" ", pad) + "\n"
	buf := make([]byte, 10, 10+len(hdr))
	copy(buf, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(hdr)))
	return append(buf, hdr...)
}

// Float is a slice element F8 and F4 encode.
type Float interface{ ~float32 | ~float64 }

// F8 is a C-order float64 array of the given shape as a .npy file.
func F8[T Float](vals []T, shape ...int) []byte {
	b := Header("<f8", shape...)
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
	}
	return b
}

// F4 is F8 with each value rounded to float32 ('<f4').
func F4[T Float](vals []T, shape ...int) []byte {
	b := Header("<f4", shape...)
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	return b
}

// U8Rows is rows of equal length as a C-order uint8 array ('|u1', rows x
// their length).
func U8Rows(rows [][]uint8) []byte {
	b := Header("|u1", len(rows), len(rows[0]))
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
}
