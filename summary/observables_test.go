package summary

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sardonics/diag"
	"sardonics/internal/memtest"
)

// obsTrial is an AR(1) energy trial with a magnetization trace of N = 10
// spins drawn about mean mu.
func obsTrial(t, n int, seed uint64, mu float64, mi ModelInfo, burn int) *TrialRecord {
	r := ar1Trial(t, n, 0.5, -3, seed)
	g := rand.New(rand.NewPCG(seed, 9))
	r.Magnetization = make([]int32, n)
	for i := range r.Magnetization {
		m := 0
		for range mi.Spins {
			if g.Float64() < (1+mu)/2 {
				m++
			} else {
				m--
			}
		}
		r.Magnetization[i] = int32(m)
	}
	r.Observables = NewTrialObservables(r, mi, burn)
	return r
}

// The observables are their definitions over the pooled kept draws: <m>,
// <|m|>, beta^2 Var(E)/N and beta N Var(x), x = |m| without fields.
func TestObservablesDefinitions(t *testing.T) {
	const n, burn = 2000, 100
	for _, zero := range []bool{false, true} {
		mi := ModelInfo{Spins: 10, Beta: 0.7, ZeroField: zero}
		recs := []*TrialRecord{obsTrial(0, n, 1, 0.2, mi, burn), obsTrial(1, n, 2, 0.2, mi, burn)}
		res := Summarize("s", recs, n, burn, 1)
		o := res.Observables
		if o == nil {
			t.Fatalf("no observables: %s", res.ObservablesNote)
		}
		var e, m, a []float64
		for _, r := range recs {
			e = append(e, r.Energies[burn:]...)
			for _, v := range r.Magnetization[burn:] {
				m = append(m, float64(v)/10)
				a = append(a, math.Abs(float64(v)/10))
			}
		}
		mean := func(x []float64) float64 { return pooledMean([][]float64{x}) }
		v := func(x []float64) float64 {
			mu, s := mean(x), 0.0
			for _, y := range x {
				s += (y - mu) * (y - mu)
			}
			return s / float64(len(x))
		}
		x, of := m, "m"
		if zero {
			x, of = a, "|m|"
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"m", o.Magnetization.Mean, mean(m)},
			{"|m|", o.AbsMagnetization.Mean, mean(a)},
			{"C", o.SpecificHeat.Mean, 0.49 * v(e) / 10},
			{"chi", o.Susceptibility.Mean, 0.7 * 10 * v(x)},
		} {
			if math.Abs(c.got-c.want) > 1e-12*math.Abs(c.want) {
				t.Errorf("zero field %v: %s = %v, want %v", zero, c.name, c.got, c.want)
			}
		}
		if o.SusceptibilityOf != of || o.Spins != 10 {
			t.Errorf("zero field %v: susceptibility of %q, spins %d", zero, o.SusceptibilityOf, o.Spins)
		}
		// Independent draws: the ESS is near the 3800 kept, so the errors
		// are those of independent draws.
		if se := math.Sqrt(v(m) / float64(len(m))); !(o.Magnetization.ESS > 3000) || math.Abs(o.Magnetization.Stderr/se-1) > 0.2 {
			t.Errorf("m: ESS %v, stderr %v (independent draws: %v)", o.Magnetization.ESS, o.Magnetization.Stderr, se)
		}
		for _, e := range []Estimate{o.Magnetization, o.AbsMagnetization, o.SpecificHeat, o.Susceptibility} {
			if !(e.Stderr > 0) || !(e.ESS > 0) || !(e.Rhat < 1.01) {
				t.Errorf("zero field %v: %+v", zero, e)
			}
		}
		// The trial's own estimates are the same definitions over it alone.
		if got, want := recs[1].Observables.Magnetization, mean(m[n-burn:]); math.Abs(got-want) > 1e-12 {
			t.Errorf("trial 1: m %v, want %v", got, want)
		}
		if !strings.Contains(ObservablesTable([]*Result{res}), "chi = beta N Var("+of+")") {
			t.Errorf("table:\n%s", ObservablesTable([]*Result{res}))
		}
	}
}

