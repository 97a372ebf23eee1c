package skywalking

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// durationLayout is how SkyWalking reads a MINUTE-step time: the
// controller's local time, as upstream formats it.
const durationLayout = "2006-01-02 1504"

// Duration is SkyWalking's Duration input: a window and its step.
type Duration struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Step  string `json:"step"`
}

// durationOf is the window of length window ending at now, at minute steps,
// as upstream builds the `duration` variable.
func durationOf(now time.Time, window time.Duration) Duration {
	return Duration{Start: now.Add(-window).Format(durationLayout), End: now.Format(durationLayout), Step: "MINUTE"}
}

// Request is the JSON body of a GraphQL POST.
type Request struct {
	Query     string `json:"query"`
	Variables struct {
		Duration Duration `json:"duration"`
	} `json:"variables"`
}

// endpointOf is <address>/graphql, as upstream appends it.
func endpointOf(address string) (*url.URL, error) {
	if address == "" {
		return nil, errors.New("address is not set")
	}
	u, err := url.Parse(address + "/graphql")
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("address is not an http(s) URL")
	}
	return u, nil
}

// newRequest is the POST of query with the duration variable, as GraphQL
// over HTTP has it (a JSON body, a JSON answer).
func newRequest(endpoint *url.URL, query string, d Duration) (*http.Request, error) {
	var body Request
	body.Query = query
	body.Variables.Duration = d
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	r, err := http.NewRequest(http.MethodPost, endpoint.String(), bytes.NewReader(b))
	if err != nil {
		return nil, errors.New("invalid request")
	}
	r.Header.Set("Content-Type", "application/json; charset=utf-8")
	r.Header.Set("Accept", "application/json; charset=utf-8")
	return r, nil
}
