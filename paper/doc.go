// Package paper reproduces the experiments of the SARDONICS paper (SPEC
// section 6) with the paper's protocol: 10 trials per sampler, 10^5 steps,
// SARDONICS adapted during the first 2*10^4 steps, every sampler's first
// 2*10^4 steps discarded. It writes one sample-style folder per experiment,
// table.md (timings next to the paper's Table II) and claims.md (each
// qualitative claim of the paper checked per step and per CPU-second).
package paper
