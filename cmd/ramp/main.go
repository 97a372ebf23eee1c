// Command ramp is Ramp's command-line interface. Installed as kubectl-ramp it
// is also a kubectl plugin (`kubectl ramp ...`).
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
)

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	prog := filepath.Base(args[0])
	if prog == "kubectl-ramp" {
		prog = "kubectl ramp"
	}
	if len(args) < 2 {
		usage(prog, stderr)
		return 2
	}
	switch args[1] {
	case "version":
		fmt.Fprintf(stdout, "%s %s\n", prog, version())
		return 0
	case "help", "-h", "--help":
		usage(prog, stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n", prog, args[1])
		usage(prog, stderr)
		return 2
	}
}

func usage(prog string, w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command>\n\ncommands:\n  version   print the version\n  help      show this help\n", prog)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
