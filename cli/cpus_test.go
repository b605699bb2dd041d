package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"sardonics/topology"
)

func TestUsableCPUs(t *testing.T) {
	for _, c := range []struct{ affinity, procs, want int }{
		{2, 2, 2},
		{16, 2, 2}, // GOMAXPROCS below the mask (a CPU quota, or set by hand)
		{4, 16, 4},
		{0, 4, 4}, // mask unreadable
		{0, 0, 1},
	} {
		if got := usableCPUs(c.affinity, c.procs); got != c.want {
			t.Errorf("usableCPUs(%d, %d) = %d, want %d", c.affinity, c.procs, got, c.want)
		}
	}
}

// TestPlanCPUs: trials at once times engine sections never exceed the
// usable CPUs when the parallel engine runs; a clamp of a count the user
// gave is one warning line (issue 15, point 2).
func TestPlanCPUs(t *testing.T) {
	sard, both, gibbs := []string{"sardonics"}, []string{"sardonics", "gibbs"}, []string{"gibbs"}
	type in struct {
		ncpu, trials, threads int
		samplers              []string
		engine                string
		engineThreads         int
		rbm                   bool
	}
	for _, c := range []struct {
		name string
		in   in
		want cpuPlan
	}{
		{"issue: 3 sections on 2 CPUs", in{2, 1, 0, sard, "parallel", 3, true},
			cpuPlan{1, 2, "--engine-threads 3 exceeds the 2 usable CPUs; using 2"}},
		{"8 sections on 2 CPUs", in{2, 10, 0, both, "parallel", 8, true},
			cpuPlan{1, 2, "--engine-threads 8 exceeds the 2 usable CPUs; using 2"}},
		{"auto engine with sections", in{2, 1, 0, sard, "auto", 3, true},
			cpuPlan{1, 2, "--engine-threads 3 exceeds the 2 usable CPUs; using 2"}},
		{"one CPU", in{1, 1, 0, sard, "parallel", 2, true},
			cpuPlan{1, 1, "--engine-threads 2 exceeds the 1 usable CPU; using 1"}},
		{"sections and --threads both too many", in{2, 4, 2, sard, "parallel", 8, true},
			cpuPlan{1, 2, "--engine-threads 8 exceeds the 2 usable CPUs; using 2, and 1 trial at a time instead of --threads 2"}},
		{"--threads x sections too many", in{16, 8, 8, sard, "parallel", 4, true},
			cpuPlan{4, 4, "--threads 8 x --engine-threads 4 exceeds the 16 usable CPUs; running 4 trials at a time"}},
		{"--threads x sections, one trial fits", in{2, 3, 3, sard, "parallel", 2, true},
			cpuPlan{1, 2, "--threads 3 x --engine-threads 2 exceeds the 2 usable CPUs; running 1 trial at a time"}},
		{"default trials at once cut silently", in{16, 8, 0, sard, "parallel", 4, true}, cpuPlan{4, 4, ""}},
		{"sections fit", in{16, 2, 0, sard, "parallel", 8, true}, cpuPlan{2, 8, ""}},
		{"sections equal to the CPUs", in{2, 1, 0, sard, "parallel", 2, true}, cpuPlan{1, 2, ""}},
		{"auto sections: CPUs / trials at once", in{16, 2, 0, sard, "parallel", 0, true}, cpuPlan{2, 4, ""}},
		{"auto sections: at most 4", in{16, 1, 0, sard, "parallel", 0, true}, cpuPlan{1, 4, ""}},
		{"auto sections: many trials", in{16, 10, 0, sard, "parallel", 0, true}, cpuPlan{10, 1, ""}},
		// --threads bounds every thread (issue 23, item 5): 4 trials at
		// once leave no threads for sections (it was 4 x 4 = 16).
		{"auto sections follow --threads", in{16, 10, 4, sard, "parallel", 0, true}, cpuPlan{4, 1, ""}},
		{"auto sections within --threads", in{16, 2, 8, sard, "parallel", 0, true}, cpuPlan{2, 4, ""}},
		{"--threads 1 is one thread", in{16, 3, 1, sard, "parallel", 0, true}, cpuPlan{1, 1, ""}},
		{"auto sections on 2 CPUs", in{2, 1, 0, sard, "parallel", 0, true}, cpuPlan{1, 2, ""}},
		{"--threads above --trials", in{16, 2, 8, sard, "parallel", 0, true}, cpuPlan{2, 4, ""}},
		{"one section", in{2, 4, 0, sard, "parallel", 1, true}, cpuPlan{2, 1, ""}},
		// No parallel engine: nothing to clamp.
		{"auto engine, serial", in{2, 4, 0, sard, "auto", 0, true}, cpuPlan{2, 0, ""}},
		{"auto engine, one section", in{2, 4, 0, sard, "auto", 1, true}, cpuPlan{2, 1, ""}},
		{"dense engine", in{2, 4, 0, sard, "dense", 0, true}, cpuPlan{2, 0, ""}},
		{"no sardonics sampler", in{2, 4, 0, gibbs, "parallel", 8, true}, cpuPlan{2, 8, ""}},
		{"sparse model", in{2, 4, 0, sard, "auto", 0, false}, cpuPlan{2, 0, ""}},
		{"--threads for a serial sampler", in{2, 10, 8, gibbs, "auto", 0, false}, cpuPlan{8, 0, ""}},
		{"no CPU count", in{0, 4, 0, sard, "parallel", 0, true}, cpuPlan{1, 1, ""}},
	} {
		i := c.in
		got := planCPUs(i.ncpu, i.trials, i.threads, i.samplers, i.engine, i.engineThreads, i.rbm)
		if got != c.want {
			t.Errorf("%s: planCPUs%+v = %+v, want %+v", c.name, i, got, c.want)
		}
		if i.engine == "parallel" && i.rbm && len(i.samplers) > 0 && i.samplers[0] == "sardonics" &&
			got.trials*got.engineThreads > max(1, i.ncpu) {
			t.Errorf("%s: %d trials x %d sections on %d CPUs", c.name, got.trials, got.engineThreads, i.ncpu)
		}
	}
}

