// Command ramp-cluster starts, checks and stops the real local control plane
// that `make up`, `make run` and `make test` use, and can run extra processes
// (the controller) under the same pid bookkeeping.
//
//	ramp-cluster up    --bin DIR --state DIR --port-base N
//	ramp-cluster down  --state DIR
//	ramp-cluster start --state DIR --name NAME -- BINARY ARGS...
//	ramp-cluster stop  --state DIR --name NAME
//	ramp-cluster wait-http --url URL [--timeout 30s]
//
// start runs the process under a supervisor (`ramp-cluster supervise`, a
// process of its own whose pid is the one recorded) that restarts it like
// kubelet would: on every exit, after a back-off of 1 s doubling to 30 s,
// reset once it has run 60 s, each restart logged with the exit status to the
// process's log. stop and down stop the supervisor, which stops the process
// and restarts nothing; pids/NAME.child holds the process's own pid.
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
		fmt.Fprintln(os.Stderr, "usage: ramp-cluster up|down|start|stop|supervise|wait-http [flags]")
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
		err = startSupervised(proc.Dir(cfg.StateDir), *name, fs.Args())
	case "supervise":
		if *name == "" || fs.NArg() == 0 {
			err = fmt.Errorf("supervise needs --name and a command")
			break
		}
		// Its output is the process's log (start opened it); the child writes there too.
		child := proc.Cmd{Bin: fs.Arg(0), Args: fs.Args()[1:]}
		err = proc.Dir(cfg.StateDir).Supervise(ctx, *name, child, proc.KubeletBackoff, 8*time.Second, os.Stderr)
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

// startSupervised starts `ramp-cluster supervise` for command (a binary and
// its arguments) in the background, recorded under name: a no-op when the
// same command is already supervised, a restart when it changed.
func startSupervised(d proc.Dir, name string, command []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bin, err := filepath.Abs(command[0])
	if err != nil {
		return err
	}
	args := append([]string{"supervise", "--state", string(d), "--name", name, "--", bin}, command[1:]...)
	return d.StartCmd(name, proc.Cmd{Bin: self, Args: args})
}
