package influxdb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// response is what send read: the status, the headers and the body.
type response struct {
	status int
	header http.Header
	body   []byte
}

// send sends r with httpfetch (its policy and size limit), keeping the
// final response's headers (Retry-After) through a tap on the transport.
func send(ctx context.Context, client *http.Client, r *http.Request) (response, error) {
	var resp response
	tapped := *client
	tapped.Transport = headerTap{next: client.Transport, header: &resp.header}
	status, body, err := httpfetch.Do(ctx, &tapped, r, httpfetch.MaxResponseBytes)
	resp.status, resp.body = status, body
	return resp, err
}

// headerTap records the headers of the responses it carries (the last
// one's, after redirects).
type headerTap struct {
	next   http.RoundTripper
	header *http.Header
}

func (t headerTap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if resp != nil {
		*t.header = resp.Header
	}
	return resp, err
}

// statusError is the error of a non-2xx answer: the status, what it means
// (credentials refused, rate limited and when to retry), and InfluxDB's
// message: 2.x's {"code","message"} or 1.x's {"error"}, else the start of
// the body.
func statusError(resp response) error {
	var what string
	switch s := resp.status; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		what = "credentials refused"
	case s == http.StatusTooManyRequests:
		what = "rate limited"
		if after := strings.TrimSpace(resp.header.Get("Retry-After")); after != "" {
			what += fmt.Sprintf(" (Retry-After %.40s)", after)
		}
	case s >= 500:
		what = "server error"
	default:
		what = "request refused"
	}
	text := fmt.Sprintf("HTTP %d: %s", resp.status, what)
	if msg := errorMessage(resp.body); msg != "" {
		text += ": " + msg
	}
	return fmt.Errorf("%s", text)
}

// errorMessage is InfluxDB's error text from an error body.
func errorMessage(body []byte) string {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		switch {
		case e.Code != "" && e.Message != "":
			return httpfetch.Snippet([]byte(e.Code + ": " + e.Message))
		case e.Message != "":
			return httpfetch.Snippet([]byte(e.Message))
		case e.Error != "":
			return httpfetch.Snippet([]byte(e.Error))
		}
	}
	return httpfetch.Snippet(body)
}
