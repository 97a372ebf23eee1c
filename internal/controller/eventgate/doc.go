// Package eventgate bounds the Events the controller hands to client-go's
// events broadcaster. The broadcaster starts one goroutine per Event, and
// each waits at the Events client's rate limiter until it is sent: under a
// mass update (issue 24 measured 7,400 such goroutines at 10,000 Rollouts)
// they hold memory without bound. A Gate admits Events at the client's rate
// with a burst of a few seconds' worth and drops the rest, counting each
// drop in ramp_events_dropped_total by the Event's reason.
//
// It imports internal/metrics only; the composition root
// (internal/controller) puts one Gate in front of every recorder.
package eventgate
