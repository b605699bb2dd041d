package summary

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/model"
)

// A trial's marginals are its measured steps' means with batch-means
// errors; pooled, every batch of every trial counts once; the files read
// back exactly; a trial without them is named.
func TestMarginals(t *testing.T) {
	is, err := model.NewIsing(3, []model.Edge{{I: 0, J: 1, W: 1}, {I: 1, J: 2, W: -1}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pi, pj := is.Pairs()
	if len(pi) != 2 || pi[0] != 0 || pj[0] != 1 || pi[1] != 1 || pj[1] != 2 {
		t.Fatalf("pairs %v %v", pi, pj)
	}
	const steps = 1000
	r := rand.New(rand.NewPCG(1, 2))
	var recs []*TrialRecord
	for tr := range 3 {
		acc := NewMarginalsAcc(3, pi, pj, steps)
		var sum [5]float64
		for range steps {
			s := []int8{1, 1, 1}
			for i := range s {
				if r.Float64() < 0.3+0.1*float64(i+tr) {
					s[i] = -1
				}
			}
			acc.Add(s)
			x := [5]float64{float64(s[0]), float64(s[1]), float64(s[2]), float64(s[0] * s[1]), float64(s[1] * s[2])}
			for e := range x {
				sum[e] += x[e]
			}
		}
		tm := acc.Finish(3)
		if tm.Batches != MarginalBatches || tm.Steps != steps {
			t.Fatalf("batches %d, steps %d", tm.Batches, tm.Steps)
		}
		for e := range 5 {
			if math.Abs(tm.Mean[e]-sum[e]/steps) > 1e-3 { // batches of 31 and 32 steps: the mean of batch means
				t.Errorf("trial %d element %d: mean %v, plain mean %v", tr, e, tm.Mean[e], sum[e]/steps)
			}
			// Independent draws: the batch-means error is near sd/sqrt(n).
			p := (1 + sum[e]/steps) / 2
			if se := 2 * math.Sqrt(p*(1-p)/steps); math.Abs(tm.Stderr[e]/se-1) > 0.4 {
				t.Errorf("trial %d element %d: stderr %v, independent draws %v", tr, e, tm.Stderr[e], se)
			}
		}
		rec := &TrialRecord{Sampler: "s", Trial: tr, Energies: make([]float64, steps), Marginals: tm}
		dir := t.TempDir()
		if err := WriteTrial(dir, rec); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTrial(TrialDir(dir, "s", tr))
		if err != nil {
			t.Fatal(err)
		}
		for e := range 5 {
			if back.Marginals.Mean[e] != tm.Mean[e] || back.Marginals.Stderr[e] != tm.Stderr[e] {
				t.Fatalf("element %d read back as %v +- %v, wrote %v +- %v", e, back.Marginals.Mean[e], back.Marginals.Stderr[e], tm.Mean[e], tm.Stderr[e])
			}
		}
		if back.Marginals.PI[1] != 1 || back.Marginals.PJ[1] != 2 {
			t.Fatalf("pairs read back as %v %v", back.Marginals.PI, back.Marginals.PJ)
		}
		recs = append(recs, back)
	}
	res := Summarize("s", recs, steps, 0, 1)
	p := res.Marginals.Pooled
	if res.Marginals.Batches != 3*MarginalBatches || res.Marginals.SpinsFile != "s/marginals.npy" {
		t.Fatalf("%+v", res.Marginals)
	}
	for e := range 5 {
		// Pooled: the batch-weighted mean of the trials' means; the error
		// includes the spread between the trials (they differ here).
		mu := (recs[0].Marginals.Mean[e] + recs[1].Marginals.Mean[e] + recs[2].Marginals.Mean[e]) / 3
		if math.Abs(p.Mean[e]-mu) > 1e-15 {
			t.Errorf("element %d: pooled mean %v, want %v", e, p.Mean[e], mu)
		}
		within := 0.0
		for _, r := range recs {
			within += r.Marginals.Stderr[e] * r.Marginals.Stderr[e] / 9
		}
		if !(p.Stderr[e] > math.Sqrt(within)) {
			t.Errorf("element %d: pooled stderr %v not above the within-trial %v", e, p.Stderr[e], math.Sqrt(within))
		}
	}
	recs[1] = &TrialRecord{Sampler: "s", Trial: 7, Energies: make([]float64, steps)}
	if res := Summarize("s", recs, steps, 0, 1); res.Marginals != nil || res.MarginalsNote != "trial(s) 7 measured no marginals" {
		t.Errorf("a trial without marginals: %+v %q", res.Marginals, res.MarginalsNote)
	}
}
