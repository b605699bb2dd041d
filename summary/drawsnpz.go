// draws.npz: a sampler's pooled draws for ArviZ.

package summary

import (
	"encoding/binary"
	"math"
	"path/filepath"

	"sardonics/atomicfile"
	"sardonics/npy"
)

// DrawsFile is the name of the archive of a sampler's kept draws after
// burn-in, in its folder.
const DrawsFile = "draws.npz"

// drawsNPZ is draws.npz of a sampler's trials: the draws its statistics
// pool (each trial's kept draws after burn-in at the common interval,
// Result.Thinning.Every), cut to the shortest trial's count so that every
// array is (trials, draws) as ArviZ's from_dict takes a posterior
// (az.from_dict(posterior=dict(np.load("draws.npz")))): energy, m and |m|
// (float64), with two sets of replicas q (float64), step (int64: the step
// after which each draw was taken) and trial (int64, one a row). nil when
// no trial has a draw.
func drawsNPZ(res *Result, recs []*TrialRecord) ([]byte, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	p := newPool(recs)
	d := math.MaxInt
	for i, r := range recs {
		d = min(d, len(pooledOf(p, i, r, res.BurnIn, r.Energies)))
	}
	if d == 0 || d == math.MaxInt {
		return nil, nil
	}
	t := len(recs)
	f8 := func(v func(i int, r *TrialRecord, j int) float64) []byte {
		b := npy.Header("<f8", t, d)
		for i, r := range recs {
			for j := range d {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v(i, r, j)))
			}
		}
		return b
	}
	// Draw j of trial i is its kept draw after burn-in number (j+1)*sub-1.
	at := func(i int, r *TrialRecord, j int) int { return r.burnDraws(res.BurnIn) + (j+1)*p.sub[i] - 1 }
	n := 1.0
	if r := recs[0]; r.Observables != nil && r.Observables.Spins > 0 {
		n = float64(r.Observables.Spins)
	}
	names := []string{"energy"}
	arrays := [][]byte{f8(func(i int, r *TrialRecord, j int) float64 { return r.Energies[at(i, r, j)] })}
	mag := true
	for _, r := range recs {
		mag = mag && len(r.Magnetization) == len(r.Energies)
	}
	if mag {
		names = append(names, "m", "abs_m")
		arrays = append(arrays,
			f8(func(i int, r *TrialRecord, j int) float64 { return float64(r.Magnetization[at(i, r, j)]) / n }),
			f8(func(i int, r *TrialRecord, j int) float64 { return math.Abs(float64(r.Magnetization[at(i, r, j)])) / n }))
	}
	q := true
	for _, r := range recs {
		q = q && len(r.Overlap) == len(r.Energies)
	}
	if q {
		names = append(names, "q")
		arrays = append(arrays, f8(func(i int, r *TrialRecord, j int) float64 { return r.Overlap[at(i, r, j)] }))
	}
	steps := npy.Header("<i8", t, d)
	trials := npy.Header("<i8", t)
	for i, r := range recs {
		for j := range d {
			steps = binary.LittleEndian.AppendUint64(steps, uint64(r.stepOf(at(i, r, j))))
		}
		trials = binary.LittleEndian.AppendUint64(trials, uint64(r.Trial))
	}
	names = append(names, "step", "trial")
	arrays = append(arrays, steps, trials)
	return npz(names, arrays)
}

// writeDrawsNPZ writes each sampler's draws.npz into its folder.
func writeDrawsNPZ(dir string, results []*Result, recs map[string][]*TrialRecord) error {
	for _, res := range results {
		b, err := drawsNPZ(res, recs[res.Sampler])
		if err != nil {
			return err
		}
		if b == nil {
			continue
		}
		if err := atomicfile.WriteFileMkdir(filepath.Join(dir, res.Sampler, DrawsFile), b); err != nil {
			return err
		}
	}
	return nil
}
