// Package httpfetch is what the HTTP-based metric providers (prometheus,
// web) share: a pair of clients (verifying, and for `insecure: true`), and
// one request with a size limit whose errors never carry the query string,
// headers or body (they may hold secrets).
package httpfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Clients are an HTTP client that verifies the server's certificate and one
// that does not, built from the same transport.
type Clients struct {
	secure, insecure *http.Client
}

// NewClients clones base (http.DefaultTransport when nil) into the pair.
func NewClients(base *http.Transport) Clients {
	if base == nil {
		var ok bool
		if base, ok = http.DefaultTransport.(*http.Transport); !ok { // replaced by a program embedding Ramp
			base = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
	}
	insecure := base.Clone()
	if insecure.TLSClientConfig == nil {
		insecure.TLSClientConfig = &tls.Config{}
	}
	insecure.TLSClientConfig.InsecureSkipVerify = true
	return Clients{secure: &http.Client{Transport: base.Clone()}, insecure: &http.Client{Transport: insecure}}
}

// For returns the client for a metric's insecure setting.
func (c Clients) For(insecure bool) *http.Client {
	if insecure {
		return c.insecure
	}
	return c.secure
}

// where names a request in errors: method, scheme, host and path only.
func where(r *http.Request) string {
	return fmt.Sprintf("%s %s://%s%s", r.Method, r.URL.Scheme, r.URL.Host, r.URL.Path)
}

// Do sends r and returns the status code and at most limit bytes of body
// (a larger body is an error).
func Do(ctx context.Context, client *http.Client, r *http.Request, limit int) (int, []byte, error) {
	at := where(r)
	resp, err := client.Do(r)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", at, Cause(ctx, err))
	}
	defer func() { _ = resp.Body.Close() }() // the body was read (or failed) already: a close error changes nothing
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: reading the response: %w", at, Cause(ctx, err))
	}
	if len(body) > limit {
		return 0, nil, fmt.Errorf("%s: response larger than %d MiB", at, limit>>20)
	}
	return resp.StatusCode, body, nil
}

// Cause is why a request failed: the context's cause when it is done (a
// timeout says how long it waited), else the transport error without the
// URL that *url.Error adds (it may carry secrets in its query string).
func Cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
