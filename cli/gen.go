package cli

import (
	"flag"
	"fmt"

	"sardonics/model"
)

func init() {
	register(&Command{
		Name:  "gen",
		Usage: "--model SPEC --out FILE",
		Short: "write a model to a file (.txt Ising, .qubo, .npz RBM)",
		Long: `Writes the model of SPEC to FILE in the format its extension names: .txt (the
native Ising format), .qubo (qbsolv, for QUBO models) or .npz (RBMs). Loading
FILE gives back the identical model.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			spec := fs.String("model", "", "model `SPEC` (see sardonics help sample)")
			out := fs.String("out", "", "output `FILE` (.txt, .qubo or .npz)")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("gen: unexpected argument %q", args[0])
				}
				if *out == "" {
					return usagef("--out FILE is required")
				}
				m, err := loadModel(*spec)
				if err != nil {
					return err
				}
				if err := model.Write(m, *out); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "wrote %s (%s)\n", *out, m.Describe())
				return nil
			}
		},
	})
}
