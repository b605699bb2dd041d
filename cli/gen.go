package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"sardonics/model"
)

func init() {
	register(&Command{
		Name:  "gen",
		Usage: "--model SPEC --out FILE",
		Short: "write or convert a model to a file (.txt, .qubo, .npz, .npy)",
		Long: `Writes the model of SPEC (a generator, or a model file to convert) to FILE in
the format its extension names: .txt (the native Ising format; no energy
offset), .qubo (qbsolv), .npz (an RBM as W, b, c; a QUBO as its matrix Q; an
Ising model as J and h; at most ` + strconv.Itoa(model.MaxDenseVariables) + ` variables) or .npy (an Ising model's
J: no fields, no offset, at most ` + strconv.Itoa(model.MaxDenseVariables) + ` variables). Loading FILE gives back
the same model. A format that cannot hold the model exactly is refused,
naming the formats that can.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			spec := fs.String("model", "", "model `SPEC` (see sardonics help sample)")
			out := fs.String("out", "", "output `FILE` (.txt, .qubo, .npz or .npy)")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("gen: unexpected argument %q", args[0])
				}
				if *out == "" {
					return usagef("--out FILE is required")
				}
				if err := checkOutFile("--out", *out); err != nil {
					return err
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

// checkOutFile refuses an output file path that cannot be written: an
// existing directory, or one whose folder does not exist.
func checkOutFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s is a directory (expected a file name, e.g. %s)", flag, path, filepath.Join(path, "model.txt"))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("%s %s: the folder %s does not exist (expected a file in an existing folder)", flag, path, dir)
	}
	return nil
}
