package cli

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"sardonics/summary"
)

// npyData is the data of a .npy file (its header skipped).
func npyData(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		t.Fatalf("%s: not a .npy", path)
	}
	return b[10+int(binary.LittleEndian.Uint16(b[8:])):]
}

func f8s(b []byte) []float64 {
	x := make([]float64, len(b)/8)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return x
}

// A run thinned to 256 draws a phase: the CSVs hold the kept draws, each
// row the value of every-step trace (--save-trace) at its step, evenly
// spaced; the means in stats.json and summary.json are those of every
// step after the burn-in, not of the kept draws; draws.npz holds the
// pooled draws as (trials, draws) arrays.
func TestThinnedRunUsesEveryStep(t *testing.T) {
	const steps, burn, capacity = 20000, 2000, 256
	out := filepath.Join(t.TempDir(), "run")
	if _, stderr, err := run(t, "sample", "--model", "ferro2d:L=6", "--T", "2.5", "--sampler", "metropolis,sardonics",
		"--steps", strconv.Itoa(steps), "--burn", strconv.Itoa(burn), "--trials", "2", "--trace-draws", strconv.Itoa(capacity),
		"--save-trace", "--seed", "3", "--no-figures", "--quiet", "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	s := readSummary(t, out)
	for _, res := range s.Results {
		var all []float64
		for tr := range 2 {
			td := summary.TrialDir(out, res.Sampler, tr)
			e := f8s(npyData(t, filepath.Join(td, "energy.npy")))
			mag := npyData(t, filepath.Join(td, "magnetization.npy"))
			if len(e) != steps || len(mag) != 4*steps {
				t.Fatalf("%s: energy.npy holds %d steps, magnetization.npy %d bytes; want %d steps", td, len(e), len(mag), steps)
			}
			all = append(all, e[burn:]...)
			f, err := os.Open(filepath.Join(td, "energy.csv"))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var before, after []int
			for _, row := range rows[1:] {
				st, _ := strconv.Atoi(row[0])
				v, _ := strconv.ParseFloat(row[1], 64)
				if st < 1 || st > steps || v != e[st-1] {
					t.Fatalf("%s: energy.csv row %v, but energy.npy has %v at step %d", td, row, e[max(0, min(st, steps)-1)], st)
				}
				if st <= burn {
					before = append(before, st)
				} else {
					after = append(after, st)
				}
			}
			if len(before) > capacity || len(after) < capacity/2 || len(after) > capacity {
				t.Errorf("%s: %d burn-in and %d kept rows (cap %d)", td, len(before), len(after), capacity)
			}
			for j := 1; j < len(after); j++ {
				if after[j]-after[j-1] != after[0]-burn {
					t.Fatalf("%s: kept steps %d, %d after %d: not evenly spaced from the burn-in", td, after[j-1], after[j], after[0])
				}
			}
			var st summary.TrialRecord
			js, _ := os.ReadFile(filepath.Join(td, "stats.json"))
			if err := json.Unmarshal(js, &st); err != nil {
				t.Fatal(err)
			}
			if got, want := st.Observables.EnergyMean, mean(e[burn:]); math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Errorf("%s: stats.json energy_mean %v, every step's mean %v", td, got, want)
			}
		}
		if want := mean(all); math.Abs(res.EnergyMean-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: energy_mean %v, the mean of every step after burn-in %v", res.Sampler, res.EnergyMean, want)
		}
		if res.Thinning == nil || res.Thinning.Every < 2 || res.Thinning.MeansFrom == "" || res.ACFLagSteps != res.Thinning.Every {
			t.Errorf("%s: thinning %+v, acf lag %d steps", res.Sampler, res.Thinning, res.ACFLagSteps)
		}
		zr, err := zip.OpenReader(filepath.Join(out, res.Sampler, summary.DrawsFile))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, f := range zr.File {
			names[f.Name] = true
			if f.Name == "energy.npy" {
				rc, _ := f.Open()
				var b bytes.Buffer
				b.ReadFrom(rc)
				rc.Close()
				if !bytes.Contains(b.Bytes()[:128], []byte("'shape': (2, ")) {
					t.Errorf("%s: draws.npz energy header %q", res.Sampler, b.Bytes()[:128])
				}
			}
		}
		zr.Close()
		for _, n := range []string{"energy.npy", "m.npy", "abs_m.npy", "step.npy", "trial.npy"} {
			if !names[n] {
				t.Errorf("%s: draws.npz lacks %s (has %v)", res.Sampler, n, names)
			}
		}
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Interrupted and resumed while thinned, with every step streamed, a run's
// files are the uninterrupted run's byte for byte.
func TestThinnedResumeIsIdentical(t *testing.T) {
	resumeIsIdentical(t, "metropolis", []string{"energy.csv", "magnetization.csv", "energy.npy", "magnetization.npy"},
		"sample", "--model", "frustrated2d:L=16,seed=3", "--T", "1", "--sampler", "metropolis",
		"--steps", "60000", "--burn", "3000", "--trials", "2", "--seed", "5", "--quiet", "--no-figures", "--trace-draws", "512", "--save-trace")
}

// resumeIsIdentical runs args into one folder to the end and into another
// interrupted by SIGTERM at its first checkpoint and resumed, and compares
// files of trials 0 and 1 of sampler and the summaries (timings aside);
// it returns the uninterrupted run's folder. It skips when the child
// finished before its SIGTERM.
func resumeIsIdentical(t *testing.T, sampler string, files []string, args ...string) string {
	t.Helper()
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if _, _, err := run(t, append(args, "--out", full)...); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(base, "part")
	stderr, err := termAtCheckpoint(t, part, append(args, "--out", part, "--checkpoint-every", "20ms")...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Skipf("the child finished before its SIGTERM (%v): nothing to resume; stderr %s", err, stderr.String())
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{"trial-0", "trial-1"} {
		for _, f := range files {
			a, _ := os.ReadFile(filepath.Join(full, sampler, tr, f))
			b, _ := os.ReadFile(filepath.Join(part, sampler, tr, f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: resumed %s differs from the uninterrupted one (%d and %d bytes)", tr, f, len(a), len(b))
			}
		}
	}
	if a, b := stripTimings(t, full), stripTimings(t, part); !bytes.Equal(a, b) {
		t.Errorf("resumed summary differs:\n%s\n%s", a, b)
	}
	return full
}
