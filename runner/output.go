package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"sardonics/diag"
	"sardonics/model"
	"sardonics/report"
)

// Meta identifies a run; `report` merges only folders whose Meta agree
// (timing aside).
type Meta struct {
	Spec         string  `json:"spec"`
	Variables    int     `json:"variables"`
	Interactions int     `json:"interactions"`
	Beta         float64 `json:"beta"`
	Seed         uint64  `json:"seed"`
	Steps        int     `json:"steps"`
	BurnIn       int     `json:"burn_in"`
	Settings     string  `json:"settings"` // sardonics settings (theta, layout, weight, accept, tuning)
}

// Result is one sampler's entry in summary.json (SPEC section 5).
type Result struct {
	Sampler          string    `json:"sampler"`
	Trials           int       `json:"trials"`
	Steps            int       `json:"steps"`
	BurnIn           int       `json:"burn_in"`
	EnergyMean       float64   `json:"energy_mean"`
	EnergyStderr     float64   `json:"energy_stderr"`
	TauInt           float64   `json:"tau_int"`
	ESS              float64   `json:"ess"`
	Rhat             *float64  `json:"rhat"`
	WallSeconds      float64   `json:"wall_seconds"`
	CPUSeconds       float64   `json:"cpu_seconds"`
	ESSPerCPUSecond  float64   `json:"ess_per_cpu_second"`
	AcceptanceRate   *float64  `json:"acceptance_rate"`
	Flips            *int64    `json:"flips"`
	FlipsPerStep     *float64  `json:"flips_per_step"`
	NsPerFlip        *float64  `json:"ns_per_flip"`
	BetweenTrialSD   float64   `json:"between_trial_sd"` // spread of the per-trial mean energies
	ACF              []float64 `json:"acf"`
	Params           *string   `json:"params"`
	TrialIDs         []int     `json:"trial_ids"`
	BestTuningReward *float64  `json:"best_tuning_reward,omitempty"`
}

// Summary is summary.json.
type Summary struct {
	Model struct {
		Spec         string `json:"spec"`
		Variables    int    `json:"variables"`
		Interactions int    `json:"interactions"`
	} `json:"model"`
	Beta    float64   `json:"beta"`
	Seed    uint64    `json:"seed"`
	Machine string    `json:"machine,omitempty"`
	Results []*Result `json:"results"`
}

// MaxACFLag is the largest lag kept in summaries and plots.
const MaxACFLag = 500

