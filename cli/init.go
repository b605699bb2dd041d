package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"sardonics/npy"
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
		raw := sc.Text()
		if line == 1 { // a byte order mark, as editors on Windows write (the model readers skip it too)
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		text, _, _ := strings.Cut(raw, "#")
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
	f, msg := npy.Split(raw)
	if msg != "" {
		return nil, bad("%s", msg)
	}
	descr, fortran, shape := f.Descr, f.Fortran, f.Shape
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
	body := f.Data
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
