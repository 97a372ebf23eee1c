// Command ramp is Ramp's command-line interface. Installed as kubectl-ramp it
// is also a kubectl plugin (`kubectl ramp ...`).
package main

import (
	"os"

	"github.com/ramp-rollouts/ramp/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args, cli.Stdio())) }
