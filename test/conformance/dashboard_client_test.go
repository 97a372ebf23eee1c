//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// upstreamDashboard is upstream's own dashboard server (`kubectl argo
// rollouts dashboard` from the v1.9.1 plugin) started on one side's plane.
// Its API is gRPC-gateway JSON under <root-path>/api/v1 (root path
// "rollouts" by default, where its page calls it).
type upstreamDashboard struct {
	api  string // http://127.0.0.1:<port>/rollouts/api/v1/
	proc *exec.Cmd
}

// startUpstreamDashboard runs the plugin's dashboard with the side's
// kubeconfig on a free port and waits until it answers /version; the test's
// cleanup stops it.
func startUpstreamDashboard(t *testing.T, s *side) *upstreamDashboard {
	t.Helper()
	port := freePort()
	log, err := os.Create(filepath.Join(cfg.logs, s.name+"-upstream-dashboard.log"))
	if err != nil {
		t.Fatal(err)
	}
	d := &upstreamDashboard{api: "http://127.0.0.1:" + port + "/rollouts/api/v1/",
		proc: exec.Command(cfg.plugin, "--kubeconfig", s.kubeconfig, "dashboard", "--port", port)}
	d.proc.Stdout, d.proc.Stderr = log, log
	if err := d.proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProcess(d.proc); _ = log.Close() })
	var why error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		var v struct{ RolloutsVersion string }
		if why = d.get(context.Background(), "version", &v); why == nil && v.RolloutsVersion != "" {
			return d
		}
		time.Sleep(200 * time.Millisecond) // polling: the server is not listening yet
	}
	t.Fatalf("%s: upstream's dashboard not answering after 30s (log %s): %v", s.name, log.Name(), why)
	return nil
}

// get decodes the JSON answer to GET api+path into out.
func (d *upstreamDashboard) get(ctx context.Context, path string, out any) error {
	return d.call(ctx, http.MethodGet, path, nil, out)
}

// call sends a request as upstream's page does (JSON body, PUT for the
// actions) and decodes a 200 answer into out.
func (d *upstreamDashboard) call(ctx context.Context, method, path string, body any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.api+path, in)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w: %s", method, path, err, b)
	}
	return nil
}

// watch opens a streaming GET (gRPC-gateway's newline-delimited
// {"result": ...} messages) and delivers each result on the channel, which
// is closed when the stream ends; cancel ctx to end it.
func (d *upstreamDashboard) watch(ctx context.Context, path string) (<-chan json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.api+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	out := make(chan json.RawMessage)
	go func() {
		defer close(out)
		defer func() { _ = resp.Body.Close() }()
		dec := json.NewDecoder(resp.Body)
		for {
			var m struct {
				Result json.RawMessage
				Error  json.RawMessage
			}
			if err := dec.Decode(&m); err != nil || m.Result == nil {
				return
			}
			select {
			case out <- m.Result:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// next waits for the next streamed message until the deadline.
func next(msgs <-chan json.RawMessage, deadline time.Time) (json.RawMessage, error) {
	select {
	case m, ok := <-msgs:
		if !ok {
			return nil, errors.New("the dashboard's stream ended")
		}
		return m, nil
	case <-time.After(time.Until(deadline)):
		return nil, errors.New("no message from the dashboard's stream before the deadline")
	}
}

// flattenInfo adds a dashboard answer (a RolloutInfo or a list of them) to
// an observation under key: every field the dashboard computes, objects'
// metadata reduced to their names, ReplicaSets keyed by name, the pods of a
// ReplicaSet as one sorted list (their names without the random suffix),
// times to "<time>" (words such as "Never" kept), the generation to a placeholder;
// hashes become H<rev>.
func flattenInfo(put func(k, v string), key string, v any, n normalizer) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			put(key, "{}")
		}
		for k, c := range x {
			switch k {
			case "objectMeta":
				name, _ := c.(map[string]any)["name"].(string)
				put(key+" name", n.apply(name))
			case "scaleDownDeadline", "restartedAt":
				put(key+" "+k, timeOrWord(c))
			case "generation":
				// the Rollout's observedGeneration: how often a controller
				// rewrites the spec is no contract (agrees checks the value)
				put(key+" "+k, "<n>")
			case "replicaSets", "rollouts":
				for _, e := range c.([]any) {
					meta, _ := e.(map[string]any)["objectMeta"].(map[string]any)
					name, _ := meta["name"].(string)
					flattenInfo(put, key+" "+strings.TrimSuffix(k, "s")+" "+n.apply(name), e, n)
				}
			case "pods":
				var pods []string
				for _, p := range c.([]any) {
					var fields []string
					flattenInfo(func(k, v string) {
						if k == " name" {
							v = podSuffix.ReplaceAllString(v, "-<pod>$1")
						}
						fields = append(fields, strings.TrimSpace(k)+"="+v)
					}, "", p, n)
					slices.Sort(fields)
					pods = append(pods, strings.Join(fields, ","))
				}
				slices.Sort(pods)
				put(key+" pods", strings.Join(pods, " "))
			default:
				flattenInfo(put, key+" "+k, c, n)
			}
		}
	case []any:
		for i, c := range x {
			flattenInfo(put, fmt.Sprintf("%s[%d]", key, i), c, n)
		}
	default:
		put(key, n.apply(fmt.Sprint(x)))
	}
}

// timeOrWord is "<time>" for an RFC 3339 time, the value itself otherwise.
func timeOrWord(v any) string {
	s := fmt.Sprint(v)
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return "<time>"
	}
	return s
}

// TestFlattenInfo: names kept, hashes and pod suffixes normalized, times
// reduced to "<time>", pods as one sorted list, ReplicaSets keyed by name.
func TestFlattenInfo(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"objectMeta":{"name":"app","uid":"u1"},"status":"Paused","generation":"3","restartedAt":"Never","steps":[{"setWeight":50},{"pause":{}}],
		"replicaSets":[{"objectMeta":{"name":"app-abc12"},"revision":2,"scaleDownDeadline":"2026-01-01T00:00:00Z",
		"pods":[{"objectMeta":{"name":"app-abc12-zz9q1"},"status":"Running"},{"objectMeta":{"name":"app-abc12-aa1b2"},"status":"Pending"}]}]}`), &v); err != nil {
		t.Fatal(err)
	}
	o := observation{}
	flattenInfo(func(k, v string) { o[k] = v }, "info", v, newNormalizer(map[string]string{"abc12": "H2"}))
	want := observation{
		"info name": "app", "info status": "Paused", "info generation": "<n>", "info steps[0] setWeight": "50", "info steps[1] pause": "{}",
		"info replicaSet app-H2 name": "app-H2", "info replicaSet app-H2 revision": "2",
		"info replicaSet app-H2 scaleDownDeadline": "<time>", "info restartedAt": "Never",
		"info replicaSet app-H2 pods": "name=app-H2-<pod>,status=Pending name=app-H2-<pod>,status=Running",
	}
	if !maps.Equal(o, want) {
		t.Errorf("flattened:\n%s\nwant:\n%s", dump(o), dump(want))
	}
}
