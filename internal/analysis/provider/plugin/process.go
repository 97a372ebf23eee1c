package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// The handshake and the name a metric plugin binary serves its provider
// under: upstream's, so that rollouts-plugin-metric-* binaries accept Ramp
// as their host.
const (
	handshakeCookieKey   = "ARGO_ROLLOUTS_RPC_PLUGIN"
	handshakeCookieValue = "metricprovider"
	dispenseName         = "RpcMetricProviderPlugin"
)

var handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   handshakeCookieKey,
	MagicCookieValue: handshakeCookieValue,
}

// netRPCPlugin is the host side of upstream's plugin: it only dispenses
// the net/rpc client; Ramp serves no plugin.
type netRPCPlugin struct{}

func (netRPCPlugin) Server(*goplugin.MuxBroker) (any, error) {
	return nil, errors.New("ramp only hosts metric plugins")
}

func (netRPCPlugin) Client(_ *goplugin.MuxBroker, c *rpc.Client) (any, error) { return c, nil }

// Restart backoff: after a failure (a failed start, or a call that lost
// the process) a plugin is started again at once; after each further
// failure in a row the next start waits twice as long, from restartBackoff
// up to maxRestartBackoff. A successful call ends the series. A plugin
// that crashes at start or on every call is thus not restarted by every
// measurement of every run.
const (
	restartBackoff    = time.Second
	maxRestartBackoff = time.Minute
)

// process is one plugin binary, started on first use and again after it
// exits; its RPC client is safe for concurrent calls.
type process struct {
	name string
	path string
	args []string
	now  func() time.Time

	mu       sync.Mutex
	client   *goplugin.Client
	rpc      *rpc.Client
	failures int       // in a row
	retryAt  time.Time // no start before
	timeouts int       // calls of this process cut by their context, in a row
}

// maxTimeouts is how many calls in a row may end with their context before
// the process is taken as hung and stopped (a failure, restarted as
// above); one slow answer is not enough.
const maxTimeouts = 3

// conn returns the RPC client of a running plugin, starting it (and
// calling its InitPlugin) when none runs.
func (p *process) conn(ctx context.Context) (*rpc.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil && !p.client.Exited() {
		return p.rpc, nil
	}
	if p.client != nil { // it exited between calls
		p.failedLocked()
	}
	p.stopLocked()
	if now := p.now(); now.Before(p.retryAt) {
		return nil, fmt.Errorf("plugin %s: failed %d times in a row, not started again before %s", p.name, p.failures, p.retryAt.UTC().Format(time.RFC3339))
	}
	c, err := p.startLocked(ctx)
	if err != nil {
		p.failedLocked()
		return nil, err
	}
	return c, nil
}

// failed records that a call lost connection c, stopping its process;
// once per connection, however many calls it lost.
func (p *process) failed(c *rpc.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rpc != c {
		return
	}
	p.failedLocked()
	p.stopLocked()
}

func (p *process) failedLocked() {
	p.failures++
	if p.failures > 1 {
		p.retryAt = p.now().Add(min(restartBackoff<<min(p.failures-2, 16), maxRestartBackoff))
	}
}

// timedOut records that a call on connection c ended with its context;
// after maxTimeouts in a row the process is stopped as a failure.
func (p *process) timedOut(c *rpc.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rpc != c {
		return
	}
	if p.timeouts++; p.timeouts >= maxTimeouts {
		p.failedLocked()
		p.stopLocked()
	}
}

// succeeded ends a series of failures and of timeouts: the next failure
// restarts at once.
func (p *process) succeeded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures, p.retryAt, p.timeouts = 0, time.Time{}, 0
}

// startLocked starts the plugin and calls its InitPlugin.
func (p *process) startLocked(ctx context.Context) (*rpc.Client, error) {
	client := goplugin.NewClient(p.clientConfig(ctx))
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("starting plugin %s: %s", p.name, startError(err))
	}
	raw, err := proto.Dispense(dispenseName)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: %w", p.name, err)
	}
	c := raw.(*rpc.Client)
	var res rpcError
	if err := call(ctx, c, "Plugin.InitPlugin", new(any), &res); err != nil {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: InitPlugin: %w", p.name, err)
	}
	if res.ErrorString != "" {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: InitPlugin: %s", p.name, res.ErrorString)
	}
	p.client, p.rpc = client, c
	return c, nil
}

// clientConfig is how go-plugin starts the plugin: its handshake must
// come before ctx ends (go-plugin's own default is a minute), and the
// process dies with the controller (sysProcAttr).
func (p *process) clientConfig(ctx context.Context) *goplugin.ClientConfig {
	cmd := exec.Command(p.path, p.args...)
	cmd.SysProcAttr = sysProcAttr()
	cfg := &goplugin.ClientConfig{
		HandshakeConfig: handshake,
		Plugins:         goplugin.PluginSet{dispenseName: netRPCPlugin{}},
		Cmd:             cmd,
		Managed:         true,
		AutoMTLS:        true,
		// The plugin's stderr may hold anything its configuration holds,
		// secrets included: Ramp logs none of it.
		Logger: hclog.NewNullLogger(),
	}
	if deadline, ok := ctx.Deadline(); ok {
		cfg.StartTimeout = max(time.Until(deadline), time.Millisecond)
	}
	return cfg
}

// startError is go-plugin's start error without what it quotes of the
// plugin's output: a line it cannot read as its handshake is quoted
// whole, and the plugin's output may hold secrets (its environment, its
// arguments). Only the first line is kept.
func startError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if strings.HasPrefix(msg, "Unrecognized remote plugin message") {
		return "its output does not start with go-plugin's handshake (the output is not shown: it may hold secrets); is it a metric plugin built with go-plugin?"
	}
	return msg
}

// stop kills the plugin process, if one runs.
func (p *process) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
}

func (p *process) stopLocked() {
	if p.client != nil {
		p.client.Kill()
	}
	p.client, p.rpc, p.timeouts = nil, nil, 0
}

// call makes one RPC, returning when it completes or ctx ends (the call
// then completes, unread, in the background).
func call(ctx context.Context, c *rpc.Client, method string, args, reply any) error {
	done := c.Go(method, args, reply, make(chan *rpc.Call, 1)).Done
	select {
	case res := <-done:
		return res.Error
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// StopAll kills every plugin process this package started; the
// controller calls it as it exits.
func StopAll() { goplugin.CleanupClients() }
