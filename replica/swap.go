package replica

import (
	"math"
	"slices"

	"sardonics/rng"
)

// The swap round, the ladder's adaptation and the report of both.

// swapRound proposes the swaps of the even or odd pairs (alternating by
// round), counts them, tracks round trips and moves the ladder while it
// adapts.
func (c *Chain) swapRound() {
	R := len(c.betas)
	end := c.done // steps done
	count := end > int64(c.cfg.CountFrom)
	adapt := end <= int64(c.cfg.Adapt)
	parity := int((c.rounds - 1) & 1)
	if adapt && c.vN != nil && 8*c.rounds > 5*c.nextAdapt {
		c.recordSpread()
	}
	for _, s := range c.sets {
		for k := parity; k+1 < R; k += 2 {
			a, b := s.ms[s.at[k]], s.ms[s.at[k+1]]
			x := (c.betas[k] - c.betas[k+1]) * (a.ch.Energy() - b.ch.Energy())
			if brokenSwap {
				x = a.ch.Energy() - b.ch.Energy()
			}
			ok := x >= 0 || rng.Float64(c.r) < math.Exp(x)
			if count {
				s.tries[k]++
			}
			if adapt {
				c.aTries[k]++
			}
			if !ok {
				continue
			}
			if count {
				s.acc[k]++
			}
			if adapt {
				c.aAcc[k]++
			}
			s.at[k], s.at[k+1] = s.at[k+1], s.at[k]
			a.pos, b.pos = k+1, k
			a.ch.SetBeta(c.betas[k+1])
			b.ch.SetBeta(c.betas[k])
		}
		for _, m := range s.ms {
			switch {
			case m.pos == 0:
				if m.dir == -1 && count {
					s.trips++
				}
				m.dir = 1
			case m.pos == R-1 && m.dir == 1:
				m.dir = -1
			}
		}
	}
	if c.tn != nil && c.tn.st.Phase == tuneRun && c.tn.st.Measuring {
		c.tuneTraverse()
	}
	if c.icm != nil {
		c.clusterRound(count, !adapt)
	}
	if len(c.sets[0].walk) < MaxWalk {
		c.sets[0].walk = append(c.sets[0].walk, int16(c.sets[0].ms[0].pos))
	}
	if adapt && c.rounds >= c.nextAdapt {
		c.moveLadder()
		c.nextAdapt *= 2
	}
}

// recordSpread adds every rung's energy at the end of a round to the
// variance ladder's statistics (Welford's update, all sets pooled). Only
// the last three quarters of each segment between two moves are recorded
// (the caller's condition), so that the members have relaxed at their
// new temperatures.
func (c *Chain) recordSpread() {
	for _, s := range c.sets {
		for k, j := range s.at {
			e := s.ms[j].ch.Energy()
			c.vN[k]++
			d := e - c.vMean[k]
			c.vMean[k] += d / float64(c.vN[k])
			c.vM2[k] += d * (e - c.vMean[k])
		}
	}
}

// moveLadder places the inner rungs at equal lengths (see the package
// comment and VarianceLadder) from the swaps, or the energies, since the
// last move, and tells the members their new temperatures.
func (c *Chain) moveLadder() {
	nb := Adapted(c.betas, c.aAcc, c.aTries)
	if c.vN != nil {
		nb = slices.Clone(c.betas)
		if sd, ok := c.spreads(); ok {
			c.vBetas, c.vSD = slices.Clone(c.betas), sd
			nb = VarianceLadder(c.betas, sd)
		}
		clear(c.vN)
		clear(c.vMean)
		clear(c.vM2)
	}
	copy(c.betas, nb)
	for _, s := range c.sets {
		for _, m := range s.ms {
			m.ch.SetBeta(c.betas[m.pos])
		}
	}
	clear(c.aAcc)
	clear(c.aTries)
}

// spreads is each rung's energy standard deviation over the current
// segment, false if some rung has fewer than 2 records.
func (c *Chain) spreads() ([]float64, bool) {
	sd := make([]float64, len(c.vN))
	for k, n := range c.vN {
		if n < 2 {
			return nil, false
		}
		sd[k] = math.Sqrt(max(0, c.vM2[k]/float64(n-1)))
	}
	return sd, true
}

// Adapted is the ladder that gives every interval the same length
// erfcinv(a_k), a_k = acc[k]/tries[k] clamped to [0.001, 0.999] (0.5
// where there were no tries), the length being spread evenly in beta
// within each interval. The ends stay where they are.
func Adapted(betas []float64, acc, tries []int64) []float64 {
	R := len(betas)
	cum := make([]float64, R)
	for k := 0; k+1 < R; k++ {
		a := 0.5
		if tries[k] > 0 {
			a = float64(acc[k]) / float64(tries[k])
		}
		a = min(max(a, 0.001), 0.999)
		cum[k+1] = cum[k] + math.Erfcinv(a)
	}
	out := make([]float64, R)
	out[0], out[R-1] = betas[0], betas[R-1]
	k := 0
	for j := 1; j+1 < R; j++ {
		l := cum[R-1] * float64(j) / float64(R-1)
		for k+2 < R && cum[k+1] < l {
			k++
		}
		f := (l - cum[k]) / (cum[k+1] - cum[k])
		out[j] = betas[k] + f*(betas[k+1]-betas[k])
	}
	for j := 1; j < R; j++ { // rounding must not break the order
		if !(out[j] > out[j-1]) {
			return append([]float64(nil), betas...)
		}
	}
	return out
}

