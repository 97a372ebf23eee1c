package analysis

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"empty", "", 10, ""},
		{"within", "hello", 5, "hello"},
		{"cut", strings.Repeat("a", 100), 40, strings.Repeat("a", 17) + "…[truncated 83 bytes]"},
		{"limit below the marker", strings.Repeat("a", 100), 5, "…[truncated 100 bytes]"},
		{"no split rune", strings.Repeat("é", 30), 40, strings.Repeat("é", 8) + "…[truncated 44 bytes]"},
		{"4 KiB", strings.Repeat("x", 2<<20), MaxStoredString, strings.Repeat("x", 4068) + "…[truncated 2093084 bytes]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Truncate(c.in, c.limit)
			if got != c.want {
				t.Errorf("Truncate(%d bytes, %d) = %q, want %q", len(c.in), c.limit, got[max(len(got)-60, 0):], c.want[max(len(c.want)-60, 0):])
			}
			if len(c.in) > c.limit && len(got) > max(c.limit, len(marker(len(c.in)))) {
				t.Errorf("%d bytes, over the limit %d", len(got), c.limit)
			}
			if !utf8.ValidString(got) {
				t.Errorf("%q is not valid UTF-8", got)
			}
		})
	}
}

func TestTruncateMeasurement(t *testing.T) {
	big := strings.Repeat("v", 10000)
	m := rampv1.Measurement{Value: big, Message: big, Metadata: map[string]string{"a": big, "b": "small"}}
	TruncateMeasurement(&m)
	for name, s := range map[string]string{"value": m.Value, "message": m.Message, "metadata[a]": m.Metadata["a"]} {
		if len(s) > MaxStoredString || !strings.HasSuffix(s, "…[truncated 5929 bytes]") {
			t.Errorf("%s: %d bytes ending %q", name, len(s), s[max(len(s)-30, 0):])
		}
	}
	if m.Metadata["b"] != "small" {
		t.Errorf("metadata[b] = %q, want unchanged", m.Metadata["b"])
	}
}

// TestTooLarge: a run whose status is refused as too large ends in Error
// with the last measurement of each metric, cut short.
func TestTooLarge(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	big := strings.Repeat("v", MaxStoredString)
	ms := make([]rampv1.Measurement, 10)
	for i := range ms {
		ms[i] = rampv1.Measurement{Phase: rampv1.AnalysisPhaseSuccessful, Value: big, Metadata: map[string]string{"k": big}}
	}
	status := &rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning, MetricResults: []rampv1.MetricResult{
		{Name: "a", Count: 10, Measurements: ms}, {Name: "b"}}}
	TooLarge(status, now)
	if status.Phase != rampv1.AnalysisPhaseError || status.Message != MessageStatusTooLarge || !status.CompletedAt.Equal(&metav1.Time{Time: now}) {
		t.Errorf("run %s %q completed %v, want Error %q at %v", status.Phase, status.Message, status.CompletedAt, MessageStatusTooLarge, now)
	}
	a := status.MetricResults[0]
	if len(a.Measurements) != 1 || len(a.Measurements[0].Value) > 256 || a.Measurements[0].Metadata != nil || a.Count != 10 {
		t.Errorf("metric a kept %d measurements (value %d bytes, metadata %v), count %d; want the last one, cut, count 10",
			len(a.Measurements), len(a.Measurements[0].Value), a.Measurements[0].Metadata, a.Count)
	}
}
