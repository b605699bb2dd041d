package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// crefSource is the C yardstick, a tight single-spin Metropolis sweep (see
// the file's comment). It is embedded so that `sardonics bench` can compile
// it wherever it runs.
//
//go:embed cref/metropolis.c
var crefSource []byte

// CRefLattice is the C line every ratio divides by: the 2D torus, the
// fastest of the C program's lattices (4 neighbours, no couplings to load).
const CRefLattice = "ferro2d:L=60"

// CLine is one lattice's result of the C yardstick.
type CLine struct {
	Lattice     string  `json:"lattice"`
	Beta        float64 `json:"beta"`
	Variant     string  `json:"variant"` // the fastest of the C program's loops
	NsPerUpdate float64 `json:"ns_per_update"`
	Acceptance  float64 `json:"acceptance"`
}

// CRef is the C yardstick's outcome in bench.json.
type CRef struct {
	Status  string  `json:"status"`            // "ok", or "n/a (why)"
	Compile string  `json:"compile,omitempty"` // the compiler command used
	Run     string  `json:"run,omitempty"`     // the timing command's arguments
	Lines   []CLine `json:"lines,omitempty"`
}

// Yardstick is the line ratios divide by (CRefLattice), if the yardstick ran.
func (c *CRef) Yardstick() (CLine, bool) {
	if c == nil || c.Status != "ok" {
		return CLine{}, false
	}
	for _, l := range c.Lines {
		if l.Lattice == CRefLattice {
			return l, true
		}
	}
	return CLine{}, false
}

// ParseCRef reads the C program's output: its result lines
//
//	C ferro2d:L=60     beta=0.4405  nb/nobranch      5.170 ns/update  acc=0.1234  E/N=-1.4000  (median of 3 x 1.0s CPU)
//
// Comment lines (#) and blank lines are skipped; a result line that does
// not parse, or output without any, is an error.
func ParseCRef(r io.Reader) ([]CLine, error) {
	var out []CLine
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if f[0] != "C" {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("C yardstick output line %d: %s: %q", n, why, line) }
		if len(f) < 7 || f[5] != "ns/update" {
			return nil, bad("expected C LATTICE beta=B VARIANT NS ns/update acc=A ...")
		}
		var l CLine
		l.Lattice, l.Variant = f[1], f[3]
		var err error
		if l.Beta, err = prefixed(f[2], "beta="); err != nil {
			return nil, bad(err.Error())
		}
		if l.NsPerUpdate, err = strconv.ParseFloat(f[4], 64); err != nil || !(l.NsPerUpdate > 0) || math.IsInf(l.NsPerUpdate, 0) {
			return nil, bad("ns/update is not a positive number")
		}
		if l.Acceptance, err = prefixed(f[6], "acc="); err != nil || l.Acceptance < 0 || l.Acceptance > 1 {
			return nil, bad("acc= is not a rate in [0, 1]")
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("C yardstick printed no result line")
	}
	return out, nil
}

func prefixed(s, prefix string) (float64, error) {
	v, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return 0, fmt.Errorf("expected %s", prefix)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s%s is not a number", prefix, v)
	}
	return x, nil
}

// crefFlags are tried in order: -march=native is what the yardstick is
// about, plain -O3 the fallback for compilers that refuse it.
var crefFlags = [][]string{{"-O3", "-march=native"}, {"-O3"}}

