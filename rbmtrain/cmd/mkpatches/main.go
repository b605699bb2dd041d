// Command mkpatches regenerates data/patches/patches.bin from scikit-image's
// sample photographs (see data/patches/README.md for where to get them).
//
//	go run ./rbmtrain/cmd/mkpatches -src DIR -out data/patches/patches.bin
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"path/filepath"

	"sardonics/rbmtrain"
)

// sources are the images in extraction order with their SHA-256 (as shipped
// in Debian's python3-skimage 0.19.3-8).
var sources = []struct{ name, sha string }{
	{"camera.png", "b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a"},
	{"astronaut.png", "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"},
	{"coffee.png", "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7"},
	{"chelsea.png", "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb"},
	{"grass.png", "b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89"},
	{"gravel.png", "c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12"},
	{"brick.png", "7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf"},
	{"rocket.jpg", "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c"},
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mkpatches:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mkpatches", flag.ContinueOnError)
	src := fs.String("src", "", "folder holding scikit-image's data/*.png, *.jpg")
	out := fs.String("out", "data/patches/patches.bin", "output patch file")
	n := fs.Int("n", 10000, "number of patches")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *src == "" {
		return fmt.Errorf("-src is required")
	}
	var imgs []image.Image
	for _, s := range sources {
		data, err := os.ReadFile(filepath.Join(*src, s.name))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != s.sha {
			return fmt.Errorf("%s: SHA-256 %s (expected %s)", s.name, got, s.sha)
		}
		im, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		imgs = append(imgs, im)
	}
	p, err := rbmtrain.ExtractPatches(imgs, rbmtrain.ExtractConfig{N: *n, Seed: *seed})
	if err != nil {
		return err
	}
	if err := rbmtrain.WritePatches(p, *out); err != nil {
		return err
	}
	ones := 0
	for _, b := range p.Bits {
		ones += int(b)
	}
	fmt.Fprintf(stdout, "%s: %d patches of %d x %d, %.4f of pixels on\n", *out, p.N, p.Rows, p.Cols, float64(ones)/float64(len(p.Bits)))
	return nil
}
