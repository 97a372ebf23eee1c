package traffic

import (
	"context"
	"reflect"
	"testing"
)

func TestReport(t *testing.T) {
	Report(context.Background(), Wrote("R", "no log")) // records nowhere, does not panic
	var log []Write
	ctx := WithWrites(context.Background(), &log)
	Report(ctx, Write{})
	Report(ctx, Wrote("PatchingALBIngress", "Updating Ingress `%s` to desiredWeight '%d'", "web", 20))
	want := []Write{{Reason: "PatchingALBIngress", Message: "Updating Ingress `web` to desiredWeight '20'"}}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("log = %q, want %q", log, want)
	}
}