// A trial folder of a version without magnetization.csv is read, and its
// sampler summarized with null observables and the reason; one with it
// reads back exactly.
func TestObservablesOldFolder(t *testing.T) {
	dir := t.TempDir()
	mi := ModelInfo{Spins: 10, Beta: 1}
	rec := obsTrial(3, 500, 4, -0.3, mi, 50)
	if err := WriteTrial(dir, rec); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrial(TrialDir(dir, "s", 3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Magnetization, rec.Magnetization) || *back.Observables != *rec.Observables {
		t.Errorf("read back %+v, wrote %+v", back.Observables, rec.Observables)
	}
	old := *rec
	old.Magnetization, old.Observables, old.Trial = nil, nil, 4
	if err := WriteTrial(dir, &old); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTrial(filepath.Join(dir, "s", "trial-4")); err != nil {
		t.Fatal(err)
	}
	back4, _ := ReadTrial(filepath.Join(dir, "s", "trial-4"))
	res := Summarize("s", []*TrialRecord{back, back4}, 500, 50, 1)
	if res.Observables != nil || !strings.Contains(res.ObservablesNote, "trial(s) 4 recorded no magnetization") || !isFinite(res.EnergyMean) {
		t.Errorf("observables %+v, note %q", res.Observables, res.ObservablesNote)
	}
	js, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(js), `"observables_note":"trial(s) 4`) {
		t.Errorf("%v: %s", err, js)
	}
	if tab := ObservablesTable([]*Result{res}); !strings.HasPrefix(strings.Split(tab, "\n")[1], "s           n/a: trial(s) 4") {
		t.Errorf("table:\n%s", tab)
	}
}

// Observables that cannot be estimated encode as null with a note, and
// decode as NaN.
func TestObservablesJSON(t *testing.T) {
	mi := ModelInfo{Spins: 4, Beta: 1}
	rec := obsTrial(0, 8, 1, 0, mi, 8) // no kept draws
	res := Summarize("s", []*TrialRecord{rec}, 8, 8, 1)
	back, m, js := roundTrip(t, res)
	if strings.Contains(js, "NaN") || back.Observables == nil || !math.IsNaN(back.Observables.Magnetization.Mean) {
		t.Fatalf("%s", js)
	}
	o := m["observables"].(map[string]any)["magnetization"].(map[string]any)
	if o["mean"] != nil || o["mean_note"] != "no draws after burn-in" {
		t.Errorf("%v", o)
	}
	if _, err := json.Marshal(rec); err != nil {
		t.Errorf("stats.json of a trial without kept draws: %v", err)
	}
}

// The observables hold one array of the kept draws, which serves each
// series in turn; the trial's own estimates, made while its model and chain
// are still held, and the autocorrelations copy nothing as long as the
// draws. Counted: bytes allocated with diag's work arrays already made.
func TestObservablesMemory(t *testing.T) {
	const n, burn = 1 << 15, 1000
	mi := ModelInfo{Spins: 10, Beta: 0.5}
	var recs []*TrialRecord
	for k := range 2 {
		recs = append(recs, obsTrial(k, n, uint64(40+k), 0.2, mi, burn))
	}
	kept := keptOf(recs, burn)
	draws := 2 * (n - burn)
	res := &Result{BurnIn: burn}
	p := newPool(recs)
	res.observables(recs, p, kept) // diag's arrays for draws of this length
	if b := memtest.Allocated(func() { res.observables(recs, p, kept) }); b > 8*uint64(draws)+16384 {
		t.Errorf("observables of %d draws allocated %d bytes (%.1f a draw); want one array of them (8 a draw)", draws, b, float64(b)/float64(draws))
	}
	if b := memtest.Allocated(func() { NewTrialObservables(recs[0], mi, burn) }); b > 1024 {
		t.Errorf("NewTrialObservables of %d steps allocated %d bytes", n, b)
	}
	res.autocorrelation(recs, kept)
	if b := memtest.Allocated(func() { res.autocorrelation(recs, kept) }); b > 32*(MaxACFLag+1) {
		t.Errorf("autocorrelation of %d draws allocated %d bytes", draws, b)
	}
	diag.Release()
}
