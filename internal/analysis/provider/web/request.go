package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// newRequest builds the request metric m describes. A body goes only with
// POST and PUT; jsonBody is sent as JSON with Content-Type
// application/json unless a header sets another.
func newRequest(ctx context.Context, m *rampv1.WebMetric) (*http.Request, error) {
	method := strings.ToUpper(string(m.Method))
	switch method {
	case "":
		method = http.MethodGet
	case http.MethodGet, http.MethodPost, http.MethodPut:
	default:
		return nil, errors.New("method is not supported (GET, POST or PUT)") // not echoed: it may come from an argument
	}
	if m.URL == "" {
		return nil, errors.New("url is not set")
	}
	u, err := url.Parse(m.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("url is not an http(s) URL")
	}
	a := m.Authentication
	if a.Sigv4 != (rampv1.Sigv4Config{}) || a.OAuth2.TokenURL != "" || a.OAuth2.ClientID != "" ||
		a.OAuth2.ClientSecret != "" || len(a.OAuth2.Scopes) > 0 {
		return nil, errors.New("authentication (sigv4, oauth2) is not supported")
	}
	jsonBody := m.JSONBody != nil && len(m.JSONBody.Raw) > 0
	var payload io.Reader
	switch {
	case m.Body != "" && jsonBody:
		return nil, errors.New("body and jsonBody may not both be set")
	case (m.Body != "" || jsonBody) && method == http.MethodGet:
		return nil, errors.New("a GET request takes no body (use POST or PUT)")
	case m.Body != "":
		payload = strings.NewReader(m.Body)
	case jsonBody:
		if !json.Valid(m.JSONBody.Raw) {
			return nil, errors.New("jsonBody is not valid JSON")
		}
		payload = bytes.NewReader(m.JSONBody.Raw)
	}
	r, err := http.NewRequestWithContext(ctx, method, u.String(), payload)
	if err != nil {
		return nil, errors.New("invalid request")
	}
	for _, h := range m.Headers {
		if strings.EqualFold(h.Key, "Host") {
			r.Host = h.Value
			continue
		}
		r.Header.Set(h.Key, h.Value)
	}
	if jsonBody && r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	return r, nil
}
