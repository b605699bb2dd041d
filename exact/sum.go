package exact

import "sardonics/internal/fsum"

// neumaier is a compensated sum (Neumaier 1974): the running error keeps
// the low-order bits that plain addition of many small terms would lose.
type neumaier = fsum.Neumaier
