package summary

import "sardonics/replica"

// ClusterSummary is replica exchange's cluster move (--cluster) over a
// sampler's trials, rung by rung (the first trial's rungs, hottest first).
type ClusterSummary struct {
	Move  string               `json:"move"`
	Rungs []ClusterRungSummary `json:"rungs"`
}

// ClusterRungSummary is one rung of ClusterSummary; counts are after
// burn-in.
type ClusterRungSummary struct {
	Beta          float64 `json:"beta"`            // the first trial's
	OnTrials      int     `json:"on_trials"`       // trials whose move runs at this rung
	MovesPerTrial float64 `json:"moves_per_trial"` // moves made, over all trials
	// MeanSize is the mean cluster over every move of every trial, and
	// MeanShare its mean share of the q = -1 sites (null: no move).
	MeanSize  *float64 `json:"mean_cluster_size"`
	MeanShare *float64 `json:"mean_cluster_share"`
}

// summarizeCluster pools the trials' cluster-move reports (nil when the
// first has none).
func summarizeCluster(recs []*TrialRecord) *ClusterSummary {
	if len(recs) == 0 || recs[0].Replica == nil || recs[0].Replica.Cluster == nil {
		return nil
	}
	c0 := recs[0].Replica.Cluster
	s := &ClusterSummary{Move: c0.Move, Rungs: make([]ClusterRungSummary, len(c0.Rungs))}
	for k := range s.Rungs {
		var moves, sites, share float64
		rs := &s.Rungs[k]
		rs.Beta = c0.Rungs[k].Beta
		for _, r := range recs {
			var c *replica.ClusterReport
			if r.Replica != nil {
				c = r.Replica.Cluster
			}
			if c == nil || k >= len(c.Rungs) {
				continue
			}
			x := c.Rungs[k]
			if x.On {
				rs.OnTrials++
			}
			if x.Moves > 0 && x.MeanSize != nil && x.MeanShare != nil {
				m := float64(x.Moves)
				moves += m
				sites += m * *x.MeanSize
				share += m * *x.MeanShare
			}
		}
		rs.MovesPerTrial = moves / float64(len(recs))
		if moves > 0 {
			a, b := sites/moves, share/moves
			rs.MeanSize, rs.MeanShare = &a, &b
		}
	}
	return s
}
