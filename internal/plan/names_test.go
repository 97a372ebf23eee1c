package plan

import (
	"slices"
	"testing"
)

// TestRetryNames: the name first, then .1 to .99, and a consumer may stop
// early.
func TestRetryNames(t *testing.T) {
	names := slices.Collect(RetryNames("web-abc-3-pre"))
	if len(names) != 100 || names[0] != "web-abc-3-pre" || names[1] != "web-abc-3-pre.1" || names[99] != "web-abc-3-pre.99" {
		t.Errorf("RetryNames: %d names, %q ... %q", len(names), names[:2], names[len(names)-1])
	}
	for name := range RetryNames("x") {
		if name != "x" {
			t.Fatalf("iteration went on after a break: %s", name)
		}
		break
	}
}
