package prometheus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// query is one HTTP API call: the endpoint and its form values.
type query struct {
	endpoint *url.URL
	form     url.Values
}

// build turns metric m into an instant query at now, or a range query.
func (p *Provider) build(m *rampv1.PrometheusMetric) (query, error) {
	address := m.Address
	if address == "" {
		address = p.address
	}
	if address == "" {
		return query{}, errors.New("address is not set")
	}
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return query{}, errors.New("address is not an http(s) URL")
	}
	if strings.TrimSpace(m.Query) == "" {
		return query{}, errors.New("query is not set")
	}
	if authenticationSet(m.Authentication) {
		return query{}, errors.New("authentication (sigv4, oauth2) is not supported")
	}
	now := p.now()
	form := url.Values{"query": {m.Query}}
	if m.RangeQuery == nil {
		form.Set("time", formatTime(now))
		return query{endpoint: endpoint(u, "query"), form: form}, nil
	}
	start, end, err := bounds(m.RangeQuery, now)
	if err != nil {
		return query{}, err
	}
	if m.RangeQuery.Step == "" {
		return query{}, errors.New("rangeQuery.step is not set")
	}
	form.Set("start", formatTime(start))
	form.Set("end", formatTime(end))
	form.Set("step", m.RangeQuery.Step) // Prometheus parses and checks it
	return query{endpoint: endpoint(u, "query_range"), form: form}, nil
}

// endpoint is the URL of an HTTP API endpoint under the server's address
// (which may have a path prefix, as behind a proxy).
func endpoint(address *url.URL, name string) *url.URL {
	u := address.JoinPath("api", "v1", name)
	if !strings.HasPrefix(u.Path, "/") {
		u.Path, u.RawPath = "/"+u.Path, ""
	}
	return u
}

// formatTime formats t as Prometheus accepts it (RFC 3339).
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// send POSTs the query (falling back to GET when the server refuses POST,
// as some Prometheus-compatible servers do) and returns the response's
// status code and body. Errors never contain the headers, the query string
// or the address's user information.
func (q query) send(ctx context.Context, client *http.Client, headers []rampv1.WebMetricHeader) (int, []byte, error) {
	status, body, err := q.do(ctx, client, http.MethodPost, headers)
	if err == nil && (status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		return q.do(ctx, client, http.MethodGet, headers)
	}
	return status, body, err
}

func (q query) do(ctx context.Context, client *http.Client, method string, headers []rampv1.WebMetricHeader) (int, []byte, error) {
	target := *q.endpoint
	var payload io.Reader
	if method == http.MethodPost {
		payload = strings.NewReader(q.form.Encode())
	} else {
		values := target.Query()
		for k, v := range q.form {
			values[k] = v
		}
		target.RawQuery = values.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, method, target.String(), payload)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: invalid request", httpfetch.Where(method, &target))
	}
	if payload != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range headers {
		if strings.EqualFold(h.Key, "Host") {
			r.Host = h.Value
			continue
		}
		r.Header.Set(h.Key, h.Value)
	}
	return httpfetch.Do(ctx, client, r, httpfetch.MaxResponseBytes)
}