// Summarize computes a sampler's result from its trial records. wall is the
// elapsed time of the sampler's phase (0: sum of the trials' wall times).
func Summarize(name string, recs []*TrialRecord, steps, burn int, wall float64) *Result {
	res := &Result{Sampler: name, Trials: len(recs), Steps: steps, BurnIn: burn}
	var kept [][]float64
	var sumSE2, sumMean, cpu, twall float64
	var flips, prop, acc int64
	flipsOK := true
	acfSum := []float64{}
	var means []float64
	for _, r := range recs {
		x := r.Energies[min(burn, len(r.Energies)):]
		kept = append(kept, x)
		res.TrialIDs = append(res.TrialIDs, r.Trial)
		cpu += r.CPUSeconds
		twall += r.WallSeconds
		if r.Flips < 0 {
			flipsOK = false
		}
		flips += r.Flips
		prop += r.Proposed
		acc += r.Accepted
		if len(x) == 0 {
			continue
		}
		tau, _ := diag.TauInt(x)
		mean, se := diag.MeanStdErr(x, tau)
		means = append(means, mean)
		sumMean += mean
		sumSE2 += se * se
		res.TauInt += tau / float64(len(recs))
		res.ESS += diag.ESS(len(x), tau)
		a := diag.ACF(x, min(MaxACFLag, len(x)-1))
		if len(acfSum) < len(a) {
			acfSum = append(acfSum, make([]float64, len(a)-len(acfSum))...)
		}
		for i, v := range a {
			acfSum[i] += v / float64(len(recs))
		}
		if r.Tune != nil && len(r.Tune.Rewards) > 0 {
			b := r.Tune.Rewards[0]
			for _, v := range r.Tune.Rewards {
				b = math.Max(b, v)
			}
			if res.BestTuningReward == nil || b > *res.BestTuningReward {
				res.BestTuningReward = &b
			}
		}
	}
	n := float64(len(means))
	if n > 0 {
		res.EnergyMean = pooledMean(kept)
		res.EnergyStderr = math.Sqrt(sumSE2) / n
		if n > 1 {
			v := 0.0
			for _, m := range means {
				v += (m - sumMean/n) * (m - sumMean/n)
			}
			res.BetweenTrialSD = math.Sqrt(v / (n - 1))
		}
	}
	res.ACF = acfSum
	for i, v := range res.ACF {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			res.ACF[i] = 0
		}
	}
	for _, p := range []*float64{&res.EnergyStderr, &res.TauInt, &res.ESS, &res.BetweenTrialSD} {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			*p = 0 // JSON has no NaN; too short a trace to estimate
		}
	}
	if rh := diag.SplitRhat(kept); !math.IsNaN(rh) && !math.IsInf(rh, 0) {
		res.Rhat = &rh
	}
	res.CPUSeconds = cpu
	res.WallSeconds = wall
	if wall == 0 {
		res.WallSeconds = twall
	}
	if cpu > 0 {
		res.ESSPerCPUSecond = res.ESS / cpu
	}
	if prop > 0 {
		a := float64(acc) / float64(prop)
		res.AcceptanceRate = &a
	}
	if flipsOK && len(recs) > 0 {
		res.Flips = &flips
		fps := float64(flips) / float64(steps*len(recs))
		res.FlipsPerStep = &fps
		if flips > 0 {
			ns := cpu * 1e9 / float64(flips)
			res.NsPerFlip = &ns
		}
	}
	if len(recs) > 0 && recs[0].Params != "" {
		p := recs[0].Params
		res.Params = &p
	}
	return res
}

// pooledMean is the mean of all kept rows, summed in a fixed order.
func pooledMean(kept [][]float64) float64 {
	s, c, n := 0.0, 0.0, 0
	for _, x := range kept {
		for _, v := range x {
			// Neumaier summation keeps the mean exact to rounding.
			t := s + v
			if math.Abs(s) >= math.Abs(v) {
				c += (s - t) + v
			} else {
				c += (v - t) + s
			}
			s = t
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return (s + c) / float64(n)
}

// WriteTrial writes a trial's folder: energy.csv, stats.json and, if any,
// states.npy.
func WriteTrial(dir string, r *TrialRecord) error {
	td := TrialDir(dir, r.Sampler, r.Trial)
	if len(r.States) > 0 {
		if err := WriteFileAtomic(filepath.Join(td, "states.npy"), npyUint8(r.States)); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	b.WriteString("step,energy\n")
	for i, e := range r.Energies {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(e, 'g', -1, 64))
		b.WriteByte('\n')
	}
	if err := WriteFileAtomic(filepath.Join(td, "energy.csv"), b.Bytes()); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(td, "stats.json"), append(js, '\n'))
}

// TrialDir is the folder of trial t of sampler name.
func TrialDir(dir, name string, t int) string {
	return filepath.Join(dir, name, fmt.Sprintf("trial-%d", t))
}

// npyUint8 encodes rows of bits as a NumPy .npy array (uint8, C order).
func npyUint8(rows [][]uint8) []byte {
	b := model.NPYHeader("|u1", len(rows), len(rows[0]))
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
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
	csv, err := os.ReadFile(filepath.Join(td, "energy.csv"))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(csv), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "step,energy" {
		return nil, fmt.Errorf("%s:1: missing header (expected step,energy)", filepath.Join(td, "energy.csv"))
	}
	for i, l := range lines[1:] {
		_, v, ok := strings.Cut(l, ",")
		e, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: bad row %q (expected step,energy)", filepath.Join(td, "energy.csv"), i+2, l)
		}
		r.Energies = append(r.Energies, e)
	}
	return r, nil
}

