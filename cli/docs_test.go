package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sardonics/model"
)

// TestDocFormatsOutputs is the golden test of docs/formats.md: every block
// marked <!-- output: sardonics ARGS --> is what running ARGS prints, in a
// folder holding the page's example files (marked file: and npz:). The page
// is the contract: a changed output or a mistyped number fails here.
// Everything but numbers must match exactly, and a line "..." in the page
// stands for any number of lines. Numbers must agree to 2e-15 relative, a
// few units in the last place: math.Exp uses FMA where the CPU has it, which
// moves the last digit of some results (GODEBUG=cpu.fma=off shows it).
// model/docs_test.go checks the page's example files and energy tables.
func TestDocFormatsOutputs(t *testing.T) {
	data, err := os.ReadFile("../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(t, string(data))
	dir := t.TempDir()
	for _, b := range blocks {
		var content []byte
		switch b.kind {
		case "file":
			content = []byte(strings.Join(b.lines, "\n") + "\n")
		case "npz":
			content = docNPZ(t, b.lines)
		default:
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, b.arg), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir) // the page's commands name the files as a user in that folder would
	n, exacts := 0, 0
	for _, b := range blocks {
		if b.kind != "output" {
			continue
		}
		args := strings.Fields(b.arg)
		if len(args) < 2 || args[0] != "sardonics" {
			t.Fatalf("formats.md:%d: %q (expected sardonics SUBCOMMAND ...)", b.line, b.arg)
		}
		n++
		if args[1] == "exact" {
			exacts++
		}
		var out, errb bytes.Buffer
		err := Run(args[1:], &out, &errb)
		got := out.String()
		if err != nil {
			got += "sardonics: " + err.Error() + "\n" // as main prints it
		}
		if msg := docMatch(b.lines, strings.Split(strings.TrimRight(got, "\n"), "\n")); msg != "" {
			t.Errorf("formats.md:%d: %s: %s\nthe page shows:\n%s\nthe program prints:\n%s",
				b.line, b.arg, msg, strings.Join(b.lines, "\n"), got)
		}
	}
	if exacts < 5 || n < 6 {
		t.Errorf("formats.md has %d outputs, %d of exact (expected the text and --json output of exact for each format)", n, exacts)
	}
}

type docBlock struct {
	kind, arg string
	line      int
	lines     []string
}

var docBlockRE = regexp.MustCompile(`^<!-- (file|npz|output): (.+?) -->$`)

// docBlocks returns the page's fenced blocks that follow a file:, npz: or
// output: marker.
func docBlocks(t *testing.T, page string) []docBlock {
	t.Helper()
	lines := strings.Split(strings.ReplaceAll(page, "\r\n", "\n"), "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		m := docBlockRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("formats.md:%d: marker not followed by a fenced block", i+1)
		}
		b := docBlock{kind: m[1], arg: m[2], line: i + 1}
		j := i + 2
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			b.lines = append(b.lines, lines[j])
		}
		if j == len(lines) {
			t.Fatalf("formats.md:%d: unclosed fenced block", i+2)
		}
		out = append(out, b)
		i = j
	}
	return out
}

var docArrayRE = regexp.MustCompile(`\b(W|b|c)=np\.array\((\[.*?\])\)`)

// docNPZ is the .npz archive of the RBM whose W=, b= and c= np.array
// literals a Python block of the page holds.
func docNPZ(t *testing.T, block []string) []byte {
	t.Helper()
	var w [][]float64
	var b, c []float64
	for _, m := range docArrayRE.FindAllStringSubmatch(strings.Join(block, "\n"), -1) {
		dst := map[string]any{"W": &w, "b": &b, "c": &c}[m[1]]
		if err := json.Unmarshal([]byte(m[2]), dst); err != nil {
			t.Fatalf("array %s = %s: %v", m[1], m[2], err)
		}
	}
	if len(w) == 0 || len(b) == 0 || len(c) == 0 {
		t.Fatalf("npz block lacks W=, b= or c= np.array(...) literals")
	}
	var flat []float64
	for _, row := range w {
		flat = append(flat, row...)
	}
	r, err := model.NewRBM(len(w), len(w[0]), flat, b, c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := model.WriteNPZ(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docMatch compares output lines with the page's lines; it returns what
// differs, or "". A page line "..." matches any run of lines.
func docMatch(want, got []string) string {
	if len(want) == 0 {
		if len(got) == 0 {
			return ""
		}
		return "extra line " + strconv.Quote(got[0])
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if docMatch(want[1:], got[k:]) == "" {
				return ""
			}
		}
		return "no lines after ... match " + strconv.Quote(strings.Join(want[1:], "\n"))
	}
	if len(got) == 0 {
		return "missing line " + strconv.Quote(want[0])
	}
	if !docSameLine(want[0], got[0]) {
		return "line " + strconv.Quote(got[0]) + ", the page says " + strconv.Quote(want[0])
	}
	return docMatch(want[1:], got[1:])
}

var docNumberRE = regexp.MustCompile(`[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`)

// docSameLine: the lines agree outside their numbers, and their numbers
// agree to 2e-15 relative.
func docSameLine(want, got string) bool {
	want, got = strings.TrimRight(want, " "), strings.TrimRight(got, " ")
	if docNumberRE.ReplaceAllString(want, "#") != docNumberRE.ReplaceAllString(got, "#") {
		return false
	}
	wn, gn := docNumberRE.FindAllString(want, -1), docNumberRE.FindAllString(got, -1)
	for i := range wn {
		a, err1 := strconv.ParseFloat(wn[i], 64)
		b, err2 := strconv.ParseFloat(gn[i], 64)
		if err1 != nil || err2 != nil || math.Abs(a-b) > 2e-15*math.Max(math.Abs(a), math.Abs(b)) {
			return false
		}
	}
	return true
}
