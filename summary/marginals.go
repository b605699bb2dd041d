package summary

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"sardonics/atomicfile"
	"sardonics/npy"
)

// Marginals (--marginals): the mean <s_i> of every spin and <s_i s_j> of
// every interacting pair i < j of the model's Ising form (an RBM's
// visible-hidden pairs), over the steps after the burn-in that --save-every
// selects, each with a batch-means standard error: a trial's measured steps
// are cut into MarginalBatches consecutive batches of (nearly) equal
// length, and the error is the spread of the batch means over sqrt(number
// of batches), pooled over the trials. It holds when a batch is much
// longer than the integrated autocorrelation time (a trial's energy tau_int
// is in summary.json); per element an ESS would cost an FFT per spin.

// MarginalBatches is the number of batches per trial (fewer when a trial
// measures fewer steps): 32 give the error 31 degrees of freedom per trial
// while keeping batches long.
const MarginalBatches = 32

// MarginalsAcc accumulates a trial's marginals, one measured step at a
// time. Its exported fields are its whole state (a checkpoint's).
type MarginalsAcc struct {
	PI, PJ  []int32   `json:"-"`       // the pairs (Pairs)
	Steps   int       `json:"steps"`   // steps the trial will measure
	Batches int       `json:"batches"` // min(MarginalBatches, Steps)
	Done    int       `json:"done"`    // steps measured so far
	Batch   int       `json:"batch"`   // the current batch
	Cur     []int64   `json:"cur"`     // sums over the current batch: spins, then pairs
	S1      []float64 `json:"s1"`      // sums of the finished batches' means
	S2      []float64 `json:"s2"`      // ... and of their squares
}

// NewMarginalsAcc is the accumulator of a trial that will measure steps
// steps of a model with n spins and the pairs (pi, pj).
func NewMarginalsAcc(n int, pi, pj []int32, steps int) *MarginalsAcc {
	k := n + len(pi)
	return &MarginalsAcc{PI: pi, PJ: pj, Steps: steps, Batches: min(MarginalBatches, steps),
		Cur: make([]int64, k), S1: make([]float64, k), S2: make([]float64, k)}
}

// batchStart is the measured-step count at which batch b starts (b =
// Batches: Steps); every batch holds at least one step.
func (a *MarginalsAcc) batchStart(b int) int { return b * a.Steps / a.Batches }

// Add measures the spins s of one step.
func (a *MarginalsAcc) Add(s []int8) {
	n := len(s)
	cur := a.Cur[:n+len(a.PI)]
	for i, v := range s {
		cur[i] += int64(v)
	}
	pc := cur[n:]
	for k, i := range a.PI {
		pc[k] += int64(s[i] * s[a.PJ[k]])
	}
	a.Done++
	if end := a.batchStart(a.Batch + 1); a.Done == end {
		l := float64(end - a.batchStart(a.Batch))
		for k, c := range a.Cur {
			x := float64(c) / l
			a.S1[k] += x
			a.S2[k] += x * x
			a.Cur[k] = 0
		}
		a.Batch++
	}
}

// Finish is the trial's marginals: each element's mean and standard error
// over its batches.
func (a *MarginalsAcc) Finish(n int) *TrialMarginals {
	k := len(a.S1)
	mean, se := make([]float64, k), make([]float64, k)
	b := float64(a.Batches)
	for e := range k {
		mean[e] = a.S1[e] / b
		v := max(0, (a.S2[e]-b*mean[e]*mean[e])/(b-1)) // NaN for one batch
		se[e] = math.Sqrt(v / b)
	}
	return &TrialMarginals{Batches: a.Batches, Steps: a.Steps, Spins: n, PairCount: len(a.PI), PI: a.PI, PJ: a.PJ,
		Mean: mean, Stderr: se}
}

// TrialMarginals is a trial's marginals: stats.json "marginals" says how
// they were measured; marginals.npy and correlations.npy hold them.
type TrialMarginals struct {
	Batches   int `json:"batches"`        // batches of the batch means
	Steps     int `json:"measured_steps"` // steps measured
	Spins     int `json:"spins"`          // N
	PairCount int `json:"pairs"`          // interacting pairs
	// The pairs, and every element's mean and standard error: the N
	// spins first, then the pairs.
	PI, PJ       []int32   `json:"-"`
	Mean, Stderr []float64 `json:"-"`
}

// npyF8 encodes rows x cols float64 values (row-major) as .npy.
func npyF8(rows, cols int, vals []float64) []byte { return npy.F8(vals, rows, cols) }

// marginalFiles is marginals.npy (N x 2: <s_i>, stderr) and
// correlations.npy (P x 4: i, j, <s_i s_j>, stderr) of m.
func marginalFiles(m *TrialMarginals) (spins, pairs []byte) {
	s := make([]float64, 0, 2*m.Spins)
	for i := range m.Spins {
		s = append(s, m.Mean[i], m.Stderr[i])
	}
	p := make([]float64, 0, 4*m.PairCount)
	for k := range m.PairCount {
		e := m.Spins + k
		p = append(p, float64(m.PI[k]), float64(m.PJ[k]), m.Mean[e], m.Stderr[e])
	}
	return npyF8(m.Spins, 2, s), npyF8(m.PairCount, 4, p)
}

