// Command ramp-cluster starts, checks and stops the real local control plane
// that `make up`, `make run` and `make test` use, and can run extra processes
// (the controller) under the same pid bookkeeping.
//
//	ramp-cluster up    --bin DIR --state DIR --port-base N
//	ramp-cluster down  --state DIR
//	ramp-cluster start --state DIR --name NAME -- BINARY ARGS...
//	ramp-cluster stop  --state DIR --name NAME
//	ramp-cluster wait-http --url URL [--timeout 30s]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ramp-rollouts/ramp/test/cluster/controlplane"
	"github.com/ramp-rollouts/ramp/test/cluster/proc"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ramp-cluster up|down|start|stop [flags]")
		os.Exit(2)
	}
	verb := os.Args[1]
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	var cfg controlplane.Config
	fs.StringVar(&cfg.BinDir, "bin", "", "directory with the control-plane binaries")
	fs.StringVar(&cfg.StateDir, "state", ".ramp-dev/cluster", "state directory")
	fs.IntVar(&cfg.PortBase, "port-base", 16400, "first of ten consecutive loopback ports")
	fs.DurationVar(&cfg.HPASyncPeriod, "hpa-sync-period", 15*time.Second, "HPA controller sync period")
	fs.IntVar(&cfg.Nodes, "nodes", 1, "number of kwok nodes")
	name := fs.String("name", "", "process name for start/stop")
	url := fs.String("url", "", "URL for wait-http")
	timeout := fs.Duration("timeout", 30*time.Second, "deadline for wait-http")
	_ = fs.Parse(os.Args[2:])
	for _, dir := range []*string{&cfg.BinDir, &cfg.StateDir} {
		if abs, err := filepath.Abs(*dir); err == nil && *dir != "" {
			*dir = abs
		}
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var err error
	switch verb {
	case "up":
		err = controlplane.Up(ctx, cfg, os.Stderr)
	case "down":
		err = controlplane.Down(cfg, os.Stderr)
	case "start":
		if *name == "" || fs.NArg() == 0 {
			err = fmt.Errorf("start needs --name and a command")
			break
		}
		err = proc.Dir(cfg.StateDir).Start(*name, fs.Arg(0), fs.Args()[1:]...)
	case "stop":
		err = proc.Dir(cfg.StateDir).Stop(*name, 10*time.Second)
	case "wait-http":
		err = controlplane.WaitHTTP(ctx, *url, *timeout)
	default:
		err = fmt.Errorf("unknown verb %q", verb)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ramp-cluster:", err)
		os.Exit(1)
	}
}
