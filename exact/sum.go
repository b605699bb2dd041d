package exact

import "math"

// neumaier is a compensated sum (Neumaier 1974): the running error c keeps
// the low-order bits that plain addition of many small terms would lose.
type neumaier struct{ s, c float64 }

func (k *neumaier) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *neumaier) scale(f float64) { k.s *= f; k.c *= f }

func (k neumaier) sum() float64 { return k.s + k.c }
