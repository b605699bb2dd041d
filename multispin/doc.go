// Package multispin is multi-spin-coded Metropolis for +-J models: 64
// independent chains in one machine word. Bit b of word i is spin i of
// chain b (set where the spin is -1), and every coupling and field is
// stored per bit, so the 64 chains are 64 copies of one instance or 64
// instances on one graph whose couplings all have one magnitude a and
// whose fields are 0 or +-a.
//
// A sweep visits the sites in order. At site i, for all 64 chains at
// once, it counts each chain's unsatisfied bonds u (a bond J s_i s_j < 0;
// a field is a bond to a ghost spin fixed at +1) in bit-sliced counters
// (four words, a ripple adder per bond), so that flipping s_i costs
// dE = 2a(d - 2u), d the site's bonds in that chain. A chain with dE <= 0
// flips; one with dE > 0 flips with probability p = exp(-beta dE), the
// Metropolis rule, so each chain is an exact Metropolis chain of its own
// instance (a sequential scan of single-site updates, each of which
// keeps the Boltzmann law; Newman and Barkema 1999, ch. 3).
//
// Why each decision is exact and independent: each chain b compares its
// own uniform U_b = 0.R1_b R2_b ... in binary with p_b, digit by digit,
// where R_t is the t-th random word drawn for the site: U_b < p_b exactly
// when, at the first digit where they differ, U_b has 0. Each round draws
// one word, decides every chain whose digit differs from its p's digit
// (half of those left, on average) and stops when none is left, so every
// chain's decision reads as many fair bits as it needs and no bit of a
// random word is shared between chains: chains that meet do not stay
// together (Isakov et al. 2015, CPC 192, 265, "approach one", share one
// number among the chains; that is not done here). p is taken to 64
// binary digits (an error below 2^-64, beneath float64's), so a chain
// still undecided after 64 rounds (probability 2^-64) is rejected. A
// decision costs about log2(64) + 1.3 words for the site's chains
// together when most of them face an uphill move, fewer when most flip
// freely (they need none).
//
// Cost: per site, about 5 word operations per bond (the unsatisfied mask
// and the adder), a few per energy class to build each round's digit
// word, and the random words above: tests and benchmarks are in this
// package; it is not yet a sampler of the product (issue 43).
package multispin
