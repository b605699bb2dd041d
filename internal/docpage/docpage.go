package docpage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sardonics/model"
)

// Marker is one marker of a page with the block after it: the lines of a
// fenced block (file, npz, output) or of a table (energies); none for same;
// for begin, the lines up to its end marker (a generated block, whose Arg
// names its sources: see Generated).
type Marker struct {
	Kind, Arg string
	Line      int // 1-based line of the marker
	Block     []string
}

var markerRE = regexp.MustCompile(`^<!-- (file|npz|energies|same|output|begin|end): (.+?) -->$`)

// IsMarker reports whether line (trimmed) is a marker of a known kind.
func IsMarker(line string) bool { return markerRE.MatchString(strings.TrimSpace(line)) }

// Parse returns the markers of page in order; name is the page's name in
// errors.
func Parse(name, page string) ([]Marker, error) {
	lines := strings.Split(strings.ReplaceAll(page, "\r\n", "\n"), "\n")
	var out []Marker
	for i := 0; i < len(lines); i++ {
		m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		mk := Marker{Kind: m[1], Arg: m[2], Line: i + 1}
		switch mk.Kind {
		case "file", "npz", "output":
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				return nil, fmt.Errorf("%s:%d: marker %q is not followed by a fenced block", name, i+1, lines[i])
			}
			j := i + 2
			for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
				mk.Block = append(mk.Block, lines[j])
			}
			if j == len(lines) {
				return nil, fmt.Errorf("%s:%d: unclosed fenced block", name, i+2)
			}
			i = j
		case "energies":
			j := i + 1
			for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
				mk.Block = append(mk.Block, lines[j])
			}
			if len(mk.Block) < 3 {
				return nil, fmt.Errorf("%s:%d: marker %q is not followed by a table with a header and rows", name, i+1, lines[i])
			}
			i = j - 1
		case "begin":
			end := "<!-- end: " + mk.Arg + " -->"
			j := i + 1
			for ; j < len(lines) && strings.TrimSpace(lines[j]) != end; j++ {
				if m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil && (m[1] == "begin" || m[1] == "end") {
					return nil, fmt.Errorf("%s:%d: %q inside the generated block of line %d (expected %q)", name, j+1, lines[j], i+1, end)
				}
				mk.Block = append(mk.Block, lines[j])
			}
			if j == len(lines) {
				return nil, fmt.Errorf("%s:%d: %q has no %q", name, i+1, lines[i], end)
			}
			i = j
		case "end":
			return nil, fmt.Errorf("%s:%d: %q without its begin marker", name, i+1, lines[i])
		}
		out = append(out, mk)
	}
	return out, nil
}

var arrayRE = regexp.MustCompile(`\b(W|b|c)=np\.array\((\[.*?\])\)`)

// RBM reads the W=, b= and c= np.array literals of a Python block: W is
// visible x hidden, returned row-major.
func RBM(block []string) (v, h int, w, b, c []float64, err error) {
	var rows [][]float64
	found := map[string]bool{}
	for _, m := range arrayRE.FindAllStringSubmatch(strings.Join(block, "\n"), -1) {
		dst := map[string]any{"W": &rows, "b": &b, "c": &c}[m[1]]
		if err := json.Unmarshal([]byte(m[2]), dst); err != nil {
			return 0, 0, nil, nil, nil, fmt.Errorf("array %s = %s: %v", m[1], m[2], err)
		}
		found[m[1]] = true
	}
	if !found["W"] || !found["b"] || !found["c"] || len(rows) == 0 {
		return 0, 0, nil, nil, nil, fmt.Errorf("npz block lacks W=, b= or c= np.array(...) literals:\n%s", strings.Join(block, "\n"))
	}
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			return 0, 0, nil, nil, nil, fmt.Errorf("W is ragged: %v", rows)
		}
		w = append(w, r...)
	}
	return len(rows), len(rows[0]), w, b, c, nil
}

// NPZ is the .npz archive, as numpy.savez would write it, of the RBM whose
// np.array literals block holds.
func NPZ(block []string) ([]byte, error) {
	v, h, w, b, c, err := RBM(block)
	if err != nil {
		return nil, err
	}
	r, err := model.NewRBM(v, h, w, b, c)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := model.WriteNPZ(&buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFiles writes the file and npz examples of markers into dir (npz
// turns an npz block into the archive's bytes) and returns their names in
// page order.
func WriteFiles(dir string, markers []Marker, npz func(block []string) ([]byte, error)) ([]string, error) {
	var names []string
	for _, mk := range markers {
		var data []byte
		switch mk.Kind {
		case "file":
			data = []byte(strings.Join(mk.Block, "\n") + "\n")
		case "npz":
			var err error
			if data, err = npz(mk.Block); err != nil {
				return nil, err
			}
		default:
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, mk.Arg), data, 0o644); err != nil {
			return nil, err
		}
		names = append(names, mk.Arg)
	}
	return names, nil
}
