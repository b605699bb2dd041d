// Package docpage reads the machine-checked parts of a documentation page
// (docs/formats.md): HTML-comment markers such as <!-- file: x.txt -->,
// each with the fenced block or table that follows it, so that tests can
// write the page's example files, rebuild its RBM examples and compare its
// energies and outputs with the program's. The page's last section lists
// the markers.
//
// The measured pages (docs/speed.md, docs/mixing.md, ...) hold generated
// blocks between <!-- begin: SOURCES --> and <!-- end: SOURCES --> that
// scripts/docs-tables.py copies from results/; Generated renders them the
// same way, StaleBlocks compares a page with its sources, and BrokenLinks
// checks a page's relative links and anchors.
package docpage
