package dashboard

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Message is one Server-Sent Event: the new state of one rollout.
type Message struct {
	Namespace string
	// Data is the event's JSON, built once for every subscriber.
	Data []byte
}

// Hub fans rollout changes out to every connected browser. Informer
// handlers call Changed; changes are coalesced (a burst on one rollout
// becomes one message) and sent at most once per window. Each subscriber
// has a bounded buffer: one that falls behind is dropped, never waited for,
// so a slow browser cannot hold up the others or the informers.
type Hub struct {
	render  func(types.NamespacedName) (Message, bool)
	bufSize int

	mu      sync.Mutex
	subs    map[*Subscriber]struct{}
	pending map[types.NamespacedName]struct{}
	kick    chan struct{}
	dropped int
}

// Subscriber is one browser's stream.
type Subscriber struct {
	// C delivers the messages; it is closed when the subscriber is dropped
	// for falling behind.
	C chan Message
}

// NewHub makes a hub whose messages render builds (false: nothing to
// send) and whose subscribers each buffer bufSize messages.
func NewHub(render func(types.NamespacedName) (Message, bool), bufSize int) *Hub {
	return &Hub{
		render: render, bufSize: bufSize,
		subs: map[*Subscriber]struct{}{}, pending: map[types.NamespacedName]struct{}{}, kick: make(chan struct{}, 1),
	}
}

// Subscribe adds a stream.
func (h *Hub) Subscribe() *Subscriber {
	s := &Subscriber{C: make(chan Message, h.bufSize)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Unsubscribe removes a stream (a browser that left); it is a no-op for one
// already dropped.
func (h *Hub) Unsubscribe(s *Subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// Subscribers is the number of open streams.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Dropped is the number of streams dropped for falling behind.
func (h *Hub) Dropped() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// Changed records that a rollout changed; it never blocks.
func (h *Hub) Changed(key types.NamespacedName) {
	h.mu.Lock()
	h.pending[key] = struct{}{}
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Flush sends one message per rollout changed since the last flush to
// every subscriber, dropping those whose buffer is full.
func (h *Hub) Flush() {
	h.mu.Lock()
	keys := h.pending
	h.pending = map[types.NamespacedName]struct{}{}
	h.mu.Unlock()
	var msgs []Message
	for k := range keys {
		if m, ok := h.render(k); ok {
			msgs = append(msgs, m)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		for _, m := range msgs {
			select {
			case s.C <- m:
				continue
			default:
			}
			delete(h.subs, s)
			close(s.C)
			h.dropped++
			break
		}
	}
}

// Run flushes after each change, waiting window first so a burst (a scale
// touches the Rollout, its ReplicaSets and every pod) becomes one message
// per rollout. It returns when ctx ends.
func (h *Hub) Run(ctx context.Context, window time.Duration) {
	t := time.NewTimer(window)
	t.Stop()
	for {
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-h.kick:
		}
		t.Reset(window)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		h.Flush()
	}
}
