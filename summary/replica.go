package summary

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"sardonics/figure"
	"sardonics/replica"
)

// writeReplicaFiles writes overlap.csv (q after each kept step), rungs.csv
// (every rung at the end of each kept swap round) and walk.csv (the rung
// of member 0 after each swap round) into trial folder td.
func writeReplicaFiles(td string, r *TrialRecord) error {
	if len(r.Overlap) > 0 {
		if err := writeColumn(filepath.Join(td, "overlap.csv"), "step,q", r.stepOf, r.Overlap); err != nil {
			return err
		}
	}
	if r.Rungs != nil {
		if err := writeRungs(td, r.Rungs); err != nil {
			return err
		}
	}
	if r.Replica != nil && len(r.Replica.Walk) > 0 {
		w := make([]float64, len(r.Replica.Walk))
		for i, k := range r.Replica.Walk {
			w[i] = float64(k)
		}
		return writeColumn(filepath.Join(td, "walk.csv"), "round,rung", rowNumber, w)
	}
	return nil
}

// readReplicaFiles reads what writeReplicaFiles wrote, where it is there.
func readReplicaFiles(td string, r *TrialRecord) error {
	q, err := readColumn(filepath.Join(td, "overlap.csv"), "step,q", r.stepOf)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	r.Overlap = q
	if r.Rungs != nil {
		if err := readRungs(td, r); err != nil {
			return err
		}
	}
	if r.Replica == nil {
		return nil
	}
	w, err := readColumn(filepath.Join(td, "walk.csv"), "round,rung", rowNumber)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, k := range w {
		r.Replica.Walk = append(r.Replica.Walk, int16(k))
	}
	return nil
}

// ReplicaSummary is a sampler's replica exchange over its trials in
// summary.json.
type ReplicaSummary struct {
	Rungs int `json:"rungs"`
	// Ladder is the first trial's ladder (after adaptation), hottest first.
	Ladder []float64 `json:"ladder"`
	// SwapAcceptance is each neighbouring pair's acceptance after burn-in,
	// averaged over the trials (null: never proposed).
	SwapAcceptance []*float64 `json:"swap_acceptance"`
	// RoundTripsPerTrial is the mean number of hottest -> target ->
	// hottest journeys after burn-in (all replicas of a trial together).
	RoundTripsPerTrial float64 `json:"round_trips_per_trial"`
	// With two sets (--overlap), the overlap q of their target replicas
	// after every step after the burn-in (see the comment above
	// overlapStats): <q^2>, <|q|>, the Binder ratio g = (3 -
	// <q^4>/<q^2>^2)/2 and the spin-glass susceptibility chi_SG = N <q^2>,
	// each with its standard error, ESS and R-hat (absent without
	// --overlap).
	Q2     *Estimate `json:"q2,omitempty"`
	AbsQ   *Estimate `json:"abs_q,omitempty"`
	Binder *Estimate `json:"binder,omitempty"`
	ChiSG  *Estimate `json:"chi_sg,omitempty"`
	// Spins is N in chi_SG and q (0: not known).
	Spins int `json:"spins,omitempty"`
	// PerRung is every rung's energy (and with --overlap q^2 and g) at the
	// end of each swap round after the burn-in, hottest first, pooled over
	// the trials (see rungStats); absent with PerRungNote saying why.
	PerRung     []RungSummary `json:"per_rung,omitempty"`
	PerRungNote string        `json:"per_rung_note,omitempty"`
	// LadderNote says, when the trials' ladders differ (adaptive ladders
	// move per trial), that Ladder and per_rung's beta are the first
	// trial's while per_rung pools rung k of every trial.
	LadderNote string `json:"ladder_note,omitempty"`
	// RungsNeeded is the most rungs any trial's ladder said its range
	// needs for swap acceptance 0.23 (replica.Report.RungsNeeded; 0: not
	// known), RungsNeededFrom what it was estimated from.
	RungsNeeded     int    `json:"rungs_needed,omitempty"`
	RungsNeededFrom string `json:"rungs_needed_from,omitempty"`
	// Cluster is the cluster move between the two sets per rung (with
	// --cluster; see cluster.go).
	Cluster *ClusterSummary `json:"cluster,omitempty"`
	// Auto is how --replicas auto chose Rungs (absent when it was given).
	Auto *replica.AutoRungs `json:"replicas_auto,omitempty"`
	// Cycles is the hybrid cycle tuner's choices and cost (see cycles.go).
	Cycles *CyclesSummary `json:"cycles,omitempty"`
}

