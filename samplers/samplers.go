// Package samplers imports every sampler of the product for its
// registration (each registers its sampler.Kind in an init function of its
// own package): a program, or a test, that runs samplers by name imports
// it, and no other package needs to name one. A new sampler is a package
// and a line here.
package samplers

import (
	_ "sardonics/baseline"   // gibbs, metropolis, sw, blockgibbs
	_ "sardonics/hybrid"     // hybrid
	_ "sardonics/sawsampler" // sardonics
)
