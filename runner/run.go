package runner

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/saw"
)

// Config is one `sample` run.
type Config struct {
	Model       *model.Model
	Beta        float64
	Samplers    []string
	Steps, Burn int
	Trials      int
	TrialOffset int
	Seed        uint64
	Threads     int // trials run at once (0: all CPUs)
	SAW         SAWConfig
	Tune        Tuner // nil: no adaptation phase
	SaveStates  bool
	Progress    io.Writer // nil: silent
}

// Tuner runs the adaptation phase of trial t on chain ch: it calls step()
// for every chain step it uses (each is recorded in the trace) and leaves
// the sampling-phase kernels set on the chain.
type Tuner func(ch *saw.Chain, trial int, r *rand.PCG, step func()) (*TuneRecord, error)

// TuneRecord is what a trial's adaptation produced.
type TuneRecord struct {
	Thetas  []string    `json:"thetas"`  // setting tried at each iteration
	Rewards []float64   `json:"rewards"` // reward of each iteration
	Policy  []saw.Theta `json:"-"`
	Steps   int         `json:"steps"` // chain steps spent adapting
}

// TrialRecord is everything a trial leaves behind; summaries are computed
// from these alone.
type TrialRecord struct {
	Sampler     string      `json:"sampler"`
	Trial       int         `json:"trial"`
	Energies    []float64   `json:"-"` // energy after each step 1..Steps
	States      [][]uint8   `json:"-"` // kept states, with --save-states
	WallSeconds float64     `json:"wall_seconds"`
	CPUSeconds  float64     `json:"cpu_seconds"`
	Flips       int64       `json:"flips"`
	Proposed    int64       `json:"proposed"`
	Accepted    int64       `json:"accepted"`
	Params      string      `json:"params,omitempty"`
	Tune        *TuneRecord `json:"tune,omitempty"`
}

// StreamFor is the random stream of sampler name in trial t: it depends only
// on (seed, t, name), so adding a sampler to a run leaves the others' traces
// unchanged.
func StreamFor(seed uint64, t int, name string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rng.Sub(seed, uint64(t), h.Sum64())
}

// TunerStream is the random stream of trial t's tuner (its Latin hypercube,
// GP restarts and policy walk), separate from the chain's.
func TunerStream(seed uint64, t int) *rand.PCG { return rng.Sub(seed, uint64(t), 1) }

// InitialState is trial t's random starting state, shared by all samplers.
func InitialState(seed uint64, t, n int) []int8 {
	r := rng.Sub(seed, uint64(t), 0)
	s := make([]int8, n)
	for i := range s {
		if r.Uint64()&1 == 1 {
			s[i] = 1
		} else {
			s[i] = -1
		}
	}
	return s
}

func threadCPU() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// RunTrial runs one trial of one sampler.
func RunTrial(cfg *Config, name string, t int, done *atomic.Int64) (*TrialRecord, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := cfg.Model
	init := InitialState(cfg.Seed, t, m.Variables())
	r := StreamFor(cfg.Seed, t, name)
	start, cpu0 := time.Now(), threadCPU()
	ch, release, err := NewChain(name, m, cfg.Beta, cfg.SAW, r, init)
	if err != nil {
		return nil, err
	}
	defer release()
	rec := &TrialRecord{Sampler: name, Trial: t, Energies: make([]float64, 0, cfg.Steps)}
	step := func() {
		ch.Step()
		rec.Energies = append(rec.Energies, ch.Energy())
		if cfg.SaveStates && len(rec.Energies) > cfg.Burn {
			s := ch.Spins()
			x := make([]uint8, len(s))
			model.SpinsToBits(s, x)
			rec.States = append(rec.States, x)
		}
		if done != nil {
			done.Add(1)
		}
	}
	if sc, ok := ch.(*saw.Chain); ok {
		if cfg.Tune != nil {
			tr, err := cfg.Tune(sc, t, TunerStream(cfg.Seed, t), func() {
				if len(rec.Energies) < cfg.Steps {
					step()
				}
			})
			if err != nil {
				return nil, err
			}
			rec.Tune = tr
		}
		th := cfg.SAW.Thetas
		if rec.Tune != nil {
			th = rec.Tune.Policy
		}
		rec.Params = describeThetas(th)
	}
	for len(rec.Energies) < cfg.Steps {
		step()
	}
	st := ch.Stats()
	rec.Flips, rec.Proposed, rec.Accepted = st.Flips, st.Proposed, st.Accepted
	rec.WallSeconds = time.Since(start).Seconds()
	rec.CPUSeconds = threadCPU() - cpu0
	if w, ok := ch.(interface{ WorkerCPUSeconds() float64 }); ok {
		rec.CPUSeconds += w.WorkerCPUSeconds()
	}
	return rec, nil
}

func describeThetas(th []saw.Theta) string {
	switch len(th) {
	case 0:
		return ""
	case 1:
		return th[0].String()
	}
	return fmt.Sprintf("policy of %d kernels", len(th))
}

// Run runs every sampler's trials (samplers one after another, trials in
// parallel on cfg.Threads goroutines) and returns the records in order.
func Run(cfg *Config) (map[string][]*TrialRecord, map[string]float64, error) {
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	out := map[string][]*TrialRecord{}
	wall := map[string]float64{}
	total := int64(len(cfg.Samplers) * cfg.Trials * cfg.Steps)
	var done atomic.Int64
	stop := startProgress(cfg.Progress, &done, total)
	defer stop()
	for _, name := range cfg.Samplers {
		recs := make([]*TrialRecord, cfg.Trials)
		errs := make([]error, cfg.Trials)
		jobs := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < min(threads, cfg.Trials); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					recs[i], errs[i] = RunTrial(cfg, name, cfg.TrialOffset+i, &done)
				}
			}()
		}
		for i := 0; i < cfg.Trials; i++ {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		out[name] = recs
		wall[name] = time.Since(start).Seconds()
	}
	return out, wall, nil
}

// startProgress prints a plain progress line every few seconds.
func startProgress(w io.Writer, done *atomic.Int64, total int64) func() {
	if w == nil || total == 0 {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				d := done.Load()
				el := time.Since(start).Seconds()
				rate := float64(d) / el
				eta := "?"
				if rate > 0 {
					eta = (time.Duration(float64(total-d)/rate) * time.Second).Round(time.Second).String()
				}
				fmt.Fprintf(w, "progress: %d/%d steps (%.1f%%), %.0f steps/s, ETA %s\n", d, total, 100*float64(d)/float64(total), rate, eta)
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}
