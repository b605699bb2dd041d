// Package walkrec holds what the dense engines (package dense for RBMs,
// package denseising for one dense layer) keep of their forward walks so
// that the reverse walks can be scored, and a rejected move undone, without
// replaying them: the walks' bounds and, per picked bit, the normalizers at
// both biases right after it was flipped.
package walkrec
