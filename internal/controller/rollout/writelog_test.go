package rollout_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/writelog"
)

// logLines is what a funcr JSON logger at some verbosity logged, one map
// per line ("level", "msg" and the key/value pairs).
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
}

func (l *logLines) logger(verbosity int) logr.Logger {
	return funcr.NewJSON(func(obj string) {
		var m map[string]any
		if err := json.Unmarshal([]byte(obj), &m); err != nil {
			panic(err)
		}
		l.mu.Lock()
		l.lines = append(l.lines, m)
		l.mu.Unlock()
	}, funcr.Options{Verbosity: verbosity})
}

func (l *logLines) all() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.lines...)
}

// TestWritesAreLoggedAtV1: with the client and recorder as Setup wires them
// (writelog), a canary update logs at V(1) the ReplicaSet scale (its patch
// with the new size), the Rollout's status patch and the Events, each with
// the object; at V(0) none of them is logged.
func TestWritesAreLoggedAtV1(t *testing.T) {
	for _, verbosity := range []int{0, 1} {
		var logs logLines
		logger := logs.logger(verbosity)
		env, r := newEnv(t, webRollout(t, "      steps: [{setWeight: 50}, {pause: {}}]"))
		r.Client = writelog.Client(env.Client)
		r.Recorder = writelog.Recorder(r.Recorder, logger)
		ctx := log.IntoContext(context.Background(), logger)
		reconcile := func() {
			t.Helper()
			for range 6 {
				if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "web"}}); err != nil {
					t.Fatal(err)
				}
				settle(t, env)
			}
		}
		reconcile()
		update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
		reconcile()

		lines := logs.all()
		if verbosity == 0 {
			for _, l := range lines {
				if msg := l["msg"]; msg == "patched object" || msg == "created object" || msg == "recorded event" {
					t.Errorf("logged at V(0): %v", l)
				}
			}
			continue
		}
		scaled, status, event := false, false, false
		for _, l := range lines {
			patch, _ := l["patch"].(string)
			obj, _ := l["object"].(map[string]any)
			if l["level"] != 1.0 || obj["namespace"] != ns || obj["name"] == nil {
				continue
			}
			switch {
			case l["msg"] == "patched object" && l["kind"] == "ReplicaSet" && strings.Contains(patch, `"replicas":`):
				scaled = true
			case l["msg"] == "patched object" && l["kind"] == "Rollout" && l["subresource"] == "status" && obj["name"] == "web" && patch != "":
				status = true
			case l["msg"] == "recorded event" && l["reason"] == rampv1.RolloutReasonScalingReplicaSet && l["message"] != "":
				event = true
			}
		}
		if !scaled || !status || !event {
			t.Errorf("ReplicaSet scale logged %v, status patch %v, ScalingReplicaSet Event %v; log:\n%v", scaled, status, event, lines)
		}
	}
}
