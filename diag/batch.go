package diag

import "math"

// BatchMeans holds a long trace in bounded memory as the means of its
// batches of B consecutive values: once 2 cap means are kept, neighbours
// merge and B doubles, so between cap and 2 cap means cover the whole
// trace (the partial batch aside). Its fields are its saved state (JSON)
// and stay finite. Batch means estimate the variance of the trace's mean
// without choosing a batch length in advance (Flegal and Jones 2010, Ann.
// Statist. 38, 1034; the doubling is their "batch size grows with n").
type BatchMeans struct {
	B     int       `json:"b"` // values per batch (0: none yet, taken as 1)
	Means []float64 `json:"means"`
	Part  float64   `json:"part"` // the partial batch's sum, sum of squares and count
	PartQ float64   `json:"part_q"`
	PartN int       `json:"part_n"`
	N     int64     `json:"n"` // values in full batches, their sum and sum of squares
	Sum   float64   `json:"sum"`
	Sq    float64   `json:"sq"`
}

// Add appends x to the trace, keeping fewer than 2 cap means.
func (a *BatchMeans) Add(x float64, cap int) {
	if a.B == 0 {
		a.B = 1
	}
	a.Part += x
	a.PartQ += x * x
	a.PartN++
	if a.PartN < a.B {
		return
	}
	a.Means = append(a.Means, a.Part/float64(a.B))
	a.N += int64(a.B)
	a.Sum += a.Part
	a.Sq += a.PartQ
	a.Part, a.PartQ, a.PartN = 0, 0, 0
	if len(a.Means) == 2*cap {
		for j := range cap {
			a.Means[j] = (a.Means[2*j] + a.Means[2*j+1]) / 2
		}
		a.Means = a.Means[:cap]
		a.B *= 2
	}
}

// Valid reports whether a restored a can be a trace that Add kept with cap.
func (a *BatchMeans) Valid(cap int) bool {
	return a.B >= 0 && a.PartN >= 0 && a.N >= 0 && len(a.Means) < 2*cap && (a.B == 0 || a.PartN < a.B)
}

// Moments are the mean and the (population) variance of the values in
// full batches (0, 0 for none).
func (a *BatchMeans) Moments() (mean, variance float64) {
	if a.N == 0 {
		return 0, 0
	}
	n := float64(a.N)
	mean = a.Sum / n
	return mean, max(0, a.Sq/n-mean*mean)
}

// MeansMoments are the mean and the (population) variance of the batch
// means (NaN for none).
func (a *BatchMeans) MeansMoments() (mean, variance float64) {
	nb := float64(len(a.Means))
	if nb == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range a.Means {
		mean += x
	}
	mean /= nb
	for _, x := range a.Means {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / nb
}
