package summary

import (
	"fmt"
	"strings"
)

// CyclesSummary is the cycle tuner of hybrid replica exchange over a
// sampler's trials (replica.Tuning in each trial's stats.json): what each
// trial chose and why, and what the tuning cost.
type CyclesSummary struct {
	Observable string `json:"observable"` // the target's slow observable: q2 or abs_m
	// CPU of the tuning (from its first round to its last, every thread)
	// per trial, and its share of the trial's CPU: the mean and the most
	// over the trials.
	MeanCPUSeconds float64        `json:"mean_cpu_seconds"`
	MeanCPUShare   float64        `json:"mean_cpu_share"`
	MaxCPUShare    float64        `json:"max_cpu_share"`
	Trials         []CyclesChoice `json:"trials"`
}

// CyclesChoice is one trial's choice.
type CyclesChoice struct {
	Trial      int      `json:"trial"`
	Cycles     string   `json:"cycles"` // per rung, hottest first: "1:0 1:0 0:67"
	Chosen     string   `json:"chosen"` // the assignment's label
	DecidedBy  string   `json:"decided_by"`
	Note       string   `json:"note,omitempty"` // replica.Tuning.Note
	CPUSeconds float64  `json:"cpu_seconds"`
	CPUShare   float64  `json:"cpu_share"`
	Scores     []string `json:"assignments"` // each assignment's scores, in words
}

// summarizeCycles digests the trials' tunings (nil when the first trial
// has none).
func summarizeCycles(recs []*TrialRecord) *CyclesSummary {
	if len(recs) == 0 || recs[0].Replica == nil || recs[0].Replica.Cycles == nil {
		return nil
	}
	s := &CyclesSummary{Observable: recs[0].Replica.Cycles.Observable}
	for _, r := range recs {
		if r.Replica == nil || r.Replica.Cycles == nil {
			continue
		}
		tn := r.Replica.Cycles
		c := CyclesChoice{Trial: r.Trial, DecidedBy: tn.DecidedBy, Note: tn.Note, CPUSeconds: tn.CPUSeconds, CPUShare: tn.CPUShare, Chosen: "none"}
		if tn.Chosen >= 0 && tn.Chosen < len(tn.Assignments) {
			c.Chosen = tn.Assignments[tn.Chosen].Label
		}
		var cy []string
		for _, k := range tn.Rungs {
			cy = append(cy, fmt.Sprintf("%d:%d", k.Cycle[0], k.Cycle[1]))
		}
		c.Cycles = strings.Join(cy, " ")
		for _, a := range tn.Assignments {
			slow := fmt.Sprintf("%.4g", a.Slow.PerCPUSecond)
			if !a.Slow.Resolved {
				slow = "at most " + slow + " (" + a.Slow.Why + ")"
			}
			trips := fmt.Sprintf("%.4g", a.RoundTripsPerCPUSecond)
			if !a.TripsKnown {
				trips = "at most " + trips + fmt.Sprintf(" (%d traversals)", a.Traversals)
			}
			c.Scores = append(c.Scores, fmt.Sprintf("%s: %s ESS per CPU-s %s, round trips per CPU-s %s; %s", a.Label, tn.Observable, slow, trips, a.VsCheap))
		}
		s.MeanCPUSeconds += c.CPUSeconds
		s.MeanCPUShare += c.CPUShare
		s.MaxCPUShare = max(s.MaxCPUShare, c.CPUShare)
		s.Trials = append(s.Trials, c)
	}
	s.MeanCPUSeconds /= float64(len(s.Trials))
	s.MeanCPUShare /= float64(len(s.Trials))
	return s
}
