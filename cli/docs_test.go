package cli

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sardonics/internal/docpage"
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
	blocks, err := docpage.Parse("formats.md", string(data))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := docpage.WriteFiles(dir, blocks, docpage.NPZ); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // the page's commands name the files as a user in that folder would
	n, exacts := 0, 0
	for _, b := range blocks {
		if b.Kind != "output" {
			continue
		}
		args := strings.Fields(b.Arg)
		if len(args) < 2 || args[0] != "sardonics" {
			t.Fatalf("formats.md:%d: %q (expected sardonics SUBCOMMAND ...)", b.Line, b.Arg)
		}
		n++
		if args[1] == "exact" {
			exacts++
		}
		got, _, _, err := asMain(args[1:])
		if err != nil {
			got += "sardonics: " + err.Error() + "\n" // the page shows main's error after the output
		}
		if msg := docMatch(b.Block, strings.Split(strings.TrimRight(got, "\n"), "\n")); msg != "" {
			t.Errorf("formats.md:%d: %s: %s\nthe page shows:\n%s\nthe program prints:\n%s",
				b.Line, b.Arg, msg, strings.Join(b.Block, "\n"), got)
		}
	}
	if exacts < 5 || n < 6 {
		t.Errorf("formats.md has %d outputs, %d of exact (expected the text and --json output of exact for each format)", n, exacts)
	}
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
