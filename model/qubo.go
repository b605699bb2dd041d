package model

import (
	"io"
)

// ParseQUBO reads the qbsolv format (SPEC section 2): 'c' comment lines (one
// of which may be "c offset VALUE", the constant term, which qbsolv reads
// as a comment), the
// header "p qubo TARGET maxDiagonals nDiagonals nElements" (TARGET is read
// and ignored; qbsolv writes 0), then exactly nDiagonals lines "i i Q_ii"
// followed by exactly nElements lines "i j Q_ij" with i < j. maxDiagonals is
// the number of variables. The model is KindQUBO with its source terms kept
// in Model.QUBO (off-diagonal terms in file order). As in ParseText, a
// leading UTF-8 byte-order mark is skipped and a comment after the values
// of a line is an error.
func ParseQUBO(name string, r io.Reader) (*Model, error) {
	lr := newLineReader(name, r)
	const want = "\"p qubo 0 maxDiagonals nDiagonals nElements\""
	offset, offsetLine := 0.0, 0
	lr.onComment = func(f []string) error {
		if f[0] != "c" || len(f) < 2 || f[1] != "offset" {
			return nil
		}
		if len(f) != 3 {
			return inputErr(name, lr.line, "offset line with %d fields (expected \"c offset VALUE\")", len(f))
		}
		if offsetLine > 0 {
			return inputErr(name, lr.line, "offset given twice (first on line %d)", offsetLine)
		}
		v, msg := parseValue(f[2])
		if msg != "" {
			return inputErr(name, lr.line, "offset: %s", msg)
		}
		offset, offsetLine = v, lr.line
		return nil
	}
	f, ok, err := lr.next("c")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, inputErr(name, lr.line, "missing header (expected %s)", want)
	}
	if len(f) != 6 || f[0] != "p" || f[1] != "qubo" {
		return nil, inputErr(name, lr.line, "bad header (expected %s)", want)
	}
	headerLine := lr.line
	n, msg := parseCount("maxDiagonals", f[3], MaxVariables)
	if msg == "" && n == 0 {
		msg = "maxDiagonals 0 (expected at least 1 variable)"
	}
	if msg != "" {
		return nil, inputErr(name, lr.line, "%s", msg)
	}
	nDiag, msg := parseCount("nDiagonals", f[4], n)
	if msg != "" {
		return nil, inputErr(name, lr.line, "%s", msg)
	}
	nElem, msg := parseCount("nElements", f[5], n*(n-1)/2)
	if msg != "" {
		return nil, inputErr(name, lr.line, "%s", msg)
	}
	q := &QUBO{N: n, Diag: make([]float64, n)}
	seen := map[uint64]int{}
	var size magnitude
	for k := 0; ; k++ {
		f, ok, err := lr.next("c")
		if err != nil {
			return nil, err
		}
		if !ok {
			if k < nDiag+nElem {
				return nil, inputErr(name, lr.line, "file ends after %d of %d terms (expected %d diagonal and %d off-diagonal lines, as the header on line %d says)",
					k, nDiag+nElem, nDiag, nElem, headerLine)
			}
			break
		}
		if k >= nDiag+nElem {
			return nil, inputErr(name, lr.line, "extra line after %d terms (expected %d diagonal and %d off-diagonal lines, as the header on line %d says)",
				k, nDiag, nElem, headerLine)
		}
		if len(f) != 3 {
			return nil, inputErr(name, lr.line, "%d fields (expected \"i j value\")", len(f))
		}
		i, msg := parseIndex(f[0], n)
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		j, msg := parseIndex(f[1], n)
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		v, msg := parseValue(f[2])
		if msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		switch {
		case k < nDiag && i != j:
			return nil, inputErr(name, lr.line, "off-diagonal term %d-%d among the diagonal lines (expected %d lines \"i i Q_ii\" first, as the header on line %d says)",
				i, j, nDiag, headerLine)
		case k >= nDiag && i == j:
			return nil, inputErr(name, lr.line, "diagonal term %d-%d among the off-diagonal lines (expected i < j)", i, j)
		case i > j:
			return nil, inputErr(name, lr.line, "pair %d-%d out of order (expected i < j)", i, j)
		}
		key := pairKey(i, j)
		if prev, dup := seen[key]; dup {
			if i == j {
				return nil, inputErr(name, lr.line, "diagonal %d given twice (first on line %d)", i, prev)
			}
			return nil, inputErr(name, lr.line, "pair %d-%d given twice (first on line %d)", i, j, prev)
		}
		seen[key] = lr.line
		if msg := size.add("term", f[2], v); msg != "" {
			return nil, inputErr(name, lr.line, "%s", msg)
		}
		if i == j {
			q.Diag[i] = v
		} else {
			q.Off = append(q.Off, Edge{i, j, v})
		}
	}
	if msg := size.add("offset", "", offset); msg != "" {
		return nil, inputErr(name, offsetLine, "%s", msg)
	}
	q.Offset = offset
	is, err := FromQUBO(n, q.Diag, q.Off, q.Offset)
	if err != nil {
		return nil, inputErr(name, 0, "%v", err)
	}
	return &Model{Spec: name, Kind: KindQUBO, Ising: is, QUBO: q}, nil
}
