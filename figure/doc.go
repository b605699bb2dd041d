// Package figure draws the figures of a run as PNG files: energy
// autocorrelation curves, energy traces and tuning rewards. It uses
// gonum.org/v1/plot with its pure-Go rasterizer (no cgo). Files are written
// atomically (a temporary file in the same directory, then a rename), so a
// reader never sees a partial figure. Functions are safe for concurrent use
// on different paths.
package figure
