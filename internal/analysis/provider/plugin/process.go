package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"os/exec"
	"sync"

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

// process is one plugin binary, started on first use and again after it
// exits; its RPC client is safe for concurrent calls.
type process struct {
	name string
	path string
	args []string

	mu     sync.Mutex
	client *goplugin.Client
	rpc    *rpc.Client
}

// conn returns the RPC client of a running plugin, starting it (and
// calling its InitPlugin) when none runs.
func (p *process) conn(ctx context.Context) (*rpc.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil && !p.client.Exited() {
		return p.rpc, nil
	}
	p.stopLocked()
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: handshake,
		Plugins:         goplugin.PluginSet{dispenseName: netRPCPlugin{}},
		Cmd:             exec.Command(p.path, p.args...),
		Managed:         true,
		AutoMTLS:        true,
		// The plugin's stderr may hold anything its configuration holds,
		// secrets included: Ramp logs none of it.
		Logger: hclog.NewNullLogger(),
	})
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("starting plugin %s: %w", p.name, err)
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
	p.client, p.rpc = nil, nil
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
