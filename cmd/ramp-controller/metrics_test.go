package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/testr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"
)

// TestMetricsOptions: by default /metrics is plain HTTP with no filter;
// --metrics-secure serves it over HTTPS behind the authentication and
// authorization filter, with --metrics-cert-dir's certificate.
func TestMetricsOptions(t *testing.T) {
	o, err := parseOptions(flag.NewFlagSet("t", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := metricsOptions(o); m.SecureServing || m.FilterProvider != nil || m.BindAddress != ":8090" {
		t.Errorf("default: %+v, want plain HTTP on :8090 without a filter", m)
	}
	o, err = parseOptions(flag.NewFlagSet("t", flag.ContinueOnError), []string{"--metrics-secure", "--metrics-cert-dir", "/certs"})
	if err != nil {
		t.Fatal(err)
	}
	if m := metricsOptions(o); !m.SecureServing || m.FilterProvider == nil || m.CertDir != "/certs" {
		t.Errorf("--metrics-secure: %+v, want HTTPS, the filter and the certificate directory", m)
	}
}

// TestMetricsFilter: the filter --metrics-secure installs, against an API
// server that knows the token "prometheus" (allowed get on /metrics) and
// "intruder" (authenticated, not allowed): a scrape without a token is
// 401, one with a token the API server does not authenticate is refused
// (controller-runtime answers 500 "Authentication failed"), the intruder's
// is 403, and only prometheus's reaches /metrics. The authorization asked is get on the non-resource path
// /metrics.
func TestMetricsFilter(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/tokenreviews"):
			var tr authnv1.TokenReview
			_ = json.Unmarshal(body, &tr)
			tr.Status = authnv1.TokenReviewStatus{}
			if tr.Spec.Token == "prometheus" || tr.Spec.Token == "intruder" {
				tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: tr.Spec.Token}}
			}
			_ = json.NewEncoder(w).Encode(tr)
		case strings.HasSuffix(r.URL.Path, "/subjectaccessreviews"):
			var sar authzv1.SubjectAccessReview
			_ = json.Unmarshal(body, &sar)
			if a := sar.Spec.NonResourceAttributes; a != nil {
				mu.Lock()
				asked = append(asked, sar.Spec.User+" "+a.Verb+" "+a.Path)
				mu.Unlock()
			}
			sar.Status = authzv1.SubjectAccessReviewStatus{Allowed: sar.Spec.User == "prometheus"}
			_ = json.NewEncoder(w).Encode(sar)
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	o := options{metricsAddr: ":0", metricsSecure: true}
	cfg := &rest.Config{Host: api.URL}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := metricsOptions(o).FilterProvider(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	h, err := filter(testr.New(t), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ramp_metrics 1\n") }))
	if err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]int{"": http.StatusUnauthorized, "forged": http.StatusInternalServerError,
		"intruder": http.StatusForbidden, "prometheus": http.StatusOK} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want || (want == http.StatusOK) != strings.Contains(rec.Body.String(), "ramp_metrics") {
			t.Errorf("token %q: %d %q, want %d", token, rec.Code, rec.Body.String(), want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, ",") != "intruder get /metrics,prometheus get /metrics" && strings.Join(asked, ",") != "prometheus get /metrics,intruder get /metrics" {
		t.Errorf("authorizations asked %v, want get /metrics for each authenticated user", asked)
	}
}
