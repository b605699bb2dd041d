// Package memo keeps values that are expensive to build and pure functions
// of a key (the engines' weight tables of a pair of biases), built once per
// process: a locked shared table behind a small lock-free table per user.
package memo
