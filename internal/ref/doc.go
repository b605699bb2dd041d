// Package ref holds slow, obviously correct reference computations for
// tests: energies summed term by term from a model's source terms (edge
// lists, QUBO terms, RBM arrays), never from the CSR rows the fast code uses,
// and energy changes by recomputing the energy after a flip. Only tests and
// test helpers should import it; its functions are safe for concurrent use.
package ref