// TestCPUsGolden: the run of issue 15 (--engine-threads 8 on a machine
// with 2 usable CPUs, here made so with GOMAXPROCS) prints one warning line
// and finishes; it ran for minutes before. The deadline only guards
// against a hang; it is not a timing assertion.
func TestCPUsGolden(t *testing.T) {
	if cpus, err := topology.CPUs(); err != nil || len(cpus) < 2 {
		t.Skipf("needs 2 usable CPUs (%d, %v)", len(cpus), err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	args := []string{"sample", "--model", "rbm-random:V=12,H=6,seed=1", "--beta", "1", "--sampler", "sardonics",
		"--engine", "parallel", "--engine-threads", "8", "--steps", "2000", "--burn", "0", "--trials", "1",
		"--quiet", "--no-figures", "--out", "$TMP/o"}
	done := make(chan string, 1)
	go func() { done <- transcript(dir, 1, 1, args...) }()
	var got string
	select {
	case got = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("sample with --engine-threads 8 on 2 CPUs did not finish in 3 minutes")
	}
	checkGoldenFile(t, filepath.Join("testdata", "cpus_engine_threads_clamp.golden"), "TestCPUsGolden", got)
	if _, err := os.Stat(filepath.Join(dir, "o", "summary.json")); err != nil {
		t.Errorf("no summary: %v", err)
	}
}

// TestTuneClampsEngineThreads (issue 25, item 4): tune clamps the parallel
// engine's sections to the usable CPUs and says so, as sample does.
func TestTuneClampsEngineThreads(t *testing.T) {
	n := usableCPUs(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	p := n + 6
	_, stderr, err := run(t, "tune", "--model", "rbm-random:V=12,H=6,seed=1", "--beta", "1", "--engine", "parallel",
		"--engine-threads", strconv.Itoa(p), "--iterations", "2", "--iter-steps", "50", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("--engine-threads %d exceeds the %s; using %d", p, plural(n, "usable CPU"), n)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
}

// TestThreadsIsACap (issue 23, item 5): --threads 1 runs replica exchange
// on one thread; --resume may change --threads (and not other flags), and
// the results do not change.
func TestThreadsIsACap(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sample", "--model", "spinglass3d:L=3,seed=1", "--beta", "1", "--replicas", "4", "--sampler", "metropolis",
		"--steps", "600", "--trials", "2", "--no-figures", "--out", dir}
	out, _, err := run(t, append(args, "--threads", "1")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "threads per trial") {
		t.Errorf("--threads 1 ran replica workers:\n%s", out)
	}
	before, err := os.ReadFile(filepath.Join(dir, "metropolis", "trial-1", "energy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "metropolis", "trial-1")) // as if interrupted
	if _, stderr, err := run(t, "sample", "--resume", dir, "--threads", "2"); err != nil {
		t.Fatalf("--resume --threads 2: %v\n%s", err, stderr)
	}
	after, err := os.ReadFile(filepath.Join(dir, "metropolis", "trial-1", "energy.csv"))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("trial 1 rerun on 2 threads differs (%v)", err)
	}
	if _, _, err := run(t, "sample", "--resume", dir, "--steps", "5"); err == nil || !strings.Contains(err.Error(), "only --threads, --checkpoint-every and --quiet may change") {
		t.Errorf("--resume --steps: %v", err)
	}
}