// WriteSummary writes summary.json, the figures and a table on stdout-like w.
func WriteSummary(dir string, meta Meta, machine string, results []*Result, recs map[string][]*TrialRecord) (*Summary, error) {
	s := &Summary{Beta: meta.Beta, Seed: meta.Seed, Machine: machine, Results: results}
	s.Model.Spec, s.Model.Variables, s.Model.Interactions = meta.Spec, meta.Variables, meta.Interactions
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "summary.json"), append(js, '\n')); err != nil {
		return nil, err
	}
	mj, _ := json.MarshalIndent(meta, "", "  ")
	if err := WriteFileAtomic(filepath.Join(dir, "run.json"), append(mj, '\n')); err != nil {
		return nil, err
	}
	return s, DrawFigures(dir, meta, results, recs)
}

// DrawFigures draws acf.png, trace.png and, after tuning, rewards.png and
// tuning.csv from a run's results and trial records.
func DrawFigures(dir string, meta Meta, results []*Result, recs map[string][]*TrialRecord) error {
	title := fmt.Sprintf("%s, beta = %.4g", meta.Spec, meta.Beta)
	var acfs, traces []report.Series
	for _, r := range results {
		acfs = append(acfs, report.Series{Name: r.Sampler, Y: r.ACF})
		if rs := recs[r.Sampler]; len(rs) > 0 {
			var x, y []float64
			// The kept steps only, as the paper's figures: the burn-in
			// transient would flatten the stationary fluctuations.
			for i := min(meta.BurnIn, len(rs[0].Energies)-1); i < len(rs[0].Energies); i += 5 {
				x = append(x, float64(i+1))
				y = append(y, rs[0].Energies[i])
			}
			traces = append(traces, report.Series{Name: fmt.Sprintf("%s (trial %d)", r.Sampler, rs[0].Trial), X: x, Y: y})
		}
	}
	if err := report.PlotACF(filepath.Join(dir, "acf.png"), "Energy autocorrelation: "+title, acfs); err != nil {
		return err
	}
	if err := report.PlotTraces(filepath.Join(dir, "trace.png"), fmt.Sprintf("Energy traces after burn-in (every 5th step): %s", title), traces); err != nil {
		return err
	}
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				if err := report.PlotRewards(filepath.Join(dir, "rewards.png"), fmt.Sprintf("Tuning rewards (trial %d): %s", r.Trial, title), r.Tune.Rewards); err != nil {
					return err
				}
				if err := WriteTuningCSV(filepath.Join(dir, "tuning.csv"), rs); err != nil {
					return err
				}
				return nil
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
			fmt.Fprintf(&b, "%d,%d,%q,%s\n", r.Trial, i, r.Tune.Thetas[i], strconv.FormatFloat(rw, 'g', -1, 64))
		}
	}
	return WriteFileAtomic(path, b.Bytes())
}

// Table renders results as a fixed-width text table.
func Table(results []*Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %12s %10s %9s %10s %7s %9s %11s %7s %10s\n", "sampler", "E mean", "stderr", "tau_int", "ESS", "R-hat", "cpu s", "ESS/cpu-s", "accept", "flips/step")
	for _, r := range results {
		rh, acc, fps := "-", "-", "-"
		if r.Rhat != nil {
			rh = fmt.Sprintf("%.3f", *r.Rhat)
		}
		if r.AcceptanceRate != nil {
			acc = fmt.Sprintf("%.3f", *r.AcceptanceRate)
		}
		if r.FlipsPerStep != nil {
			fps = fmt.Sprintf("%.1f", *r.FlipsPerStep)
		}
		fmt.Fprintf(&b, "%-11s %12.5g %10.3g %9.3g %10.4g %7s %9.3g %11.4g %7s %10s\n", r.Sampler, r.EnergyMean, r.EnergyStderr, r.TauInt, r.ESS, rh, r.CPUSeconds, r.ESSPerCPUSecond, acc, fps)
	}
	return b.String()
}

// SortedTrials returns records sorted by trial id.
func SortedTrials(rs []*TrialRecord) []*TrialRecord {
	out := append([]*TrialRecord(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Trial < out[j].Trial })
	return out
}
