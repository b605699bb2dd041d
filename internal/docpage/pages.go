package docpage

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Generated is the text that scripts/docs-tables.py writes for a generated
// block whose begin marker names sources (paths from root, separated by
// spaces): each source rendered, joined by a blank line. A .md source is
// its trimmed text with "# " headings demoted to "### "; a .json source is
// a bench.json (sardonics bench --out) as its table. The two must stay
// byte for byte the script's read and bench_table.
func Generated(root, sources string) (string, error) {
	var parts []string
	for _, src := range strings.Fields(sources) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src)))
		if err != nil {
			return "", err
		}
		if strings.HasSuffix(src, ".json") {
			s, err := benchTable(data)
			if err != nil {
				return "", fmt.Errorf("%s: %v", src, err)
			}
			parts = append(parts, s)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "# ") {
				lines[i] = "###" + l[1:]
			}
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("no sources")
	}
	return strings.Join(parts, "\n\n"), nil
}

// benchTable is docs-tables.py's bench_table.
func benchTable(data []byte) (string, error) {
	var r struct {
		Machine, Go, Date string
		Lines             []struct {
			Name, Model, Unit, Note string
			Beta, Value             *float64
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return "", err
	}
	if len(r.Lines) == 0 {
		return "", fmt.Errorf("no lines (expected the bench.json of sardonics bench)")
	}
	num := func(v *float64) string { // Python's format(v, '.4g'), n/a for null
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			return "n/a"
		}
		return strconv.FormatFloat(*v, 'g', 4, 64)
	}
	rows := []string{
		fmt.Sprintf("Machine: %s, %s, measured %s with `sardonics bench --ess --budget 2s --out results/bench`.", r.Machine, r.Go, r.Date),
		"",
		"| kernel | model | beta | value | unit | note |",
		"|---|---|---:|---:|---|---|",
	}
	for _, l := range r.Lines {
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", l.Name, l.Model, num(l.Beta), num(l.Value), l.Unit, l.Note))
	}
	return strings.Join(rows, "\n"), nil
}

// StaleBlocks parses the page at root/page and returns, for every
// generated block that differs from what Generated makes of its sources
// now (or whose sources cannot be read), a line naming it. The markers are
// returned too, so that callers can check which sources a page uses.
func StaleBlocks(root, page string) ([]string, []Marker, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		return nil, nil, err
	}
	markers, err := Parse(page, string(data))
	if err != nil {
		return nil, nil, err
	}
	var stale []string
	var gen []Marker
	for _, mk := range markers {
		if mk.Kind != "begin" {
			continue
		}
		gen = append(gen, mk)
		want, err := Generated(root, mk.Arg)
		if err != nil {
			stale = append(stale, fmt.Sprintf("%s:%d: %v", page, mk.Line, err))
			continue
		}
		if got := strings.Join(mk.Block, "\n"); got != want {
			stale = append(stale, fmt.Sprintf("%s:%d: the block from %s is stale (scripts/docs-tables.py rewrites it): %s",
				page, mk.Line, mk.Arg, firstDiff(got, want)))
		}
	}
	return stale, gen, nil
}

// firstDiff names the first line where the page (got) and the sources
// (want) differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		switch {
		case i >= len(g):
			return fmt.Sprintf("block line %d missing, the sources have %q", i+1, w[i])
		case i >= len(w):
			return fmt.Sprintf("block line %d %q is not in the sources", i+1, g[i])
		case g[i] != w[i]:
			return fmt.Sprintf("block line %d is %q, the sources have %q", i+1, g[i], w[i])
		}
	}
	return "they differ"
}

// mask returns text with fenced code blocks and inline code spans blanked
// out (newlines kept, so offsets and line numbers stay), and the headings
// that lie outside the fences.
func mask(text string) (string, []string) {
	b := []byte(text)
	var headings []string
	fence := ""
	para := -1 // start of the current paragraph, -1 between paragraphs
	codeSpans := func(s, e int) {
		for i := s; i < e; i++ {
			if b[i] != '`' {
				continue
			}
			n := 1
			for i+n < e && b[i+n] == '`' {
				n++
			}
			closeAt := -1
			for j := i + n; j < e; j++ {
				if b[j] != '`' {
					continue
				}
				m := 1
				for j+m < e && b[j+m] == '`' {
					m++
				}
				if m == n {
					closeAt = j + m
					break
				}
				j += m - 1
			}
			if closeAt < 0 {
				i += n - 1
				continue
			}
			for k := i; k < closeAt; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
			i = closeAt - 1
		}
	}
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		trimmed := strings.TrimLeft(line, " ")
		isFence := len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"))
		switch {
		case fence != "":
			if isFence && strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			for k := start; k < end; k++ {
				b[k] = ' '
			}
		case isFence:
			if para >= 0 {
				codeSpans(para, start)
				para = -1
			}
			fence = trimmed[:3]
			for k := start; k < end; k++ {
				b[k] = ' '
			}
		case strings.TrimSpace(line) == "":
			if para >= 0 {
				codeSpans(para, start)
				para = -1
			}
		default:
			if strings.HasPrefix(trimmed, "#") && len(line)-len(trimmed) <= 3 {
				if m := headingRE.FindStringSubmatch(trimmed); m != nil {
					headings = append(headings, m[1])
				}
			}
			if para < 0 {
				para = start
			}
		}
		start = end + 1
	}
	if para >= 0 {
		codeSpans(para, len(b))
	}
	return string(b), headings
}

var (
	headingRE = regexp.MustCompile(`^#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	linkRE    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	inlineRE  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// Slugs returns the anchors GitHub gives the headings of a Markdown page:
// the heading's text (a link's text for a link) in lower case, without
// punctuation other than '-' and '_', spaces turned into '-'; a repeated
// slug gets -1, -2, ...
func Slugs(text string) map[string]bool {
	_, headings := mask(text)
	slugs := map[string]bool{}
	seen := map[string]int{}
	for _, h := range headings {
		h = inlineRE.ReplaceAllString(h, "$1")
		var s strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				s.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				s.WriteRune(r)
			}
		}
		slug := s.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		slugs[slug] = true
	}
	return slugs
}

// BrokenLinks returns a line for every relative link or image of the page
// at root/page (outside code) whose file does not exist, or whose #anchor
// names no heading of the Markdown page it points to. Absolute URLs are
// not followed.
func BrokenLinks(root, page string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	masked, _ := mask(text)
	dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(page)))
	slugCache := map[string]map[string]bool{}
	var broken []string
	for _, m := range linkRE.FindAllStringSubmatchIndex(masked, -1) {
		target := masked[m[2]:m[3]]
		line := strings.Count(masked[:m[0]], "\n") + 1
		bad := func(why string) {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", page, line, text[m[0]:m[1]], why))
		}
		if target == "" {
			bad("empty target")
			continue
		}
		if u := strings.ToLower(target); strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		path := filepath.Join(root, filepath.FromSlash(page))
		if file != "" {
			if filepath.IsAbs(file) {
				bad("absolute path (expected a path relative to the page)")
				continue
			}
			path = filepath.Join(dir, filepath.FromSlash(file))
			if _, err := os.Stat(path); err != nil {
				bad("no such file")
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(path, ".md") {
			continue
		}
		slugs, ok := slugCache[path]
		if !ok {
			data, err := os.ReadFile(path)
			if err != nil {
				bad(err.Error())
				continue
			}
			slugs = Slugs(strings.ReplaceAll(string(data), "\r\n", "\n"))
			slugCache[path] = slugs
		}
		if !slugs[anchor] {
			bad("no heading with anchor #" + anchor)
		}
	}
	return broken, nil
}
