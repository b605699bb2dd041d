package stattest

import (
	"math"
	"testing"
)

func TestEnumerateIndexRoundTrip(t *testing.T) {
	next := 0
	Enumerate(5, func(s []int8) {
		if got := StateIndex(s); got != next {
			t.Fatalf("state %v has index %d, want %d", s, got, next)
		}
		next++
	})
	if next != 32 {
		t.Fatalf("visited %d states, want 32", next)
	}
	Enumerate(3, func(s []int8) {
		if StateIndex(s) == 1 && (s[0] != 1 || s[1] != -1 || s[2] != -1) {
			t.Fatalf("index 1 is %v, want [1 -1 -1]", s)
		}
	})
}

func TestChiSquareKnownValue(t *testing.T) {
	// Expected 25 each; stat = (100+0+25+25)/25 = 6 with 3 df, p = 0.1116102.
	stat, df, p := ChiSquare([]float64{35, 25, 20, 20}, []float64{1, 1, 1, 1})
	if math.Abs(stat-6) > 1e-12 || df != 3 || math.Abs(p-0.11161022509471268) > 1e-9 {
		t.Fatalf("got stat %v df %d p %v", stat, df, p)
	}
}

func TestChiSquareMergesSmallCells(t *testing.T) {
	// Expected: 50, 45, 3, 2 -> the last two pool into one cell of 5.
	stat, df, _ := ChiSquare([]float64{50, 45, 4, 1}, []float64{0.5, 0.45, 0.03, 0.02})
	if df != 2 || math.Abs(stat-0) > 1e-12 {
		t.Fatalf("got stat %v df %d, want 0 and 2", stat, df)
	}
	// Pool of 2 (< 5) folds into the smallest big cell.
	stat, df, _ = ChiSquare([]float64{60, 38, 2}, []float64{0.6, 0.38, 0.02})
	if df != 1 || math.Abs(stat) > 1e-12 {
		t.Fatalf("got stat %v df %d, want 0 and 1", stat, df)
	}
}

func TestChiSquareRejectsBadFit(t *testing.T) {
	_, _, p := ChiSquare([]float64{900, 100}, []float64{0.5, 0.5})
	if p > 1e-10 {
		t.Fatalf("p = %v for a grossly wrong fit", p)
	}
	if _, _, p := ChiSquare([]float64{1, 0}, []float64{0, 1}); p != 0 {
		t.Fatalf("count in an impossible cell: p = %v, want 0", p)
	}
	if s, _, _ := ChiSquare([]float64{1}, []float64{1, 2}); !math.IsNaN(s) {
		t.Fatalf("mismatched lengths: stat %v, want NaN", s)
	}
}
