package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"sardonics/model"
)

// scaleLine prices a flip (or a sweep's update) at a size users run
// against the same engine on its small model, as issue 22 compares them:
// the bucket at 10^6 spins (frustrated2d:L=1000) and at 262,144
// (spinglass3d:L=64) against frustrated2d:L=60, the tree on a real-valued
// chimera of 259,200 qubits against C(4,4,4), and Metropolis at 10^6
// spins against L=60.
type scaleLine struct {
	name, small, large string
	beta               float64
	sampler, engine    string
}

var scaleLines = []scaleLine{
	{"sardonics bucket", "frustrated2d:L=60,seed=1", "frustrated2d:L=1000,seed=1", 1, "sardonics", "bucket"},
	{"sardonics bucket", "frustrated2d:L=60,seed=1", "spinglass3d:L=64,seed=1", 1, "sardonics", "bucket"},
	{"sardonics tree", "chimera:M=4,N=4,T=4,seed=1", "chimera:M=180,N=180,T=4,seed=1", 1, "sardonics", "tree"},
	{"metropolis", "frustrated2d:L=60,seed=1", "frustrated2d:L=1000,seed=1", 1, "metropolis", ""},
}

// scaleGroup measures every line of scaleLines: the small model once per
// engine, then the large one, each line with the process's peak RSS
// while it ran (the model loaded afresh, earlier lines' memory returned
// to the system first) and the large line's ratio to the small one.
func scaleGroup(rep *Report, cfg Config) error {
	small := map[string]Line{}
	for _, s := range scaleLines {
		key := s.sampler + "/" + s.engine + "/" + s.small
		base, ok := small[key]
		if !ok {
			l, err := scaleMeasure(cfg.ctx(), s, s.small)
			if err != nil {
				return err
			}
			small[key], base = l, l
			rep.add(l, cfg)
		}
		l, err := scaleMeasure(cfg.ctx(), s, s.large)
		if err != nil {
			return err
		}
		l.Note = fmt.Sprintf("%.2fx %s; %s", l.Value/base.Value, s.small, l.Note)
		rep.add(l, cfg)
	}
	return nil
}

// scaleMeasure is one line: the median of trialRounds whole trials of
// spec (scaleSteps long, whatever the budget), with the peak RSS of the
// process meanwhile.
func scaleMeasure(ctx context.Context, s scaleLine, spec string) (Line, error) {
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	m, err := model.Load(spec)
	if err != nil {
		return Line{}, err
	}
	tl := trialLine{s.name + ", whole trial", spec, s.beta, s.sampler, s.engine}
	unit := "ns/flip"
	if s.sampler != "sardonics" {
		unit = "ns/update"
	}
	l, err := measureTrials(ctx, tl, m, trialConfig(tl), scaleSteps(s.sampler, m.Variables()), unit)
	if err != nil {
		return Line{}, fmt.Errorf("%s on %s: %w", s.name, spec, err)
	}
	rss := "peak RSS n/a"
	if b, ok := peakRSS(); ok {
		l.PeakRSS = b
		rss = fmt.Sprintf("peak RSS %.0f MB (%.0f bytes/spin)", float64(b)/1e6, float64(b)/float64(m.Variables()))
	}
	l.Note = rss + "; " + l.Note
	return l, nil
}

// scaleSteps is a scale line's trial length, the same work at every size
// so that the engine's construction weighs alike: 10^5 SARDONICS moves
// (about 1.1 million flips at the default theta), or sweeps of about
// 3.6 x 10^7 updates in all.
func scaleSteps(sampler string, n int) int {
	if sampler == "sardonics" {
		return scaleMoves
	}
	return max(10, scaleMoves*360/n)
}

// scaleMoves is the SARDONICS trial length of the scale group (a test
// shortens it).
var scaleMoves = 100000

// resetPeakRSS restarts the kernel's count of the process's peak resident
// set (VmHWM; writing 5 to clear_refs, Linux 4.0 and later).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set in bytes since the last
// resetPeakRSS (VmHWM), false where /proc does not say.
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(ln, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