// summarizeReplica summarizes the replica records of a sampler's trials
// (nil when they have none).
func summarizeReplica(recs []*TrialRecord, burn int) *ReplicaSummary {
	if len(recs) == 0 || recs[0].Replica == nil {
		return nil
	}
	r0 := recs[0].Replica
	s := &ReplicaSummary{Rungs: len(r0.Ladder), Ladder: r0.Ladder, SwapAcceptance: make([]*float64, len(r0.SwapAcceptance)), Auto: r0.Auto}
	for k := range s.SwapAcceptance {
		sum, n := 0.0, 0
		for _, r := range recs {
			if r.Replica != nil && k < len(r.Replica.SwapAcceptance) && r.Replica.SwapAcceptance[k] != nil {
				sum += *r.Replica.SwapAcceptance[k]
				n++
			}
		}
		if n > 0 {
			v := sum / float64(n)
			s.SwapAcceptance[k] = &v
		}
	}
	trips := 0.0
	for _, r := range recs {
		if r.Replica != nil {
			trips += float64(r.Replica.RoundTrips)
		}
	}
	s.RoundTripsPerTrial = trips / float64(len(recs))
	s.Cluster = summarizeCluster(recs)
	s.Cycles = summarizeCycles(recs)
	for _, r := range recs {
		if r.Replica != nil && r.Replica.RungsNeeded > s.RungsNeeded {
			s.RungsNeeded, s.RungsNeededFrom = r.Replica.RungsNeeded, "the swap acceptance"
			if r.Replica.EnergySD != nil {
				s.RungsNeededFrom = "the energy variance"
			}
		}
	}
	worst := 0.0
	for _, r := range recs[1:] {
		if r.Replica == nil || len(r.Replica.Ladder) != len(r0.Ladder) {
			continue
		}
		for k, b := range r.Replica.Ladder {
			worst = max(worst, math.Abs(b-r0.Ladder[k]))
		}
	}
	if worst > 0 {
		s.LadderNote = fmt.Sprintf("the trials' ladders differ (adapted per trial, by up to %.3g in beta): ladder and per_rung's beta are trial %d's, and per_rung pools rung k of every trial", worst, recs[0].Trial)
	}
	return s
}

// walkRounds is how many swap rounds of a replica's walk the figure shows:
// enough to see round trips, few enough to see each one.
const walkRounds = 2000

// drawReplicaFigures draws replicas.png (swap acceptance along the ladder,
// one replica's walk) and, with overlaps, overlap.png (P(q) over the kept
// steps), when the run used replica exchange.
func drawReplicaFigures(dir, title string, burn int, results []*Result, recs map[string][]*TrialRecord) error {
	var acc, walks, hists []figure.Series
	for _, res := range results {
		rs := recs[res.Sampler]
		if res.Replica == nil || len(rs) == 0 {
			continue
		}
		var x, y []float64
		for k, a := range res.Replica.SwapAcceptance {
			if a != nil {
				x = append(x, (res.Replica.Ladder[k]+res.Replica.Ladder[k+1])/2)
				y = append(y, *a)
			}
		}
		acc = append(acc, figure.Series{Name: res.Sampler, X: x, Y: y})
		var walk figure.Series // walks[i] is acc[i]'s sampler's, empty if none
		if rp := rs[0].Replica; rp != nil {
			walk.Name = fmt.Sprintf("trial %d", rs[0].Trial)
			for i, k := range rp.Walk[:min(len(rp.Walk), walkRounds)] {
				walk.X = append(walk.X, float64(i+1))
				walk.Y = append(walk.Y, float64(k))
			}
		}
		walks = append(walks, walk)
		const bins = 51
		h := make([]float64, bins)
		n := 0
		for _, r := range rs {
			for i := r.burnDraws(burn); i < len(r.Overlap); i++ {
				b := int(math.Round((r.Overlap[i] + 1) / 2 * (bins - 1)))
				h[min(max(b, 0), bins-1)]++
				n++
			}
		}
		if n > 0 {
			var hx []float64
			for b := range h {
				hx = append(hx, -1+2*float64(b)/(bins-1))
				h[b] /= float64(n) * 2 / (bins - 1) // a density on [-1, 1]
			}
			hists = append(hists, figure.Series{Name: res.Sampler, X: hx, Y: h})
		}
	}
	if len(acc) == 0 {
		return nil
	}
	if err := figure.PlotReplicas(filepath.Join(dir, "replicas.png"), "Replica exchange: "+title, acc, walks); err != nil {
		return err
	}
	if len(hists) > 0 {
		return figure.PlotOverlap(filepath.Join(dir, "overlap.png"), "Overlap distribution P(q) after burn-in: "+title, hists)
	}
	return nil
}
