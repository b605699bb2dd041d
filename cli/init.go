package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// readInit reads the starting states of --init FILE for a model of n
// variables and a run of trials trials: a NumPy .npy array of uint8 bits
// (0 for -1, 1 for +1; shape (rows, n) or (n,), as --save-states writes) or
// a text file of +1/-1 values, whitespace-separated, one row per line,
// blank lines and '#' comments ignored. It holds one row, every trial's
// start, or exactly trials rows, row i the start of trial --trial-offset +
// i. Any other shape is a usage error naming the file (and line).
func readInit(path string, n, trials int) ([][]int8, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--init: %v", err)
	}
	var rows [][]int8
	if bytes.HasPrefix(raw, []byte(npyMagic)) {
		rows, err = parseInitNPY(path, raw, n)
	} else {
		rows, err = parseInitText(path, raw, n)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 && len(rows) != trials {
		hint := ""
		if len(rows) > trials {
			hint = "; a states.npy of --save-states holds every kept step: the one of a run with --burn STEPS-1 holds only its last state"
		}
		return nil, usagef("--init %s: %d rows (expected 1 row, the start of every trial, or %d, one per trial of --trials %d)%s",
			path, len(rows), trials, trials, hint)
	}
	return rows, nil
}

// parseInitText reads rows of +1/-1 values.
func parseInitText(path string, raw []byte, n int) ([][]int8, error) {
	var rows [][]int8
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), len(raw)+1)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != n {
			return nil, usagef("--init %s:%d: %d values (expected %d, one +1 or -1 per variable of the model)", path, line, len(f), n)
		}
		row := make([]int8, n)
		for i, v := range f {
			switch v {
			case "1", "+1":
				row[i] = 1
			case "-1":
				row[i] = -1
			default:
				return nil, usagef("--init %s:%d: value %d is %q (expected +1 or -1)", path, line, i+1, v)
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("--init %s: %v", path, err)
	}
	if len(rows) == 0 {
		return nil, usagef("--init %s: no rows (expected lines of +1/-1 values, or a .npy of uint8 bits)", path)
	}
	return rows, nil
}

// parseInitNPY reads a .npy array of 0/1 bytes (uint8 or bool).
func parseInitNPY(path string, raw []byte, n int) ([][]int8, error) {
	bad := func(format string, a ...any) error {
		return usagef("--init %s: %s", path, fmt.Sprintf(format, a...))
	}
	if len(raw) < 10 {
		return nil, bad("truncated .npy header")
	}
	var hlen, start int
	switch raw[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return nil, bad("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return nil, bad(".npy version %d.%d (expected 1.0, 2.0 or 3.0)", raw[6], raw[7])
	}
	if hlen > len(raw)-start {
		return nil, bad("truncated .npy header (%d bytes announced, %d there)", hlen, len(raw)-start)
	}
	descr, fortran, shape, err := npyHeader(string(raw[start : start+hlen]))
	if err != nil {
		return nil, bad("%v", err)
	}
	switch descr {
	case "|u1", "<u1", ">u1", "=u1", "u1", "|b1", "b1":
	default:
		return nil, bad("dtype %q (expected uint8 '|u1' bits, as --save-states writes)", descr)
	}
	rows, cols := 1, 0
	switch len(shape) {
	case 1:
		cols = shape[0]
	case 2:
		rows, cols = shape[0], shape[1]
	default:
		return nil, bad("shape %v (expected (rows, %d) or (%d,))", shape, n, n)
	}
	if cols != n {
		return nil, bad("rows of %d values (expected %d, one per variable of the model)", cols, n)
	}
	body := raw[start+hlen:]
	if rows == 0 || n == 0 {
		return nil, bad("no rows")
	}
	if rows > len(body)/n || len(body) != rows*n {
		return nil, bad("%d bytes of data (expected %d x %d for shape (%d, %d))", len(body), rows, n, rows, n)
	}
	out := make([][]int8, rows)
	for r := range out {
		out[r] = make([]int8, n)
		for i := range n {
			k := r*n + i
			if fortran {
				k = i*rows + r
			}
			switch body[k] {
			case 0:
				out[r][i] = -1
			case 1:
				out[r][i] = 1
			default:
				return nil, bad("row %d, column %d holds %d (expected 0 for -1 or 1 for +1)", r, i, body[k])
			}
		}
	}
	return out, nil
}

// npyHeader reads the dictionary of a .npy header, e.g.
// {'descr': '|u1', 'fortran_order': False, 'shape': (3, 16), }.
func npyHeader(h string) (descr string, fortran bool, shape []int, err error) {
	s := strings.TrimSpace(h)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return "", false, nil, fmt.Errorf("bad .npy header %q", h)
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	seen := map[string]bool{}
	for s != "" {
		// 'key': value
		q := s[0]
		if q != '\'' && q != '"' {
			return "", false, nil, fmt.Errorf("bad .npy header %q", h)
		}
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", false, nil, fmt.Errorf("bad .npy header %q", h)
		}
		key := s[1 : 1+end]
		s = strings.TrimSpace(s[2+end:])
		if !strings.HasPrefix(s, ":") {
			return "", false, nil, fmt.Errorf("bad .npy header %q", h)
		}
		s = strings.TrimSpace(s[1:])
		var val string
		switch {
		case strings.HasPrefix(s, "("):
			e := strings.IndexByte(s, ')')
			if e < 0 {
				return "", false, nil, fmt.Errorf("bad .npy header %q", h)
			}
			val, s = s[:e+1], s[e+1:]
		case strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`):
			e := strings.IndexByte(s[1:], s[0])
			if e < 0 {
				return "", false, nil, fmt.Errorf("bad .npy header %q", h)
			}
			val, s = s[1:1+e], s[2+e:]
		default:
			e := strings.IndexByte(s, ',')
			if e < 0 {
				e = len(s)
			}
			val, s = strings.TrimSpace(s[:e]), s[e:]
		}
		s = strings.TrimSpace(s)
		s = strings.TrimSpace(strings.TrimPrefix(s, ","))
		seen[key] = true
		switch key {
		case "descr":
			descr = val
		case "fortran_order":
			switch val {
			case "True":
				fortran = true
			case "False":
			default:
				return "", false, nil, fmt.Errorf("bad .npy header: fortran_order %s (expected True or False)", val)
			}
		case "shape":
			inner := strings.TrimSuffix(strings.TrimPrefix(val, "("), ")")
			for _, f := range strings.Split(inner, ",") {
				if f = strings.TrimSpace(f); f == "" {
					continue
				}
				d, err := strconv.Atoi(f)
				if err != nil || d < 0 {
					return "", false, nil, fmt.Errorf("bad .npy header: shape %s", val)
				}
				shape = append(shape, d)
			}
		}
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return "", false, nil, fmt.Errorf("bad .npy header %q (expected descr, fortran_order and shape)", h)
	}
	return descr, fortran, shape, nil
}
