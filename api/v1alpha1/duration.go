package v1alpha1

import (
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Every duration the API holds (pause.duration, autoPromotionSeconds,
// scaleDownDelaySeconds, abortScaleDownDelaySeconds,
// progressDeadlineSeconds, a metric's interval and initialDelay, provider
// timeouts, an Experiment's duration, TTLs) becomes a time.Duration here,
// and waits built from one add with SaturatingAdd, so that no value a
// manifest or a status can hold wraps around: a wait too long to represent
// is MaxDuration ("practically forever"), never a negative or shortened one.
// A time plus such a wait saturates too (time.Time.Add does).

// MaxDuration is the longest wait: about 292 years, practically forever.
const MaxDuration = time.Duration(math.MaxInt64)

// maxSeconds is the largest whole number of seconds below MaxDuration.
const maxSeconds = int64(MaxDuration / time.Second)

// SaturatingSeconds is n seconds; beyond MaxDuration either way it is
// ±MaxDuration (time.Duration(n) * time.Second would wrap around).
func SaturatingSeconds(n int64) time.Duration {
	switch {
	case n > maxSeconds:
		return MaxDuration
	case n < -maxSeconds:
		return -MaxDuration
	}
	return time.Duration(n) * time.Second
}

// SaturatingAdd is a + b, held within ±MaxDuration.
func SaturatingAdd(a, b time.Duration) time.Duration {
	switch {
	case b > 0 && a > MaxDuration-b:
		return MaxDuration
	case b < 0 && a < -MaxDuration-b:
		return -MaxDuration
	}
	return a + b
}

// ParseDuration parses a duration in Go's syntax ("90s", "1h30m", "-1s");
// "" is 0. A value beyond MaxDuration is an error, as upstream's parse
// reports it (time.ParseDuration never returns a wrapped value), so the
// field it came from is invalid rather than short. Whether a negative or
// zero value is allowed is the caller's rule.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// ParseSecondsOrDuration parses an int-or-string duration (pause.duration):
// a number of seconds, a string of digits (seconds; beyond an int32 it is
// an error, as upstream's parse makes it invalid), or a Go duration string.
func ParseSecondsOrDuration(v intstr.IntOrString) (time.Duration, error) {
	if v.Type == intstr.Int {
		return SaturatingSeconds(int64(v.IntVal)), nil
	}
	if isDigits(v.StrVal) {
		secs, err := strconv.ParseInt(v.StrVal, 10, 32)
		if err != nil {
			return 0, err
		}
		return SaturatingSeconds(secs), nil
	}
	return time.ParseDuration(v.StrVal)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
