package docpage

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "sardonics"

// layer is one row of docs/design.md's layer table.
type layer struct {
	rank   int
	within bool // imports within the layer allowed
}

// readLayers parses the table of docs/design.md whose header begins
// "| rank | layer |": package path (relative to the module, "sardonics" for
// the root) -> its layer.
func readLayers(t *testing.T) map[string]layer {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]layer{}
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "| rank | layer |"):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(l, "|"):
			if len(out) > 0 {
				return out
			}
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("design.md: layer row %q has %d cells (expected rank | layer | packages | within)", l, len(cells))
		}
		rank, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header and its rule
		}
		within := strings.TrimSpace(cells[3]) == "yes"
		for _, p := range strings.Split(cells[2], ",") {
			p = strings.Trim(strings.TrimSpace(p), "`")
			p, _, _ = strings.Cut(p, "` ")
			if p != "" {
				out[p] = layer{rank, within}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal(`design.md: no layer table (a header "| rank | layer | packages | within the layer |")`)
	}
	return out
}

// moduleImports is every package of the module (its non-test files) with
// the module's packages it imports, paths relative to the module.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "results" && filepath.Dir(path) == root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = module
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if q, ok := strings.CutPrefix(p, module+"/"); ok {
				out[pkg] = append(out[pkg], q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerViolations lists every import against the layers, and every
// package the layers do not place.
func layerViolations(imports map[string][]string, layers map[string]layer) []string {
	var bad []string
	for pkg, ims := range imports {
		from, ok := layers[pkg]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no layer of docs/design.md", pkg))
			continue
		}
		for _, im := range ims {
			to, ok := layers[im]
			switch {
			case !ok:
				// reported as a package of its own
			case to.rank > from.rank:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d)", pkg, from.rank, im, to.rank))
			case to.rank == from.rank && !from.within:
				bad = append(bad, fmt.Sprintf("%s imports %s of its own layer %d, where the layer's packages do not import each other", pkg, im, from.rank))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// Every import of the module runs down the layers of docs/design.md, and
// every package has a layer. The check is shown to fail on an import up
// the layers, one within a layer that forbids it, and a package of none.
func TestImportLayers(t *testing.T) {
	layers := readLayers(t)
	imports := moduleImports(t)
	if len(imports) < 30 {
		t.Fatalf("only %d packages found", len(imports))
	}
	for _, v := range layerViolations(imports, layers) {
		t.Error(v)
	}
	broken := map[string][]string{
		"model":    {"runner"},  // up
		"baseline": {"hybrid"},  // a sampler importing a sampler
		"newpkg":   {"sampler"}, // placed nowhere
	}
	if v := layerViolations(broken, layers); len(v) != 3 {
		t.Errorf("the check found %d of 3 broken imports: %q", len(v), v)
	}
}
