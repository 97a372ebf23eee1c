// Package analysis owns measurement verdicts and AnalysisRun phases (pure
// functions of the run's spec, its measurements and the current time). The
// metric providers that take measurements live in analysis/provider behind a
// small interface and a registry.
package analysis
