package cli

import (
	"encoding/json"
	"os"
	"path/filepath"

	"sardonics/atomicfile"
	"sardonics/runner"
	"sardonics/summary"
)

// A run interrupted and resumed (or rerun into its --out) spends wall time
// in several processes, and each sampler's wall_seconds in summary.json is
// its total over all of them, not only the last process's. runner.Run
// times a sampler only in its own process, so the earlier processes' time
// is kept here: every process that stops interrupted adds the wall time
// its runner.Run took to DIR/checkpoint/wall.json, and the process that
// finishes splits that total among the samplers by the wall time their
// trials had already spent (finished trials' stats.json, checkpoints):
// exact for one sampler, and for several as exact as their trials' times
// are proportional to theirs. (Samplers run one after another, so the
// total is exact.)

// wallFile is the earlier processes' wall time, in DIR/checkpoint (removed
// with it once the run finishes).
func wallFile(dir string) string { return filepath.Join(dir, "checkpoint", "wall.json") }

type wallRecord struct {
	// WallSeconds is the wall time of runner.Run in every interrupted
	// process of the run, summed.
	WallSeconds float64 `json:"wall_seconds"`
}

// readWall is the wall time the run's interrupted processes recorded (0:
// none).
func readWall(dir string) float64 {
	var w wallRecord
	if b, err := os.ReadFile(wallFile(dir)); err == nil && json.Unmarshal(b, &w) == nil && w.WallSeconds > 0 {
		return w.WallSeconds
	}
	return 0
}

// saveWall records total as the run's wall time so far.
func saveWall(dir string, total float64) error {
	b, err := json.Marshal(wallRecord{WallSeconds: total})
	if err != nil {
		return err
	}
	return atomicfile.WriteFileMkdir(wallFile(dir), append(b, '\n'))
}

// earlierWall is each sampler's wall time in the processes before this one
// (by name; nil: none), given total, what they recorded (readWall). Call
// it before the run, while the trials' times are those of earlier
// processes. Without a record (a process killed before it could write
// one, or the finished run of a command run again) it estimates a
// sampler's time as its trials' over the trials run at once.
func earlierWall(cfg *runner.Config, dir string, total float64) map[string]float64 {
	spent := map[string]float64{}
	sum := 0.0
	for _, name := range cfg.Samplers {
		for t := cfg.TrialOffset; t < cfg.TrialOffset+cfg.Trials; t++ {
			w := trialWall(dir, name, t)
			spent[name] += w
			sum += w
		}
	}
	if sum == 0 {
		return nil
	}
	out := map[string]float64{}
	for name, w := range spent {
		if total > 0 {
			out[name] = total * w / sum
		} else {
			out[name] = w / float64(max(1, min(cfg.Threads, cfg.Trials)))
		}
	}
	return out
}

// trialWall is the wall time trial t of sampler name has spent so far in
// dir: a finished trial's, or its checkpoint's (0: neither).
func trialWall(dir, name string, t int) float64 {
	var rec struct {
		Wall float64 `json:"wall_seconds"`
	}
	if b, err := os.ReadFile(filepath.Join(summary.TrialDir(dir, name, t), "stats.json")); err == nil {
		if json.Unmarshal(b, &rec) == nil {
			return rec.Wall
		}
		return 0
	}
	return runner.CheckpointWall(dir, name, t)
}
