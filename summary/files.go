// Trial folders, summary.json, run.json and tuning.csv: writing and reading them.

package summary

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sardonics/atomicfile"
	"sardonics/npy"
)

// WriteTrial writes a trial's folder: energy.csv, magnetization.csv,
// stats.json and, if any, states.npy and samples.npz.
func WriteTrial(dir string, r *TrialRecord) error {
	td := TrialDir(dir, r.Sampler, r.Trial)
	if len(r.States) > 0 {
		if err := atomicfile.WriteFileMkdir(filepath.Join(td, "states.npy"), npy.U8Rows(r.States)); err != nil {
			return err
		}
		if r.Samples != nil {
			b, err := samplesNPZ(r.Samples, r.States)
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFileMkdir(filepath.Join(td, "samples.npz"), b); err != nil {
				return err
			}
		}
	}
	if err := writeColumn(filepath.Join(td, "energy.csv"), "step,energy", r.stepOf, r.Energies); err != nil {
		return err
	}
	if r.Marginals != nil && r.Marginals.Mean != nil {
		if err := writeMarginals(td, r.Marginals); err != nil {
			return err
		}
	}
	if len(r.Magnetization) > 0 {
		if err := writeIntColumn(filepath.Join(td, "magnetization.csv"), "step,magnetization", r.stepOf, r.Magnetization); err != nil {
			return err
		}
	}
	if err := writeReplicaFiles(td, r); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFileMkdir(filepath.Join(td, "stats.json"), append(js, '\n'))
}

// TrialDir is the folder of trial t of sampler name.
func TrialDir(dir, name string, t int) string {
	return filepath.Join(dir, name, fmt.Sprintf("trial-%d", t))
}

// ReadTrial reads a trial folder written by WriteTrial.
func ReadTrial(td string) (*TrialRecord, error) {
	js, err := os.ReadFile(filepath.Join(td, "stats.json"))
	if err != nil {
		return nil, err
	}
	r := &TrialRecord{}
	if err := json.Unmarshal(js, r); err != nil {
		return nil, fmt.Errorf("%s: %v (expected a stats.json written by sardonics)", filepath.Join(td, "stats.json"), err)
	}
	if err := r.Trace.valid(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(td, "stats.json"), err)
	}
	if r.Energies, err = readColumn(filepath.Join(td, "energy.csv"), "step,energy", r.stepOf); err != nil {
		return nil, err
	}
	if r.Trace != nil && len(r.Energies) != r.Trace.BurnIn.Kept+r.Trace.Kept.Kept {
		return nil, fmt.Errorf("%s: %d rows, but stats.json's trace says %d kept draws", filepath.Join(td, "energy.csv"), len(r.Energies), r.Trace.BurnIn.Kept+r.Trace.Kept.Kept)
	}
	if r.Marginals != nil {
		if err := readMarginals(td, r.Marginals); err != nil {
			return nil, err
		}
	}
	// Folders of versions before it have no magnetization.csv.
	if r.Magnetization, err = readIntColumn(filepath.Join(td, "magnetization.csv"), "step,magnetization", r.stepOf); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return r, readReplicaFiles(td, r)
}

// writeColumn writes a CSV of a header "INDEX,NAME" and one row per value,
// numbered by step (row i is step(i)), the values in Go's shortest
// round-trip form.
func writeColumn(path, header string, step func(int) int, x []float64) error {
	return writeRows(path, header, len(x), step, func(b []byte, i int) []byte {
		return strconv.AppendFloat(b, x[i], 'g', -1, 64)
	})
}

// writeIntColumn is writeColumn for integers.
func writeIntColumn(path, header string, step func(int) int, x []int32) error {
	return writeRows(path, header, len(x), step, func(b []byte, i int) []byte {
		return strconv.AppendInt(b, int64(x[i]), 10)
	})
}

