package docpage

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository, seen from this package's folder.
const root = "../.."

// docPages are README.md and every page under docs/, as paths from root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs pages: %v", err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// TestDocsLinks: every relative link and image of README.md and docs/*.md
// reaches an existing file, every #anchor a heading of its page, and the
// README links every docs page.
func TestDocsLinks(t *testing.T) {
	pages := docPages(t)
	for _, page := range pages {
		broken, err := BrokenLinks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Error(b)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages[1:] {
		if !strings.Contains(string(readme), "]("+page+")") {
			t.Errorf("README.md does not link %s", page)
		}
	}
}

// The results the README's generated tables showed before they moved to
// docs/ (scripts/readme-tables.py's sources): each must stay a generated
// block of some page.
var wantSources = []string{
	"results/bench/bench.json",
	"results/equal-cpu/frustrated2d_T1/table.md",
	"results/equal-cpu/frustrated2d_T0.5/table.md",
	"results/flip-cost/whole-trial.md",
	"results/flip-cost/breakdown-beta1.md",
	"results/mixing/table.md",
	"results/paper/table.md",
	"results/paper/claims.md",
	"results/replica/table.md",
	"results/tuning/table.md",
}

// TestDocsGenerated: every generated block of README.md and docs/*.md is
// what scripts/docs-tables.py makes of its sources under results/ now, the
// tables the README used to show are all there, and every HTML comment of
// the pages is a marker docpage knows (a misspelled one would go
// unchecked).
func TestDocsGenerated(t *testing.T) {
	var sources []string
	for _, page := range docPages(t) {
		stale, gen, err := StaleBlocks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stale {
			t.Error(s)
		}
		for _, mk := range gen {
			sources = append(sources, strings.Fields(mk.Arg)...)
		}
		f, err := os.Open(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "<!--") && !IsMarker(l) {
				t.Errorf("%s:%d: unknown marker %q", page, n, l)
			}
		}
		f.Close()
	}
	for _, s := range wantSources {
		if !slices.Contains(sources, s) {
			t.Errorf("no page has a generated block from %s", s)
		}
	}
}

// TestDocsScript: scripts/docs-tables.py --check finds nothing stale, so
// the script and Generated agree on every block (run where python3 is).
func TestDocsScript(t *testing.T) {
	python := lookPython(t)
	cmd := exec.Command(python, filepath.Join(root, "scripts", "docs-tables.py"), "--check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("scripts/docs-tables.py --check: %v\n%s", err, out)
	}
}

func lookPython(t *testing.T) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH; TestDocsGenerated checks the blocks in Go")
	}
	return python
}

// TestDocsCheckersCatchBreakage: on a small tree with a broken link, a
// broken anchor, a missing image and a stale block, each is reported (and
// the script's --check fails too); links inside code and to existing
// files and headings are not; with the block regenerated, nothing is.
func TestDocsCheckersCatchBreakage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("results/t/table.md", "# A table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	write("README.md", `# Guide

## The QUBO <-> Ising mapping (`+"`.qubo`"+`)

See [the page](docs/page.md), [its table](docs/page.md#a-table), [here](#the-qubo---ising-mapping-qubo),
[a missing page](docs/missing.md), [a missing
anchor](docs/page.md#no-such-heading), ![a figure](results/t/missing.png) and `+"`[code](nowhere.md)`"+`.

`+"```"+`
[in a fence](nowhere.md)
# not a heading
`+"```"+`
`)
	stale := "<!-- begin: results/t/table.md -->\n### A table\n\n| a | b |\n|---|---|\n| 1 | 3 |\n<!-- end: results/t/table.md -->\n"
	write("docs/page.md", "# Page\n\nBack to the [guide](../README.md#guide).\n\n"+stale)

	broken, err := BrokenLinks(dir, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"README.md:6: [a missing page](docs/missing.md): no such file",
		"README.md:6: [a missing\nanchor](docs/page.md#no-such-heading): no heading with anchor #no-such-heading",
		"README.md:7: ![a figure](results/t/missing.png): no such file",
	} {
		if !slices.Contains(broken, want) {
			t.Errorf("BrokenLinks does not report %q; it reports %q", want, broken)
		}
	}
	if len(broken) != 3 {
		t.Errorf("BrokenLinks reports %d links, want 3: %q", len(broken), broken)
	}
	if broken, err := BrokenLinks(dir, "docs/page.md"); err != nil || len(broken) != 0 {
		t.Errorf("docs/page.md: %q, %v; want no broken links", broken, err)
	}

	got, _, err := StaleBlocks(dir, "docs/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], `block line 5 is "| 1 | 3 |", the sources have "| 1 | 2 |"`) {
		t.Errorf("StaleBlocks = %q, want the stale row named", got)
	}
	write("docs/other.md", "<!-- begin: results/t/gone.md -->\n<!-- end: results/t/gone.md -->\n")
	if got, _, err := StaleBlocks(dir, "docs/other.md"); err != nil || len(got) != 1 {
		t.Errorf("a block from a missing source: %q, %v; want it reported", got, err)
	}
	write("docs/other.md", "<!-- begin: results/t/table.md -->\n### A table\n")
	if _, _, err := StaleBlocks(dir, "docs/other.md"); err == nil {
		t.Errorf("a begin marker without its end is accepted")
	}
	write("docs/other.md", "")

	python, pyErr := exec.LookPath("python3")
	script, err := os.ReadFile(filepath.Join(root, "scripts", "docs-tables.py"))
	if err != nil {
		t.Fatal(err)
	}
	write("scripts/docs-tables.py", string(script))
	check := func() error {
		return exec.Command(python, filepath.Join(dir, "scripts", "docs-tables.py"), "--check").Run()
	}
	if pyErr == nil && check() == nil {
		t.Errorf("scripts/docs-tables.py --check passes a stale block")
	}

	write("docs/page.md", "# Page\n\nBack to the [guide](../README.md#guide).\n\n"+strings.Replace(stale, "| 1 | 3 |", "| 1 | 2 |", 1))
	if got, _, err := StaleBlocks(dir, "docs/page.md"); err != nil || len(got) != 0 {
		t.Errorf("after regenerating: %q, %v; want nothing stale", got, err)
	}
	if pyErr == nil {
		if err := check(); err != nil {
			t.Errorf("scripts/docs-tables.py --check on the regenerated page: %v", err)
		}
	}
}
