package sawsampler

import (
	"fmt"
	"strings"
	"testing"

	"sardonics/dense"
	"sardonics/denseising"
	"sardonics/model"
	"sardonics/parallelsaw"
	"sardonics/saw"
	"sardonics/sparse"
)

// The engine registry takes, for every --engine and engine thread count,
// the engine the sampler took before it replaced the switch on names:
// auto the bucket where it qualifies, else the tree, the dense engines
// above model.UseDense's threshold and for RBMs, the partitioned ones
// with threads where they pay; a name the engine of that name for the
// model. Each kind's cost model is its engine's, and a name that no
// engine of the model has is refused with the reason.
func TestEngineRegistry(t *testing.T) {
	typeOf := func(e saw.Engine) string { return fmt.Sprintf("%T", e) }
	tree, bucket := "*sparse.Tree", "*sparse.Bucket"
	rbm, ising := "*dense.Engine", "*denseising.Engine"
	prbm, pising := "*parallelsaw.Engine", "*parallelsaw.DenseEngine"
	_ = []any{sparse.Qualifies, dense.New, denseising.New, parallelsaw.Pays}
	for _, tc := range []struct {
		spec, engine string
		threads      int
		want         string // the engine's type, or an error's text
		sections     bool
	}{
		{"frustrated2d:L=8", "", 0, bucket, false},
		{"frustrated2d:L=8", "auto", 2, bucket, false},
		{"frustrated2d:L=8", "tree", 0, tree, false},
		{"chimera:M=2,N=2,T=4", "", 0, tree, false},
		{"chimera:M=2,N=2,T=4", "bucket", 0, "bucket engine", false},
		{"chimera:M=2,N=2,T=4", "dense", 2, ising, false},
		{"chimera:M=2,N=2,T=4", "parallel", 2, pising, true},
		{"sk:N=64", "", 0, ising, false},
		{"sk:N=64", "auto", 2, ising, false}, // too small for the sections to pay
		{"sk:N=2400", "auto", 2, pising, true},
		{"sk:N=64", "dense", 2, ising, false},
		{"sk:N=64", "parallel", 2, pising, true},
		{"sk:N=64", "tree", 2, tree, false},
		{"rbm-random:V=20,H=10", "", 0, rbm, false},
		{"rbm-random:V=20,H=10", "auto", 2, rbm, false},
		{"rbm-random:V=20,H=10", "parallel", 2, prbm, true},
		{"rbm-random:V=20,H=10", "tree", 0, tree, false},
		{"rbm-random:V=1100,H=1100", "auto", 2, prbm, true}, // 1100 flip units: above parallelsaw.MinFlipUnits
		{"frustrated2d:L=100", "dense", 0, "expected at most 8192", false},
		{"frustrated2d:L=8", "frob", 0, `--engine "frob" (expected auto, `, false},
	} {
		m, err := model.Load(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		sc := Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: tc.engine, EngineThreads: tc.threads}
		if got := ParallelFor(m, tc.engine, tc.threads); got != tc.sections {
			t.Errorf("%s --engine %q (threads %d): ParallelFor %v", tc.spec, tc.engine, tc.threads, got)
		}
		s := make([]int8, m.Variables())
		for i := range s {
			s[i] = 1
		}
		e, err := newEngine(m, sc, s)
		if !strings.HasPrefix(tc.want, "*") {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s --engine %q: %v, want an error saying %q", tc.spec, tc.engine, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s --engine %q: %v", tc.spec, tc.engine, err)
		}
		if typeOf(e) != tc.want {
			t.Errorf("%s --engine %q (threads %d): %s, want %s", tc.spec, tc.engine, tc.threads, typeOf(e), tc.want)
		}
		k, _ := saw.EngineFor(tc.engine, m, tc.threads)
		if c, ok := e.(saw.Costed); !ok || c.Cost() != k.Cost(m) {
			t.Errorf("%s: the kind's cost model differs from the engine's", tc.spec)
		}
		if c, ok := e.(closer); ok {
			c.Close()
		}
	}
	if names := saw.EngineNames(); strings.Join(names, ",") != "parallel,dense,bucket,tree" {
		t.Errorf("engine names %v", names)
	}
}