// writeRows streams a CSV of header and n rows "step(i),VALUE", VALUE
// appended by value, without holding the file in memory (a trace of 10^6
// values would take about 20 MB as text).
func writeRows(path, header string, n int, step func(int) int, value func(b []byte, i int) []byte) error {
	return atomicfile.WriteStreamMkdir(path, func(w *bufio.Writer) error {
		b := append(make([]byte, 0, 64), header...)
		b = append(b, '\n')
		for i := range n {
			b = strconv.AppendInt(b, int64(step(i)), 10)
			b = append(b, ',')
			b = value(b, i)
			b = append(b, '\n')
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		_, err := w.Write(b)
		return err
	})
}

// rowNumber numbers rows from 1: every step, or every swap round.
func rowNumber(i int) int { return i + 1 }

// readIntColumn reads what writeIntColumn wrote.
func readIntColumn(path, header string, step func(int) int) ([]int32, error) {
	x, err := readColumn(path, header, step)
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(x))
	for i, v := range x {
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			return nil, fmt.Errorf("%s:%d: %v is not an integer (expected %s)", path, i+2, v, header)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// readColumn reads what writeColumn wrote, a line at a time, checking
// that row i is numbered step(i).
func readColumn(path, header string, step func(int) int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() != header {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return nil, fmt.Errorf("%s:1: missing header (expected %s)", path, header)
	}
	var out []float64
	for i := 0; sc.Scan(); i++ {
		l := sc.Text()
		k, v, ok := strings.Cut(l, ",")
		n, err1 := strconv.Atoi(k)
		x, err2 := strconv.ParseFloat(v, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: bad row %q (expected %s)", path, i+2, l, header)
		}
		if want := step(i); n != want {
			return nil, fmt.Errorf("%s:%d: row of step %d, expected step %d (the kept steps stats.json's trace gives)", path, i+2, n, want)
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// WriteSummary writes summary.json, run.json, the figures and, after
// tuning, tuning.csv.
func WriteSummary(dir string, meta Meta, machine string, results []*Result, recs map[string][]*TrialRecord) (*Summary, error) {
	return WriteOutputs(dir, meta, machine, results, recs, true)
}

// WriteOutputs is WriteSummary with the figures (acf.png, trace.png,
// rewards.png) drawn only if figures is true; the data files are written
// either way.
func WriteOutputs(dir string, meta Meta, machine string, results []*Result, recs map[string][]*TrialRecord, figures bool) (*Summary, error) {
	s := &Summary{Beta: meta.Beta, Seed: meta.Seed, Machine: trialMachines(recs, machine), Results: results, Warnings: Warnings(results)}
	s.Model.Spec, s.Model.Variables, s.Model.Interactions = meta.Spec, meta.Variables, meta.Interactions
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "summary.json"), append(js, '\n')); err != nil {
		return nil, err
	}
	mj, _ := json.MarshalIndent(meta, "", "  ")
	if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "run.json"), append(mj, '\n')); err != nil {
		return nil, err
	}
	if err := writePooledMarginals(dir, results); err != nil {
		return nil, err
	}
	if err := writeDrawsNPZ(dir, results, recs); err != nil {
		return nil, err
	}
	if err := writeBest(dir, results); err != nil {
		return nil, err
	}
	if !figures {
		return s, writeTuning(dir, recs)
	}
	return s, DrawFigures(dir, meta, results, recs)
}

// writeTuning writes tuning.csv for the first sampler with a tuning
// history, as DrawFigures does alongside rewards.png.
func writeTuning(dir string, recs map[string][]*TrialRecord) error {
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				return WriteTuningCSV(filepath.Join(dir, "tuning.csv"), rs)
			}
		}
	}
	return nil
}

// WriteTuningCSV writes every trial's (theta_i, reward_i) history.
func WriteTuningCSV(path string, rs []*TrialRecord) error {
	var b bytes.Buffer
	b.WriteString("trial,iteration,theta,reward\n")
	for _, r := range rs {
		if r.Tune == nil {
			continue
		}
		for i, rw := range r.Tune.Rewards {
			fmt.Fprintf(&b, "%d,%d,%q,%s\n", r.Trial, i+1, r.Tune.Thetas[i], strconv.FormatFloat(rw, 'g', -1, 64))
		}
	}
	return atomicfile.WriteFileMkdir(path, b.Bytes())
}
