// Package fsum is compensated summation of float64s.
package fsum

import (
	"encoding/json"
	"math"
)

// Neumaier is a compensated sum (Neumaier 1974): the running error c keeps
// the low-order bits that plain addition of many small terms would lose.
// Its zero value is an empty sum.
type Neumaier struct{ s, c float64 }

// Add adds x.
func (k *Neumaier) Add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// Scale multiplies the sum by f.
func (k *Neumaier) Scale(f float64) { k.s *= f; k.c *= f }

// Sum is the sum.
func (k Neumaier) Sum() float64 { return k.s + k.c }

// MarshalJSON writes the sum as its two parts [s, c], so that a sum saved
// in a checkpoint continues bit for bit.
func (k Neumaier) MarshalJSON() ([]byte, error) { return json.Marshal([2]float64{k.s, k.c}) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (k *Neumaier) UnmarshalJSON(data []byte) error {
	var p [2]float64
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	k.s, k.c = p[0], p[1]
	return nil
}
