package httpfetch

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// StatusError is the error of a non-2xx answer from a vendor API: the
// status, what it means (credentials refused, rate limited and when to retry
// as the vendor's headers say, a server error), and the vendor's message
// (callers pass it through their redactor: vendors echo keys).
func StatusError(resp Response, message string) error {
	var what string
	switch code := resp.Status; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		what = "credentials refused"
	case code == http.StatusTooManyRequests:
		what = "rate limited" + retryAfter(resp.Header)
	case code >= 500:
		what = "server error"
	case code >= 400:
		what = "request refused"
	default: // a 2xx other than 200, a redirect not followed: not a refusal
		what = "unexpected status"
	}
	text := strings.TrimSpace(fmt.Sprintf("HTTP %d %s", resp.Status, http.StatusText(resp.Status))) + ": " + what // a code Go has no name for: none
	if message = Excerpt(message); message != "" {
		text += ": " + message
	}
	return fmt.Errorf("%s", text)
}

// SendOK is Send to a vendor API that answers 200: the body of a 200, or
// else StatusError with the vendor's message as message finds it in the
// body (nil message: the body itself).
func SendOK(ctx context.Context, client *http.Client, r *http.Request, message func(body []byte) string) ([]byte, error) {
	resp, err := Send(ctx, client, r, MaxResponseBytes)
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		msg := string(resp.Body)
		if message != nil {
			msg = message(resp.Body)
		}
		return nil, StatusError(resp, msg)
	}
	return resp.Body, nil
}

// retryAfter names when a rate limit lifts: Retry-After (RFC 9110), else
// the X-RateLimit-Reset seconds (Datadog, Wavefront) and the limit's name.
func retryAfter(h http.Header) string {
	var parts []string
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		parts = append(parts, "Retry-After "+Excerpt(v))
	} else if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		parts = append(parts, "resets in "+Excerpt(v)+"s")
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Name")); v != "" {
		parts = append(parts, "limit "+Excerpt(v))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// ForDeps is NewClients with the policy of deps (the zero policy for nil
// deps: a provider built without a controller, in tests of other packages).
func ForDeps(base *http.Transport, deps provider.HTTPDeps) Clients {
	var policy provider.HTTPPolicy
	if deps != nil {
		policy = deps.HTTPPolicy()
	}
	return NewClients(base, policy)
}
