// Package judgement decides a built-in judge measurement (the judge metric
// provider, a Ramp extension): Parse validates a judge metric and applies
// its defaults, Classify judges one metric from its baseline and canary
// samples (package stats: Mann-Whitney U and the Hodges-Lehmann shift), and
// Score weighs the verdicts into a score and a phase as Kayenta's judge
// does; Metadata and Message are what the measurement stores. It is pure:
// no I/O, no clock, no client (the provider in analysis/provider/judge
// fetches the samples), so lint validates judge metrics with Parse.
package judgement
