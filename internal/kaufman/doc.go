// Package kaufman gives the exact mean energy and specific heat of the finite L x L
// ferromagnetic Ising torus from Kaufman's 1949 partition function, the
// reference for samplers on ferro2d models too large to enumerate.
// Its functions are pure and safe for concurrent use.
package kaufman
