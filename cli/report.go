package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"sardonics/runner"
	"sardonics/sampler"
	"sardonics/summary"
	"sardonics/topology"
)

func init() {
	register(&Command{
		Name:  "report",
		Usage: "--out MERGED DIR...",
		Short: "merge trial folders of separate runs into one summary and figures",
		Long: `Reads the trial folders (SAMPLER/trial-T) of sample runs made by separate
processes (for example the tasks of a batch array with --trials 1
--trial-offset T), checks that they belong to the same model, temperature,
seed and sampler settings, and writes MERGED/summary.json and the figures
exactly as one process running all the trials would (timings aside).`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			out := fs.String("out", "", "merged output `DIR` (required)")
			noFigures := fs.Bool("no-figures", false, "skip acf.png, trace.png and rewards.png")
			return func(args []string) error {
				if *out == "" || len(args) == 0 {
					return usagef("report needs --out MERGED and at least one input DIR (flags may come before or after the folders)")
				}
				if err := checkOutDir("report: --out", *out); err != nil {
					return err
				}
				return merge(*out, args, env, !*noFigures)
			}
		},
	})
}

func merge(out string, dirs []string, env *Env, figures bool) error {
	var meta *summary.Meta
	recs := map[string][]*summary.TrialRecord{}
	seen := map[string]string{}
	var order []string
	for _, d := range dirs {
		if err := outsideInput(out, d); err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(d, "run.json"))
		if err != nil {
			return usagef("report: %s is not a sample output folder: %v", d, err)
		}
		var m summary.Meta
		if err := json.Unmarshal(b, &m); err != nil {
			return usagef("report: %s: %v", filepath.Join(d, "run.json"), err)
		}
		if meta == nil {
			meta = &m
		} else if m != *meta {
			return usagef("report: %s was run with other settings than %s:\n  %s", d, dirs[0], indented(runner.DiffMeta(m, *meta, d, dirs[0])))
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			trials, _ := filepath.Glob(filepath.Join(d, e.Name(), "trial-*"))
			for _, td := range trials {
				r, err := summary.ReadTrial(td)
				if err != nil {
					return usagef("report: %v", err)
				}
				key := fmt.Sprintf("%s/%d", r.Sampler, r.Trial)
				if prev, dup := seen[key]; dup {
					return usagef("report: trial %d of %s is in both %s and %s", r.Trial, r.Sampler, prev, td)
				}
				seen[key] = td
				if len(recs[r.Sampler]) == 0 {
					order = append(order, r.Sampler)
				}
				recs[r.Sampler] = append(recs[r.Sampler], r)
			}
		}
	}
	order = sampler.CanonicalOrder(order)
	var results []*summary.Result
	for _, name := range order {
		rs := summary.SortedTrials(recs[name])
		recs[name] = rs
		for _, r := range rs {
			if err := summary.WriteTrial(out, r); err != nil {
				return err
			}
		}
		results = append(results, summary.Summarize(name, rs, meta.Steps, meta.BurnIn, 0))
	}
	sum, err := summary.WriteOutputs(out, *meta, topology.Describe(), results, recs, figures)
	if err != nil {
		return err
	}
	printSummary(env, results, sum.Warnings, out)
	return nil
}

// printSummary prints the tables of a run's summary, its warnings on
// stderr and where summary.json is (sample and report).
func printSummary(env *Env, results []*summary.Result, warnings []string, dir string) {
	fmt.Fprint(env.Stdout, summary.Table(results))
	fmt.Fprint(env.Stdout, "\n"+summary.ObservablesTable(results))
	if t := summary.ReplicaTable(results); t != "" {
		fmt.Fprint(env.Stdout, "\n"+t)
	}
	fmt.Fprint(env.Stdout, summary.BudgetNote(results))
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "sardonics: warning: %s\n", w)
	}
	fmt.Fprintf(env.Stdout, "wrote %s\n", filepath.Join(dir, "summary.json"))
}
