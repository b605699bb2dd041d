package cli

import (
	"flag"
	"fmt"

	_ "sardonics/data" // registers the bundled paper-rbm model
	"sardonics/rbmtrain"
)

func init() {
	register(&Command{
		Name:  "train-rbm",
		Usage: "[--patches FILE] [--npz FILE] [--png FILE] [--epochs N] [--seed S]",
		Short: "train the bundled 784 x 500 RBM by persistent contrastive divergence",
		Long: `Trains a binary RBM (784 visible = 28 x 28 pixels, 500 hidden) by stochastic
maximum likelihood (persistent contrastive divergence, one block-Gibbs step per
update, momentum SGD with weight decay) on the binarized natural-image patches
bundled in data/patches (see data/patches/README.md for the photographs and
their licenses). Deterministic: the defaults reproduce data/paper-rbm.npz and
data/rbm-filters.png byte for byte. Prints the pseudo-log-likelihood per epoch.
Takes about 5 minutes on 2 cores.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			var cfg rbmtrain.Config
			fs.IntVar(&cfg.Hidden, "hidden", 0, "hidden units (0: 500)")
			fs.IntVar(&cfg.Epochs, "epochs", 0, "epochs (0: 5)")
			fs.Float64Var(&cfg.LR, "lr", 0, "initial learning rate (0: 0.05)")
			fs.Float64Var(&cfg.WeightDecay, "weight-decay", 0, "L2 penalty on the weights (0: the default, see rbmtrain.Config)")
			fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
			in := fs.String("patches", "data/patches/patches.bin", "patch `FILE`")
			npz := fs.String("npz", "data/paper-rbm.npz", "output weights `FILE` (float32 .npz)")
			png := fs.String("png", "data/rbm-filters.png", "output filter figure `FILE`")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("train-rbm: unexpected argument %q", args[0])
				}
				if err := rbmtrain.Run(cfg, *in, *npz, *png, env.Stdout); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "wrote %s and %s\n", *npz, *png)
				return nil
			}
		},
	})
}
