// Package stats holds the statistics of the built-in canary judge: the
// two-sided Mann-Whitney U test (exact for small samples without ties, a
// tie-corrected normal approximation otherwise) and the Hodges-Lehmann
// shift estimate. It is pure arithmetic: it imports only the standard
// library's math and sort, reads no clock and does no I/O.
package stats
