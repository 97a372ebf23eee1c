package analysis

import (
	"fmt"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// MaxStoredString bounds each string a measurement stores (value, message,
// each metadata value), in bytes, marker included.
const MaxStoredString = 4096

// Truncate cuts s to at most limit bytes, ending it with a visible
// "…[truncated N bytes]" marker that says how many bytes were dropped. The
// cut never splits a UTF-8 sequence. A string within the limit is
// returned unchanged.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	// The marker's length depends on how many bytes are dropped: keep as
	// much as fits with its marker, then back off to a rune's start.
	keep := max(limit-len(marker(len(s))), 0)
	for keep < len(s) && keep+1+len(marker(len(s)-keep-1)) <= limit {
		keep++
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + marker(len(s)-keep)
}

func marker(dropped int) string { return fmt.Sprintf("…[truncated %d bytes]", dropped) }

// TruncateMeasurement bounds the strings of m (value, message, metadata
// values) to MaxStoredString bytes each. Callers redact secrets first: a
// cut could otherwise leave a partial secret no redaction recognises.
func TruncateMeasurement(m *rampv1.Measurement) {
	m.Value = Truncate(m.Value, MaxStoredString)
	m.Message = Truncate(m.Message, MaxStoredString)
	for k, v := range m.Metadata {
		m.Metadata[k] = Truncate(v, MaxStoredString)
	}
}

// MessageStatusTooLarge is the message of a run ended by TooLarge.
const MessageStatusTooLarge = "Status too large: the API server refused the run's status as too large; " +
	"measurement history trimmed to the last measurement of each metric"

// trimmedString bounds the strings of the measurements TooLarge keeps.
const trimmedString = 256

// TooLarge ends a run whose status the API server refused as too large: its
// measurement history is trimmed to each metric's last measurement, whose
// strings are cut to 256 bytes, and the run ends in Error at now (unless
// it had completed) with MessageStatusTooLarge.
func TooLarge(status *rampv1.AnalysisRunStatus, now time.Time) {
	for i := range status.MetricResults {
		r := &status.MetricResults[i]
		r.Message = Truncate(r.Message, trimmedString)
		if n := len(r.Measurements); n > 0 {
			last := r.Measurements[n-1]
			last.Value, last.Message = Truncate(last.Value, trimmedString), Truncate(last.Message, trimmedString)
			last.Metadata = nil
			r.Measurements = []rampv1.Measurement{last}
		}
	}
	stamp := metav1.NewTime(now)
	status.Phase, status.Message, status.CompletedAt = rampv1.AnalysisPhaseError, MessageStatusTooLarge, &stamp
}
