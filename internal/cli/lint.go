package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ramp-rollouts/ramp/internal/lint"
)

func init() { register(newLint) }

func newLint(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check manifests offline before applying them (- reads standard input)",
		Long: `Check multi-document YAML manifests without a cluster.

Errors (exit code 1): what the API server would reject for Ramp's kinds
(schema and CEL rules, unknown fields, wrong types), what this version of Ramp
cannot run (the controller's InvalidSpec checks), and malformed YAML.
Warnings (exit code 0): manifests that apply but do not do what they seem to,
e.g. an HPA that cannot compute utilization, or an Argo CD hook that promotes.

Each finding is printed as file:line: severity: field: message.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files := make([]lint.File, 0, len(args))
			for _, name := range args {
				data, err := readManifest(e, name)
				if err != nil {
					return err
				}
				files = append(files, lint.File{Name: name, Data: data})
			}
			fs := lint.Check(files...)
			errs := 0
			for _, f := range fs {
				if f.Severity == lint.Error {
					errs++
				}
				if _, err := fmt.Fprintln(e.streams.Out, f); err != nil {
					return err
				}
			}
			if errs > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("lint: %d error(s), %d warning(s)", errs, len(fs)-errs)}
			}
			return nil
		},
	}
}

// readManifest reads a FILE argument; "-" is standard input.
func readManifest(e *env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.streams.In)
	}
	return os.ReadFile(name)
}
