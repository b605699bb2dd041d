// Package memo keeps values that are expensive to build and pure functions
// of a key, built once per process: the engines' weight tables of a pair
// of biases (Shared, a locked table behind a small lock-free one per user:
// Local), and what is derived from a model while it lives (Weak: its
// other forms, its analysis).
package memo
