package httpfetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// TestCauseDeterministic: a connection reset by the server gives the same
// message on every request, naming the server's address and not the
// client's ephemeral port, and still wraps the network error.
func TestCauseDeterministic(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			_, _ = c.Read(buf) // the request, then a reset (linger 0) instead of an answer
			_ = c.(*net.TCPConn).SetLinger(0)
			_ = c.Close()
		}
	}()
	client := NewClients(nil, provider.HTTPPolicy{}).For(false)
	var msgs []string
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+l.Addr().String()+"/q", nil)
		r.Close = true // a new connection, and so a new local port, each time
		_, _, err := Do(ctx, client, r, MaxResponseBytes)
		cancel()
		if err == nil || !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("error %v, want a connection reset", err)
		}
		msgs = append(msgs, err.Error())
	}
	want := "GET http://" + l.Addr().String() + ": read tcp " + l.Addr().String() + ": read: connection reset by peer"
	if msgs[0] != want || msgs[1] != want {
		t.Errorf("messages %q, want %q twice", msgs, want)
	}
	if strings.Contains(msgs[0], "->") {
		t.Errorf("message names the local address: %q", msgs[0])
	}
}