// Report is what a trial's stats.json says about its replica exchange.
type Report struct {
	Ladder         []float64  `json:"ladder"`                     // inverse temperatures, hottest first (after adaptation)
	SwapEvery      int        `json:"swap_every"`                 // steps between swap rounds (step clock)
	SwapWork       float64    `json:"swap_work,omitempty"`        // sweep-equivalents per member per swap round (work clock)
	MeanRound      float64    `json:"mean_round_steps,omitempty"` // work clock: the target's mean steps per round
	SwapAcceptance []*float64 `json:"swap_acceptance"`            // of each neighbouring pair after burn-in (null: never proposed)
	RoundTrips     int64      `json:"round_trips"`                // hottest -> target -> hottest after burn-in, all members
	Sets           int        `json:"sets"`
	Walk           []int16    `json:"-"` // the rung of set 0's member 0 after each round
	// Cycles is what the cycle tuner (Config.Tune) measured and chose
	// (null: it did not run or has not finished).
	Cycles *Tuning `json:"cycles,omitempty"`
	// Spacing is "variance" for the variance ladder (empty otherwise).
	Spacing string `json:"spacing,omitempty"`
	// EnergySD is the variance ladder's last measurement of each rung's
	// energy standard deviation, at the final rungs (linear in beta
	// between the rungs it was measured at; null: not measured).
	EnergySD []float64 `json:"energy_sd,omitempty"`
	// ThermoLength is the ladder's thermodynamic length int sigma_E
	// d beta from the hottest rung to the target: from EnergySD with the
	// variance ladder, else from the swap acceptances after burn-in,
	// sum 2 erfcinv(a_k) (0: not known). LengthIsBound marks a length
	// from acceptances where some pair never accepted: it is then at
	// least this.
	ThermoLength  float64 `json:"thermodynamic_length,omitempty"`
	LengthIsBound bool    `json:"thermodynamic_length_is_lower_bound,omitempty"`
	// RungsNeeded is the number of rungs that spans ThermoLength at the
	// swap acceptance OptimalAcceptance (0: not known), and
	// PredictedAcceptance the acceptance this ladder's rungs get at equal
	// lengths (see the comment above OptimalAcceptance).
	RungsNeeded         int     `json:"rungs_needed,omitempty"`
	PredictedAcceptance float64 `json:"predicted_acceptance,omitempty"`
	// Cluster is the cluster move between the two sets, per rung (absent
	// without it).
	Cluster *ClusterReport `json:"cluster,omitempty"`
	// Auto is how sample --replicas auto chose the rung count (absent
	// when it was given); the chain leaves it to its caller.
	Auto *AutoRungs `json:"replicas_auto,omitempty"`
}

// Report summarizes the swaps so far.
func (c *Chain) Report() *Report {
	R := len(c.betas)
	rep := &Report{Ladder: append([]float64(nil), c.betas...), SwapEvery: c.cfg.SwapEvery, Sets: c.cfg.Sets,
		SwapAcceptance: make([]*float64, R-1), Walk: append([]int16(nil), c.sets[0].walk...), Cycles: c.Tuning(),
		Cluster: c.clusterReport()}
	if c.cfg.Work > 0 {
		rep.SwapEvery, rep.SwapWork = 0, c.cfg.Work
		if c.rounds > 0 {
			rep.MeanRound = float64(c.done) / float64(c.rounds)
		}
	}
	for k := 0; k+1 < R; k++ {
		var acc, tries int64
		for _, s := range c.sets {
			acc += s.acc[k]
			tries += s.tries[k]
		}
		if tries > 0 {
			v := float64(acc) / float64(tries)
			rep.SwapAcceptance[k] = &v
		}
	}
	for _, s := range c.sets {
		rep.RoundTrips += s.trips
	}
	if c.vN != nil {
		rep.Spacing = ByVariance.String()
		if c.vSD != nil {
			rep.EnergySD = interpolate(c.vBetas, c.vSD, c.betas)
			rep.ThermoLength = ThermoLength(c.betas, rep.EnergySD)
		}
	} else {
		acc, tries := make([]int64, R-1), make([]int64, R-1)
		for _, s := range c.sets {
			for k := range acc {
				acc[k] += s.acc[k]
				tries[k] += s.tries[k]
			}
		}
		if l, bound, ok := lengthFromAcceptance(acc, tries); ok {
			rep.ThermoLength, rep.LengthIsBound = l, bound
		}
	}
	if rep.ThermoLength > 0 {
		rep.RungsNeeded = RungsNeeded(rep.ThermoLength)
		rep.PredictedAcceptance = PredictedAcceptance(rep.ThermoLength, R)
	}
	return rep
}
