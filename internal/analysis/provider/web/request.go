package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// maxResponseBytes bounds the response body read into memory.
const maxResponseBytes = 10 << 20

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
		return nil, fmt.Errorf("method %.20q is not supported (GET, POST or PUT)", m.Method)
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

// send sends r and returns the response's status code and body. Errors
// name the method, scheme, host and path, never the query or headers.
func send(ctx context.Context, client *http.Client, r *http.Request) (int, []byte, error) {
	where := fmt.Sprintf("%s %s://%s%s", r.Method, r.URL.Scheme, r.URL.Host, r.URL.Path)
	resp, err := client.Do(r)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", where, cause(ctx, err))
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: reading the response: %w", where, cause(ctx, err))
	}
	if len(body) > maxResponseBytes {
		return 0, nil, fmt.Errorf("%s: response larger than %d MiB", where, maxResponseBytes>>20)
	}
	return resp.StatusCode, body, nil
}

// cause is why a request failed: the context's cause when it is done (a
// timeout says how long it waited), else the transport error without the
// URL that *url.Error adds (it may carry secrets in its query string).
func cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
