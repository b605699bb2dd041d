// Package docpage reads the machine-checked parts of a documentation page
// (docs/formats.md): HTML-comment markers such as <!-- file: x.txt -->,
// each with the fenced block or table that follows it, so that tests can
// write the page's example files, rebuild its RBM examples and compare its
// energies and outputs with the program's. The page's last section lists
// the markers.
package docpage
