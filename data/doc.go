// Package data embeds the bundled RBM (paper-rbm.npz, trained by
// `sardonics train-rbm` on the patches in patches/) so that the paper-rbm
// model needs no file at run time. See patches/README.md for the images'
// provenance and licenses.
package data

import (
	_ "embed"

	"sardonics/model"
)

//go:embed paper-rbm.npz
var paperRBM []byte

// PaperRBM loads the bundled 784 x 500 RBM.
func PaperRBM() (*model.Model, error) {
	m, err := model.ReadNPZ("paper-rbm", paperRBM)
	if err != nil {
		return nil, err
	}
	m.Spec = "paper-rbm"
	return m, nil
}

func init() { model.PaperRBM = PaperRBM }