// buildCRef compiles the embedded C program with cc into cacheDir, or
// reuses the binary an earlier run compiled there. The binary's name holds
// a hash of the source, the compiler's version and the host name, so a
// cache shared between machines or compilers never serves a stale or
// foreign -march=native binary. It returns the binary and the command.
func buildCRef(cc, cacheDir string) (bin, cmd string, err error) {
	path, err := exec.LookPath(cc)
	if err != nil {
		return "", "", err
	}
	ver, _ := exec.Command(path, "--version").Output()
	host, _ := os.Hostname()
	h := sha256.New()
	for _, b := range [][]byte{crefSource, ver, []byte(host), []byte(path)} {
		h.Write(b)
		h.Write([]byte{0})
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", "", err
	}
	bin = filepath.Join(cacheDir, "metropolis-"+key)
	for _, fl := range crefFlags {
		cmd = strings.Join(append(append([]string{cc}, fl...), "metropolis.c", "-lm"), " ")
		b := bin + strings.Join(fl, "")
		if st, err := os.Stat(b); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return b, cmd, nil
		}
	}
	// The source and the binary under construction have this process's
	// names, so runs compiling at once do not read each other's halves.
	src := fmt.Sprintf("%s.%d.c", bin, os.Getpid())
	if err := os.WriteFile(src, crefSource, 0o644); err != nil {
		return "", "", err
	}
	defer os.Remove(src)
	var last error
	for _, fl := range crefFlags {
		cmd = strings.Join(append(append([]string{cc}, fl...), "metropolis.c", "-lm"), " ")
		b := bin + strings.Join(fl, "")
		tmp := fmt.Sprintf("%s.%d.tmp", b, os.Getpid())
		args := append(append([]string{}, fl...), "-o", tmp, src, "-lm")
		out, err := exec.Command(path, args...).CombinedOutput()
		if err != nil {
			os.Remove(tmp)
			last = fmt.Errorf("%s: %v: %s", cmd, err, firstLine(out))
			continue
		}
		// Rename is atomic: a binary under the final name is whole.
		if err := os.Rename(tmp, b); err != nil {
			return "", "", err
		}
		return b, cmd, nil
	}
	return "", "", last
}

// defaultCacheDir holds compiled yardsticks between runs.
func defaultCacheDir() string { return filepath.Join(os.TempDir(), "sardonics-cref") }

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// runCRef compiles (or reuses) and runs the C yardstick: each lattice's
// four loops are timed reps times for budget/10 CPU seconds, the fastest
// loop then reps times for budget, and the median reported. A missing
// compiler gives Status "n/a (no gcc)" (the compiler's name when it is not
// gcc) and no error: the yardstick is optional, the Go lines are not.
func runCRef(cc, cacheDir string, budget time.Duration, reps int) *CRef {
	return runCRefContext(context.Background(), cc, cacheDir, budget, reps)
}

// runCRefContext is runCRef, the C process killed when parent ends.
func runCRefContext(parent context.Context, cc, cacheDir string, budget time.Duration, reps int) *CRef {
	switch cc {
	case "none":
		return &CRef{Status: "n/a (disabled)"}
	case "":
		cc = "gcc"
	}
	bin, cmd, err := buildCRef(cc, cacheDir)
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return &CRef{Status: fmt.Sprintf("n/a (no %s)", cc)}
	}
	if err != nil {
		return &CRef{Status: fmt.Sprintf("n/a (%v)", err)}
	}
	b := max(budget.Seconds(), 0.01)
	args := []string{"--budget", strconv.FormatFloat(b, 'g', 4, 64),
		"--select", strconv.FormatFloat(max(b/10, 0.005), 'g', 4, 64), "--reps", strconv.Itoa(reps)}
	// Two lattices, each 4 selection loops and one timed loop, reps times:
	// anything far beyond that is a hung process.
	limit := time.Duration(float64(time.Second) * (30 + 10*float64(reps)*b))
	ctx, cancel := context.WithTimeout(parent, limit)
	defer cancel()
	var stdout, stderr bytes.Buffer
	c := exec.CommandContext(ctx, bin, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	ref := &CRef{Compile: cmd, Run: strings.Join(args, " ")}
	if err := c.Run(); err != nil {
		// A cached binary that cannot run here (another CPU's -march)
		// is removed, so the next run compiles afresh.
		os.Remove(bin)
		ref.Status = fmt.Sprintf("n/a (C yardstick failed: %v %s)", err, firstLine(stderr.Bytes()))
		return ref
	}
	lines, err := ParseCRef(&stdout)
	if err != nil {
		ref.Status = fmt.Sprintf("n/a (%v)", err)
		return ref
	}
	ref.Status, ref.Lines = "ok", lines
	return ref
}