// writeMarginals writes m's two files into folder dir.
func writeMarginals(dir string, m *TrialMarginals) error {
	s, p := marginalFiles(m)
	if err := atomicfile.WriteFileMkdir(filepath.Join(dir, "marginals.npy"), s); err != nil {
		return err
	}
	return atomicfile.WriteFileMkdir(filepath.Join(dir, "correlations.npy"), p)
}

// readNPYF8 reads a rows x cols float64 .npy file that npyF8 wrote.
func readNPYF8(path string, rows, cols int) ([]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, msg := npy.Split(raw)
	switch {
	case msg != "":
		return nil, fmt.Errorf("%s: %s", path, msg)
	case a.Descr != "<f8" || a.Fortran || len(a.Shape) != 2 || a.Shape[0] != rows || a.Shape[1] != cols || len(a.Data) != 8*rows*cols:
		return nil, fmt.Errorf("%s: array %s of shape %v (expected <f8 of shape (%d, %d), as sardonics writes it)", path, a.Descr, a.Shape, rows, cols)
	}
	out := make([]float64, rows*cols)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
	}
	return out, nil
}

// readMarginals fills m (its counts from stats.json) from folder dir.
func readMarginals(dir string, m *TrialMarginals) error {
	s, err := readNPYF8(filepath.Join(dir, "marginals.npy"), m.Spins, 2)
	if err != nil {
		return err
	}
	p, err := readNPYF8(filepath.Join(dir, "correlations.npy"), m.PairCount, 4)
	if err != nil {
		return err
	}
	k := m.Spins + m.PairCount
	m.Mean, m.Stderr = make([]float64, k), make([]float64, k)
	m.PI, m.PJ = make([]int32, m.PairCount), make([]int32, m.PairCount)
	for i := range m.Spins {
		m.Mean[i], m.Stderr[i] = s[2*i], s[2*i+1]
	}
	for q := range m.PairCount {
		m.PI[q], m.PJ[q] = int32(p[4*q]), int32(p[4*q+1])
		m.Mean[m.Spins+q], m.Stderr[m.Spins+q] = p[4*q+2], p[4*q+3]
	}
	return nil
}

// Marginals are a sampler's marginals pooled over its trials in
// summary.json (the values are in SpinsFile and PairsFile).
type Marginals struct {
	Batches   int    `json:"batches"`        // over all trials
	Steps     int    `json:"measured_steps"` // over all trials
	SpinsFile string `json:"spins_file"`     // SAMPLER/marginals.npy, relative to the run's folder
	PairsFile string `json:"pairs_file"`     // SAMPLER/correlations.npy
	// The pooled values (TrialMarginals' layout).
	Pooled *TrialMarginals `json:"-"`
}

// marginals pools the trials' marginals: every batch of every trial is
// one batch of the pooled batch means (law of total variance: the spread
// of each trial's batches about its mean, and of the trials' means about
// the grand mean, so that trials that disagree widen the error).
func (res *Result) marginals(recs []*TrialRecord) {
	var have []*TrialMarginals
	var missing []int
	for _, r := range recs {
		if r.Marginals == nil || r.Marginals.Mean == nil {
			missing = append(missing, r.Trial)
			continue
		}
		have = append(have, r.Marginals)
	}
	switch {
	case len(have) == 0:
		return // no --marginals
	case len(missing) > 0:
		res.MarginalsNote = fmt.Sprintf("trial(s) %s measured no marginals", joinInts(missing))
		return
	}
	m0 := have[0]
	for i, m := range have[1:] {
		if m.Spins != m0.Spins || m.PairCount != m0.PairCount {
			res.MarginalsNote = fmt.Sprintf("trials %d and %d measured marginals of other models", recs[0].Trial, recs[i+1].Trial)
			return
		}
	}
	k := len(m0.Mean)
	p := &TrialMarginals{Spins: m0.Spins, PairCount: m0.PairCount, PI: m0.PI, PJ: m0.PJ, Mean: make([]float64, k), Stderr: make([]float64, k)}
	for _, m := range have {
		p.Batches += m.Batches
		p.Steps += m.Steps
	}
	b := float64(p.Batches)
	for e := range k {
		mu := 0.0
		for _, m := range have {
			mu += float64(m.Batches) * m.Mean[e]
		}
		mu /= b
		ss := 0.0 // sum over all batches of (batch mean - mu)^2
		for _, m := range have {
			bt := float64(m.Batches)
			if m.Batches > 1 {
				ss += (bt - 1) * bt * m.Stderr[e] * m.Stderr[e] // (B_t - 1) times the batch means' variance
			}
			ss += bt * (m.Mean[e] - mu) * (m.Mean[e] - mu)
		}
		p.Mean[e] = mu
		p.Stderr[e] = math.Sqrt(ss / (b - 1) / b)
	}
	res.Marginals = &Marginals{Batches: p.Batches, Steps: p.Steps, SpinsFile: filepath.Join(res.Sampler, "marginals.npy"),
		PairsFile: filepath.Join(res.Sampler, "correlations.npy"), Pooled: p}
}

// writePooledMarginals writes each result's pooled marginals into
// DIR/SAMPLER.
func writePooledMarginals(dir string, results []*Result) error {
	for _, r := range results {
		if r.Marginals != nil && r.Marginals.Pooled != nil {
			if err := writeMarginals(filepath.Join(dir, r.Sampler), r.Marginals.Pooled); err != nil {
				return err
			}
		}
	}
	return nil
}
