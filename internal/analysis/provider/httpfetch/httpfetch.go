// Package httpfetch is what the HTTP-based metric providers (prometheus,
// web, the vendor APIs) share: a pair of clients (verifying, and for
// `insecure: true`) that enforce the controller's provider.HTTPPolicy
// (policy.go), and one request with a size limit whose errors name the
// method, scheme and host only, never the path, query string, headers or
// body (they may hold secrets); for vendor APIs, SendOK and StatusError
// (status.go) name a refused answer, quoting at most an Excerpt of it.
package httpfetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// MaxResponseBytes bounds the response body read into memory; a larger
// body is refused before anything decodes it.
const MaxResponseBytes = 16 << 20

// Clients are an HTTP client that verifies the server's certificate and one
// that does not, built from the same transport and policy.
type Clients struct {
	secure, insecure *http.Client
}

// NewClients clones base (http.DefaultTransport when nil) into the pair,
// each dialing, redirecting and choosing hosts as policy says (policy.go).
func NewClients(base *http.Transport, policy provider.HTTPPolicy) Clients {
	if base == nil {
		var ok bool
		if base, ok = http.DefaultTransport.(*http.Transport); !ok { // replaced by a program embedding Ramp
			base = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
	}
	secure := base.Clone()
	insecure := base.Clone()
	if insecure.TLSClientConfig == nil {
		insecure.TLSClientConfig = &tls.Config{}
	}
	insecure.TLSClientConfig.InsecureSkipVerify = true
	return Clients{secure: newClient(secure, policy), insecure: newClient(insecure, policy)}
}

// newClient wraps t: its dials refuse link-local addresses (unless the
// policy allows them), every request and redirect is checked against the
// policy's hosts, and redirects follow checkRedirect.
func newClient(t *http.Transport, policy provider.HTTPPolicy) *http.Client {
	if !policy.AllowLinkLocal {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refuseLinkLocal}
		t.DialContext = d.DialContext
	}
	return &http.Client{Transport: guard{next: t, policy: policy}, CheckRedirect: checkRedirect}
}

// For returns the client for a metric's insecure setting.
func (c Clients) For(insecure bool) *http.Client {
	if insecure {
		return c.insecure
	}
	return c.secure
}

// Where names a request in errors: method, scheme and host only (a path
// or query may carry arguments, and so secrets).
func Where(method string, u *url.URL) string {
	return fmt.Sprintf("%s %s://%s", method, u.Scheme, u.Host)
}

// Do sends r and returns the status code and at most limit bytes of body
// (a larger body is an error naming the limit, refused before anything
// decodes it).
func Do(ctx context.Context, client *http.Client, r *http.Request, limit int) (int, []byte, error) {
	resp, err := Send(ctx, client, r, limit)
	return resp.Status, resp.Body, err
}

// Response is what Send read: the status, the headers (rate-limit headers
// such as Retry-After) and at most the limit of body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send is Do keeping the response headers.
func Send(ctx context.Context, client *http.Client, r *http.Request, limit int) (Response, error) {
	at := Where(r.Method, r.URL)
	resp, err := client.Do(r)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", at, Cause(ctx, err))
	}
	defer func() { _ = resp.Body.Close() }() // the body was read (or failed) already: a close error changes nothing
	if resp.ContentLength > int64(limit) {
		return Response{}, fmt.Errorf("%s: %w", at, tooLarge(limit))
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 { // one allocation of the announced size, not a doubling series
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, int64(limit)+1)); err != nil {
		return Response{}, fmt.Errorf("%s: reading the response: %w", at, Cause(ctx, err))
	}
	if buf.Len() > limit {
		return Response{}, fmt.Errorf("%s: %w", at, tooLarge(limit))
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: buf.Bytes()}, nil
}

func tooLarge(limit int) error {
	return fmt.Errorf("response larger than the %d MiB limit", limit>>20)
}

// Cause is why a request failed: the context's cause when it is done (a
// timeout says how long it waited), else the transport error without the
// URL that *url.Error adds (it may carry secrets in its path or query).
func Cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return withoutSource(err)
}

// withoutSource is err with the local address taken out of the network
// error it holds ("read tcp 127.0.0.1:41234->10.0.0.7:8086: ..." reads
// "read tcp 10.0.0.7:8086: ..."): the local port differs on every
// connection, and a measurement's message must be the same for the same
// failure. The result still wraps err.
func withoutSource(err error) error {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Source == nil {
		return err
	}
	bare := *oe
	bare.Source = nil
	return sourceless{msg: strings.ReplaceAll(err.Error(), oe.Error(), bare.Error()), err: err}
}

type sourceless struct {
	msg string
	err error
}

func (s sourceless) Error() string { return s.msg }
func (s sourceless) Unwrap() error { return s.err }
