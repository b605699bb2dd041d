package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sardonics/sampler"
	"sardonics/summary"
	"strconv"
	"strings"
)

// finished reports whether dir holds trial t of sampler name finished: its
// folder has stats.json, which WriteTrial writes last (runOrLoad reuses
// such a trial instead of running it).
func finished(dir, name string, t int) bool {
	_, err := os.Stat(filepath.Join(summary.TrialDir(dir, name, t), "stats.json"))
	return err == nil
}

// FinishedTrials counts the trials of a run (samplers, trials numbered
// offset to offset+trials-1) that dir already holds finished, which Run
// loads instead of running again. It lists the sampler folders instead of
// looking for every trial, so that a run of many trials starts at once.
func FinishedTrials(dir string, samplers []string, offset, trials int) int {
	n := 0
	for _, name := range samplers {
		entries, _ := os.ReadDir(filepath.Join(dir, name))
		for _, e := range entries {
			s, ok := strings.CutPrefix(e.Name(), "trial-")
			t, err := strconv.Atoi(s)
			// trial-07 is not trial 7's folder (TrialDir).
			if ok && err == nil && e.Name() == filepath.Base(summary.TrialDir(dir, name, t)) &&
				t >= offset && t-offset < trials && finished(dir, name, t) {
				n++
			}
		}
	}
	return n
}

// HoldsResults reports whether dir holds anything a run into it would reuse
// or overwrite: a finished trial of any sampler, a checkpoint, or a
// summary.
func HoldsResults(dir string) bool {
	for _, pattern := range []string{
		filepath.Join(dir, "summary.json"),
		filepath.Join(dir, "*", "trial-*", "stats.json"),
		filepath.Join(dir, "checkpoint", "*", "trial-*.ckpt"),
	} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}

// DiffMeta lists the fields in which two runs' identities differ, one line
// "field: A (an) vs B (bn)" each, with the sardonics settings compared one
// key=value pair at a time; nil when a == b.
func DiffMeta(a, b summary.Meta, an, bn string) []string {
	var out []string
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s (%s) vs %s (%s)", field, x, an, y, bn))
		}
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	add("model", a.Spec, b.Spec)
	add("variables", strconv.Itoa(a.Variables), strconv.Itoa(b.Variables))
	add("interactions", strconv.Itoa(a.Interactions), strconv.Itoa(b.Interactions))
	add("beta", g(a.Beta), g(b.Beta))
	add("seed", strconv.FormatUint(a.Seed, 10), strconv.FormatUint(b.Seed, 10))
	add("steps", strconv.Itoa(a.Steps), strconv.Itoa(b.Steps))
	add("burn", strconv.Itoa(a.BurnIn), strconv.Itoa(b.BurnIn))
	add("budget per trial (CPU s)", g(a.TrialBudget), g(b.TrialBudget))
	add("burn fraction", g(a.BurnFraction), g(b.BurnFraction))
	x, kx := settingsMap(a.Settings)
	y, ky := settingsMap(b.Settings)
	for _, k := range ky {
		if _, ok := x[k]; !ok {
			kx = append(kx, k)
		}
	}
	for _, k := range kx {
		add(k, orNone(x[k]), orNone(y[k]))
	}
	return out
}

// settingsMap splits a Meta.Settings string ("params=... layout=...") into
// its pairs, keys in their order; a word without '=' is its own key.
func settingsMap(s string) (map[string]string, []string) {
	m := map[string]string{}
	var keys []string
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	return m, keys
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// otherRunError refuses the checkpoint at path, of sampler ckName's trial
// in the run meta, for trial tn of sampler name in the run want.
func otherRunError(path, ckName string, trial int, meta summary.Meta, name string, tn int, want summary.Meta) error {
	diff := DiffMeta(meta, want, "checkpoint", "this run")
	if ckName != name || trial != tn {
		diff = append([]string{fmt.Sprintf("trial: %s trial %d (checkpoint) vs %s trial %d (this run)", ckName, trial, name, tn)}, diff...)
	}
	return &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint of another run:\n  %s\ncontinue it with the command that wrote it, or delete it to run the trial from its start",
		path, strings.Join(diff, "\n  "))}
}
