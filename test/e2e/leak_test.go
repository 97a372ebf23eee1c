//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The sentinels of TestSecretLeak. The first two hold the characters that
// escaping changes (JSON, %q, URL, HTML), a non-ASCII letter, and they
// overlap: the second begins with most of the first. They travel in
// headers and bodies; the third, which a URL can carry as it is written
// (its < and > are escaped in a path, sent raw in a query), travels in
// URL paths and queries.
const (
	leakSecret1 = `ZQSENTINEL&8<k>"q\/%+ =é`
	leakSecret2 = `ZQSENTINEL&8<k>"q-longer:Wm9v`
	leakSecret3 = `ZQURLSENTINEL.7<k>~x`
)

// TestSecretLeak: every provider, given Secret arguments in the URL path,
// the query, a header and the body, against loopback servers that echo them
// (raw, JSON, URL-encoded, base64), fail with them in the error text,
// redirect to another host, hang and return huge bodies; conditions and
// jsonPaths that fail quoting them; a Rollout and an Experiment whose runs
// fail with them. No form of either secret appears in any AnalysisRun,
// Rollout, Experiment or Event of the namespace, nor in the controller's
// log at debug level.
func TestSecretLeak(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "leak")
	const id = "leak"
	ctrl, err := startController(ns, "--instance-id", id, "--leader-elect=false", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.stop)
	eventually(t, 60*time.Second, "leak controller ready", ctrl.ready)

	ctx := context.Background()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "leak", Namespace: ns},
		Data: map[string][]byte{"s1": []byte(leakSecret1), "s2": []byte(leakSecret2), "s3": []byte(leakSecret3)}}
	if err := env.client.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	other := leakServer(t, "127.0.0.2:0", "")
	srv := leakServer(t, "127.0.0.1:0", other)

	runs := leakRuns(srv)
	for name, metric := range runs {
		apply(t, ns, leakRunYAML(id, name, srv, metric))
	}
	apply(t, ns, leakTemplateAndRollout(id, srv))
	waitHealthy(t, ns, "leaky", "", 1)
	setImage(t, ns, "leaky", "app", "registry.example/app:v2")

	for name := range runs {
		eventually(t, 90*time.Second, "run "+name+" completed", func() error {
			ar, err := getRun(ns, name)
			if err != nil {
				return err
			}
			if !ar.Status.Phase.Completed() {
				return fmt.Errorf("phase %q", ar.Status.Phase)
			}
			return nil
		})
	}
	waitRollout(t, ns, "leaky", 90*time.Second, "aborted by its failed analysis", func(ro *rampv1.Rollout) error {
		if !ro.Status.Abort {
			return fmt.Errorf("not aborted: %s", summary(ro))
		}
		return nil
	})
	eventually(t, 90*time.Second, "experiment leaky ended", func() error {
		ex := &rampv1.Experiment{}
		if err := env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "leaky"}, ex); err != nil {
			return err
		}
		if !ex.Status.Phase.Completed() {
			return fmt.Errorf("phase %q", ex.Status.Phase)
		}
		return nil
	})

	forms := secretForms(leakSecret1, leakSecret2, leakSecret3)
	checked, masked := 0, 0
	check := func(where string, doc any) {
		walkStrings(doc, func(s string) {
			checked++
			if strings.Contains(s, "*****") {
				masked++
			}
			for _, f := range forms {
				if strings.Contains(s, f.text) {
					t.Errorf("%s holds the secret as %s: %.300q", where, f.name, s)
				}
			}
		})
	}
	for _, list := range []client.ObjectList{&rampv1.AnalysisRunList{}, &rampv1.RolloutList{}, &rampv1.ExperimentList{}, &corev1.EventList{}} {
		if err := env.client.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("%T", list), asJSONValue(t, list))
	}
	eachLogLine(t, ctrl.logPath, check)
	t.Logf("checked %d forms of 3 secrets against %d strings; %d strings hold a mask", len(forms), checked, masked)
	if checked < 500 {
		t.Errorf("only %d strings checked: the objects or the log are missing", checked)
	}
	if t.Failed() { // what each run stored, to read the failure by
		var l rampv1.AnalysisRunList
		_ = env.client.List(ctx, &l, client.InNamespace(ns))
		for _, r := range l.Items {
			t.Logf("%s: %s %q %+v", r.Name, r.Status.Phase, r.Status.Message, r.Status.MetricResults)
		}
	}
	// The servers did echo the secrets: what was stored shows where they
	// were masked (the echo run's value, the failing runs' messages).
	if masked < len(runs) {
		t.Errorf("only %d stored strings show a mask: the secrets never came back, so nothing was tested", masked)
	}
}

