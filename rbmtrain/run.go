package rbmtrain

import (
	"fmt"
	"io"
	"time"

	"sardonics/rng"
)

// Run trains an RBM on the patch file with the stream rng.Stream(cfg.Seed, 0),
// logging one line per epoch to log (if not nil), and writes the weights as
// float32 .npz to outNPZ and the filter figure of those float32 weights to
// outPNG (either skipped if empty; the figure needs square patches).
//
// The bundled model is
//
//	Run(Config{Seed: 1}, "data/patches/patches.bin", "data/paper-rbm.npz", "data/rbm-filters.png", os.Stderr)
func Run(cfg Config, patchesPath, outNPZ, outPNG string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	data, err := LoadPatches(patchesPath)
	if err != nil {
		return err
	}
	cfg = cfg.WithDefaults()
	fmt.Fprintf(log, "train-rbm: %d patches of %d x %d, config %+v\n", data.N, data.Rows, data.Cols, cfg)
	start := time.Now()
	m, _, err := Train(cfg, data, rng.Stream(cfg.Seed, 0), func(e int, pll float64) {
		fmt.Fprintf(log, "epoch %3d  pseudo-log-likelihood %9.3f  %6.1fs\n", e, pll, time.Since(start).Seconds())
	})
	if err != nil {
		return err
	}
	// Round to the float32 the file holds, so the figure shows the saved model.
	for _, a := range [][]float64{m.W, m.B, m.C} {
		for i, x := range a {
			a[i] = float64(float32(x))
		}
	}
	if outNPZ != "" {
		if err := WriteNPZ32(m, outNPZ); err != nil {
			return err
		}
	}
	if outPNG != "" && data.Rows == data.Cols {
		if err := FiltersPNG(m, outPNG, data.Cols); err != nil {
			return err
		}
	}
	return nil
}
