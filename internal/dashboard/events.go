package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Change is the data of one "rollout" Server-Sent Event: the rollout's new
// list row, or Deleted.
type Change struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	Deleted         bool   `json:"deleted,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Row             *Row   `json:"row,omitempty"`
}

// Render builds the message of a changed rollout from the cache; the hub
// calls it once per change for all subscribers.
func Render(c client.Reader) func(types.NamespacedName) (Message, bool) {
	return func(key types.NamespacedName) (Message, bool) {
		ch := Change{Namespace: key.Namespace, Name: key.Name}
		var ro rampv1.Rollout
		if err := c.Get(context.Background(), key, &ro); err != nil {
			if !apierrors.IsNotFound(err) {
				return Message{}, false // the next change renders it again
			}
			ch.Deleted = true
		} else {
			row := rowOf(&ro)
			ch.Row, ch.ResourceVersion = &row, ro.ResourceVersion
		}
		b, err := json.Marshal(ch)
		if err != nil {
			return Message{}, false
		}
		return Message{Namespace: key.Namespace, Data: b}, true
	}
}

// keepAliveEvery is how often a quiet event stream sends a comment line
// and checks its credentials again.
const keepAliveEvery = 25 * time.Second

// events streams rollout changes as Server-Sent Events until the browser
// leaves or the hub drops it; each message is sent only if the user may
// list rollouts in its namespace.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	f, ok := w.(http.Flusher)
	if !ok || s.cfg.Hub == nil {
		writeError(w, http.StatusNotImplemented, "live updates are not available")
		return
	}
	ctx, u := r.Context(), userOf(r.Context())
	sub := s.cfg.Hub.Subscribe()
	defer s.cfg.Hub.Unsubscribe(sub)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, ": connected\n\n"); err != nil {
		return
	}
	f.Flush()
	// A comment line now and then keeps proxies from closing a quiet stream.
	keepAlive := time.NewTicker(s.keepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-keepAlive.C:
			// The credentials again: a sign-out or a revoked token ends
			// the stream (the page then shows the sign-in form).
			if _, err := s.cfg.Authn.Authenticate(r); errors.Is(err, errUnauthenticated) {
				_, _ = fmt.Fprint(w, "event: signedout\ndata: {}\n\n") // leaving anyway
				f.Flush()
				return
			}
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			f.Flush()
		case m, open := <-sub.C:
			if !open {
				// Dropped for falling behind: say so; the page reloads.
				_, _ = fmt.Fprint(w, "event: dropped\ndata: {}\n\n") // leaving anyway
				f.Flush()
				return
			}
			if ok, err := s.mayList(ctx, u, m.Namespace); err != nil || !ok {
				continue
			}
			if _, err := fmt.Fprintf(w, "event: rollout\ndata: %s\n\n", m.Data); err != nil {
				return
			}
			f.Flush()
		}
	}
}