// leakServer serves, on addr, endpoints that echo what a request carries.
// redirect is the base URL /redirect sends the client to.
func leakServer(t *testing.T, addr, redirect string) string {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/query") { // a Prometheus that quotes the query back
			w.Header().Set("Content-Type", "application/json")
			q := r.FormValue("query")
			if strings.Contains(q, "warn") {
				_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "warnings": []string{"slow: " + q},
					"data": map[string]any{"resultType": "vector", "result": []any{}}})
				return
			}
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "error", "errorType": "bad_data", "error": "parse error in " + q})
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		echo := map[string]any{
			"header": r.Header.Get("X-Token"), "other": r.Header.Get("X-Other"), "query": r.URL.RawQuery,
			"decoded": r.URL.Query().Get("t"), "path": r.URL.EscapedPath(), "body": string(body),
			"b64": encodeB64(r.Header.Get("X-Token")),
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/fail"):
			http.Error(w, fmt.Sprintf("denied %v", echo), http.StatusForbidden)
		case strings.HasPrefix(r.URL.Path, "/redirect") && redirect != "":
			http.Redirect(w, r, redirect+"/echo?"+r.URL.RawQuery, http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/hang"):
			<-r.Context().Done()
		case strings.HasPrefix(r.URL.Path, "/huge"):
			w.Header().Set("Content-Type", "application/json")
			chunk := strings.Repeat(r.Header.Get("X-Token"), 64)
			_, _ = io.WriteString(w, `{"v":"`)
			for range 40 << 20 / max(len(chunk), 1) {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			_, _ = io.WriteString(w, `"}`)
		case strings.HasPrefix(r.URL.Path, "/html"):
			_, _ = fmt.Fprintf(w, "<html><p>%s</p></html>", r.Header.Get("X-Token"))
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(echo)
		}
	}))
	_ = srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// leakRuns are the runs of TestSecretLeak by name: each one metric (so
// that one ending does not terminate the others), as YAML under metrics:.
func leakRuns(srv string) map[string]string {
	web := func(path, extra string) string {
		return fmt.Sprintf(`provider:
      web:
        url: "{{args.url}}%s?t={{args.s3}}"
        method: POST
        body: '{"s":"{{args.s2}}"}'
        timeoutSeconds: 2
        headers: [{key: X-Token, value: "{{args.s1}}"}, {key: X-Other, value: "{{args.s2}}"}]
        %s`, path, extra)
	}
	return map[string]string{
		"echo":      `successCondition: "false"` + "\n    " + web("/echo/{{args.s3}}", `jsonPath: "{$}"`),
		"fail":      `successCondition: "true"` + "\n    " + web("/fail/{{args.s3}}", `jsonPath: "{$}"`),
		"redirect":  `successCondition: "false"` + "\n    " + web("/redirect", `jsonPath: "{$}"`),
		"hang":      `successCondition: "true"` + "\n    " + web("/hang", `jsonPath: "{$}"`),
		"huge":      `successCondition: "true"` + "\n    " + web("/huge", `jsonPath: "{$.v}"`),
		"html":      `successCondition: "true"` + "\n    " + web("/html", `jsonPath: "{$}"`),
		"jsonpath":  `successCondition: "true"` + "\n    " + web("/echo", `jsonPath: "{$.{{args.s1}}}"`),
		"condition": `successCondition: 'result.header == "{{args.s1}}" ==='` + "\n    " + web("/echo", `jsonPath: "{$}"`),
		"prom-error": `successCondition: "true"
    provider: {prometheus: {address: "{{args.url}}", query: 'up{t="{{args.s1}}"}'}}`,
		"prom-warn": `successCondition: "false"
    provider: {prometheus: {address: "{{args.url}}", query: 'warn{t="{{args.s2}}"}'}}`,
		"job": `provider:
      job:
        spec:
          backoffLimit: 0
          template:
            metadata: {annotations: {test.ramp.dev/exit-code: "1"}}
            spec:
              restartPolicy: Never
              containers: [{name: check, image: registry.example/check:v1, args: ["{{args.s1}}", "{{args.s2}}"]}]`,
	}
}

func leakRunYAML(id, name, srv, metric string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s, labels: {%s: %s}}
spec:
  args:
  - {name: url, value: %q}
  - {name: s1, valueFrom: {secretKeyRef: {name: leak, key: s1}}}
  - {name: s2, valueFrom: {secretKeyRef: {name: leak, key: s2}}}
  - {name: s3, valueFrom: {secretKeyRef: {name: leak, key: s3}}}
  metrics:
  - name: m
    consecutiveErrorLimit: 0
    %s
`, name, instanceLabel, id, srv, metric)
}

// leakTemplateAndRollout: a template whose web metric fails with both
// secrets in the server's error text, used by a canary step of Rollout
// leaky and by Experiment leaky.
func leakTemplateAndRollout(id, srv string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: leaky}
spec:
  args:
  - {name: url}
  - {name: s1, valueFrom: {secretKeyRef: {name: leak, key: s1}}}
  - {name: s2, valueFrom: {secretKeyRef: {name: leak, key: s2}}}
  - {name: s3, valueFrom: {secretKeyRef: {name: leak, key: s3}}}
  metrics:
  - name: m
    consecutiveErrorLimit: 0
    successCondition: "true"
    provider:
      web:
        url: "{{args.url}}/fail/{{args.s3}}?t={{args.s3}}"
        headers: [{key: X-Token, value: "{{args.s1}}"}, {key: X-Other, value: "{{args.s2}}"}]
        jsonPath: "{$}"
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: leaky, labels: {%[1]s: %[2]s}}
spec:
  replicas: 1
  selector: {matchLabels: {app: leaky}}
  template:
    metadata: {labels: {app: leaky}}
    spec: {containers: [{name: app, image: registry.example/app:v1}]}
  strategy:
    canary:
      steps:
      - analysis: {templates: [{templateName: leaky}], args: [{name: url, value: %[3]q}]}
      - pause: {}
---
apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata: {name: leaky, labels: {%[1]s: %[2]s}}
spec:
  duration: 60s
  templates:
  - name: baseline
    replicas: 1
    selector: {matchLabels: {app: leaky-exp}}
    template:
      metadata: {labels: {app: leaky-exp}}
      spec: {containers: [{name: app, image: registry.example/app:v1}]}
  analyses:
  - {name: leaky, templateName: leaky, args: [{name: url, value: %[3]q}]}
`, instanceLabel, id, srv)
}
