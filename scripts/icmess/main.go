// Command icmess prints, for each run folder of `sardonics sample` given
// and each sampler in it, the pooled bulk ESS and split-R-hat (package
// diag, as summary.json computes them) of the target rung's energy and of
// q^2 (with --overlap), from the sampler's draws.npz (the kept draws after
// burn-in that summary.json pools, one row per trial), and both per
// CPU-second of summary.json's cpu_seconds; one JSON object per line.
// Beside each bulk ESS it prints the ESS that the spread of the trials'
// means implies (diag.TrialSpread), with a 90% interval: the bulk ESS truncates
// the autocorrelation sum at its first negative pair, and misses a slow
// tail of small autocorrelation behind a fast anticorrelated part (q^2 at
// the target rung of even/odd swaps with the cluster move: lag 1 0.49,
// lag 2 -0.02, 0.02 out to lag 200), which the trials' spread does not.
// scripts/icm-check.sh uses it (issue 35's comparisons).
//
//	go run ./scripts/icmess RUN_DIR...
package main

import (
	"archive/zip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"sardonics/diag"
	"sardonics/npy"
	"sardonics/summary"
)

// row is one sampler of one run.
type row struct {
	Dir          string       `json:"dir"`
	Model        string       `json:"model"`
	Beta         float64      `json:"beta"`
	Sampler      string       `json:"sampler"`
	Cluster      bool         `json:"cluster"`
	Trials       int          `json:"trials"`
	Draws        int          `json:"draws_per_trial"`
	CPU          float64      `json:"cpu_seconds"`
	EnergyMean   float64      `json:"energy_mean"`
	EnergyStderr float64      `json:"energy_stderr"`
	EnergyESS    *float64     `json:"energy_ess"`
	EnergyRhat   *float64     `json:"energy_rhat"`
	EnergyPerCPU *float64     `json:"energy_ess_per_cpu_second"`
	Q2Mean       *float64     `json:"q2_mean"`
	Q2ESS        *float64     `json:"q2_ess"`
	Q2Rhat       *float64     `json:"q2_rhat"`
	Q2PerCPU     *float64     `json:"q2_ess_per_cpu_second"`
	EnergyTrial  *diag.Spread `json:"energy_trial_ess,omitempty"`
	Q2Trial      *diag.Spread `json:"q2_trial_ess,omitempty"`
	RoundTrips   *float64     `json:"round_trips_per_trial"`
	SummaryESS   float64      `json:"summary_energy_ess"` // summary.json's, for a cross-check
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: icmess RUN_DIR...")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, dir := range os.Args[1:] {
		rows, err := runRows(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "icmess: %s: %v\n", dir, err)
			os.Exit(1)
		}
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				panic(err)
			}
		}
	}
}

func runRows(dir string) ([]row, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	var rows []row
	for _, res := range s.Results {
		arrays, err := readNPZ(filepath.Join(dir, res.Sampler, summary.DrawsFile))
		if err != nil {
			return nil, err
		}
		e := arrays["energy"]
		if len(e) == 0 {
			return nil, fmt.Errorf("%s: no energy draws", res.Sampler)
		}
		r := row{Dir: dir, Model: s.Model.Spec, Beta: s.Beta, Sampler: res.Sampler, Trials: len(e), Draws: len(e[0]),
			CPU: res.CPUSeconds, EnergyMean: res.EnergyMean, EnergyStderr: res.EnergyStderr, SummaryESS: res.ESS}
		if rp := res.Replica; rp != nil {
			r.Cluster = rp.Cluster != nil
			r.RoundTrips = &rp.RoundTripsPerTrial
		}
		r.EnergyTrial = diag.TrialSpread(e)
		d := diag.Diagnose(e)
		r.EnergyESS, r.EnergyRhat, r.EnergyPerCPU = finite(d.BulkESS), finite(d.Rhat), finite(d.BulkESS/res.CPUSeconds)
		if q := arrays["q"]; len(q) > 0 {
			q2 := make([][]float64, len(q))
			sum, n := 0.0, 0
			for i, c := range q {
				q2[i] = make([]float64, len(c))
				for j, x := range c {
					q2[i][j] = x * x
					sum += x * x
					n++
				}
			}
			r.Q2Trial = diag.TrialSpread(q2)
			d := diag.Diagnose(q2)
			r.Q2Mean = finite(sum / float64(n))
			r.Q2ESS, r.Q2Rhat, r.Q2PerCPU = finite(d.BulkESS), finite(d.Rhat), finite(d.BulkESS/res.CPUSeconds)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// finite is &x, or nil for NaN and infinities (JSON null).
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// readNPZ reads the 2-D little-endian float64 arrays of a draws.npz, one
// slice per row.
func readNPZ(path string) (map[string][][]float64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string][][]float64{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		a, msg := npy.Split(raw)
		if msg != "" {
			return nil, fmt.Errorf("%s: %s", f.Name, msg)
		}
		if a.Descr != "<f8" || len(a.Shape) != 2 || a.Fortran {
			continue // step and trial are integers
		}
		rows, cols := a.Shape[0], a.Shape[1]
		if len(a.Data) < 8*rows*cols {
			return nil, fmt.Errorf("%s: truncated", f.Name)
		}
		m := make([][]float64, rows)
		for i := range m {
			m[i] = make([]float64, cols)
			for j := range m[i] {
				m[i][j] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*(i*cols+j):]))
			}
		}
		name := f.Name
		if ext := filepath.Ext(name); ext == ".npy" {
			name = name[:len(name)-len(ext)]
		}
		out[name] = m
	}
	return out, nil
}
