package model

import (
	"bufio"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// lineReader yields the lines of a text file with 1-based numbers.
type lineReader struct {
	name string
	sc   *bufio.Scanner
	line int
	// onComment, if set, sees the fields of every comment line (a
	// comment may carry data a format adds compatibly: .qubo's offset).
	onComment func(f []string) error
}

func newLineReader(name string, r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineLength)
	return &lineReader{name: name, sc: sc}
}

// next returns the next line's fields, skipping blank lines and lines whose
// first field starts with comment. ok is false at the end of the file. A
// UTF-8 byte-order mark at the start of the file (which some editors
// write) is skipped. A comment after the values on a line is an error
// that says so: comments stand on their own line.
func (lr *lineReader) next(comment string) (fields []string, ok bool, err error) {
	for lr.sc.Scan() {
		lr.line++
		text := lr.sc.Text()
		if lr.line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		f := strings.Fields(text)
		if len(f) > 0 && strings.HasPrefix(f[0], comment) && lr.onComment != nil {
			if err := lr.onComment(f); err != nil {
				return nil, false, err
			}
		}
		if len(f) == 0 || strings.HasPrefix(f[0], comment) {
			continue
		}
		if k := trailingComment(f[1:], comment); k >= 0 {
			c := strings.Join(f[1+k:], " ")
			if r := []rune(c); len(r) > 40 {
				c = string(r[:37]) + "..."
			}
			return nil, false, inputErr(lr.name, lr.line, "comment %s after the values (expected comments on their own line, starting with '%s')", strconv.Quote(c), comment)
		}
		return f, true, nil
	}
	if err := lr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, false, inputErr(lr.name, lr.line+1, "line too long (expected at most %d bytes)", maxLineLength)
		}
		return nil, false, inputErr(lr.name, lr.line+1, "read failed: %v (expected a readable file)", err)
	}
	return nil, false, nil
}

// trailingComment is the index of the first of fields that starts a
// comment, or -1: a field starting with the format's comment marker, or
// with one of another common syntax ('#', '%', '//'). No value or header
// field of the text formats starts with any of them.
func trailingComment(fields []string, comment string) int {
	for k, f := range fields {
		for _, c := range []string{comment, "#", "%", "//"} {
			if strings.HasPrefix(f, c) {
				return k
			}
		}
	}
	return -1
}

// parseIndex parses a 0-based index below limit (0 < limit <= MaxVariables).
func parseIndex(tok string, limit int) (int32, string) {
	v, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return 0, "bad index " + strconv.Quote(tok) + " (expected a non-negative integer)"
	}
	if v < 0 || v >= int64(limit) {
		return 0, "index " + tok + " out of range (expected 0.." + strconv.Itoa(limit-1) + ")"
	}
	return int32(v), ""
}

// parseCount parses a count in 0..limit.
func parseCount(what, tok string, limit int) (int, string) {
	v, err := strconv.ParseInt(tok, 10, 64)
	if err != nil || v < 0 {
		return 0, "bad " + what + " " + strconv.Quote(tok) + " (expected a non-negative integer)"
	}
	if v > int64(limit) {
		return 0, what + " " + tok + " too large (expected at most " + strconv.Itoa(limit) + ")"
	}
	return int(v), ""
}

// parseValue parses a finite decimal number. Hex floats, "Inf", "NaN" and
// values that overflow float64 are rejected.
func parseValue(tok string) (float64, string) {
	for _, c := range tok {
		if !strings.ContainsRune("0123456789+-.eE", c) {
			low := strings.ToLower(tok)
			if strings.Contains(low, "nan") || strings.Contains(low, "inf") {
				return 0, "value " + strconv.Quote(tok) + " is not finite (expected a finite decimal number)"
			}
			return 0, "bad number " + strconv.Quote(tok) + " (expected a finite decimal number)"
		}
	}
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0)) {
		if math.IsInf(v, 0) {
			return 0, "value " + tok + " overflows (expected a finite decimal number)"
		}
		return 0, "bad number " + strconv.Quote(tok) + " (expected a finite decimal number)"
	}
	return v, ""
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func pairKey(i, j int32) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(i)<<32 | uint64(j)
}

// ParseText reads the native Ising text format (SPEC section 2): '#'
// comments, an optional count line M, then lines "i j J" (i != j, energy
// -J s_i s_j) and "i i h" (energy -h s_i). Without the count line M is the
// largest index plus one. Blank lines and a leading UTF-8 byte-order mark
// are allowed; a comment after the values of a line is not. Every problem is an
// *InputError naming name and the line.
func ParseText(name string, r io.Reader) (*Model, error) {
	lr := newLineReader(name, r)
	n, limit := 0, MaxVariables
	first := true
	type field struct {
		i int32
		v float64
	}
	var edges []Edge
	var fields []field
	seen := map[uint64]int{}
	maxIdx := int32(-1)
	var size magnitude
	for {
		f, ok, err := lr.next("#")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if first && len(f) == 1 {
			first = false
			c, msg := parseCount("variable count", f[0], MaxVariables)
			if msg != "" {
				return nil, inputErr(name, lr.line, "%s", msg)
			}
			if c == 0 {
				return nil, inputErr(name, lr.line, "variable count 0 (expected at least 1)")
			}
			n, limit = c, c
			continue
		}
		first = false
		if len(f) != 3 {
			return nil, inputErr(name, lr.line, "%d fields (expected \"i j value\")", len(f))
		}
		i, msg := parseIndex(f[0], limit)
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		j, msg := parseIndex(f[1], limit)
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		v, msg := parseValue(f[2])
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		k := pairKey(i, j)
		if prev, dup := seen[k]; dup {
			if i == j {
				return nil, inputErr(name, lr.line, "field on %d given twice (first on line %d)", i, prev)
			}
			return nil, inputErr(name, lr.line, "pair %d-%d given twice (first on line %d)", min(i, j), max(i, j), prev)
		}
		seen[k] = lr.line
		what := "coupling"
		if i == j {
			what = "field"
		}
		if msg := size.add(what, f[2], v); msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		maxIdx = max(maxIdx, i, j)
		if i == j {
			fields = append(fields, field{i, v})
		} else {
			edges = append(edges, Edge{i, j, v})
		}
	}
	if n == 0 {
		if maxIdx < 0 {
			return nil, inputErr(name, lr.line, "no variables (expected a count line or at least one \"i j value\" line)")
		}
		n = int(maxIdx) + 1
	}
	h := make([]float64, n)
	for _, fv := range fields {
		h[fv.i] = fv.v
	}
	is, err := NewIsing(n, edges, h, 0)
	if err != nil {
		return nil, inputErr(name, 0, "%v", err)
	}
	return &Model{Spec: name, Kind: KindIsing, Ising: is}, nil
}
