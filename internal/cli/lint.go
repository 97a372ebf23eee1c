package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ramp-rollouts/ramp/internal/lint"
)

func init() { register(newLint) }

func newLint(e *env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check manifests offline before applying them (- reads standard input)",
		Long: `Check multi-document YAML manifests without a cluster. All files are linted
together: a Service, Ingress or HPA in one file is checked against the Rollout
in another.

Errors: what the API server would reject for Ramp's kinds (schema rules,
unknown fields, wrong types, pod templates Kubernetes would reject); what the
controller would refuse as InvalidSpec or end in Error (Services that select
none of the Rollout's pods or belong to another Rollout, Ingresses without the
backend the router splits, analysis metrics that cannot run); features this
version of Ramp does not run (with the controller's words); malformed YAML.
Warnings: manifests that apply but do not do what they seem to, e.g. an HPA
that cannot compute utilization, or an Argo CD hook that promotes.

Each finding is printed once, as
  file:line:column: severity: Kind/name: field: message
where line and column are those of the offending field (of the nearest
enclosing field when it is missing). -o json prints a JSON array of
{file, line, column, severity, kind, name, field, message}.

Exit codes: 0 no errors (warnings allowed), 1 at least one error,
2 the command could not run (a file cannot be read, bad flags).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &ExitError{Code: 2, Err: fmt.Errorf("lint: name at least one FILE (- reads standard input)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return &ExitError{Code: 2, Err: fmt.Errorf("lint: -o %q: want text or json", output)}
			}
			files := make([]lint.File, 0, len(args))
			for _, name := range args {
				data, err := readManifest(e, name)
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				files = append(files, lint.File{Name: name, Data: data})
			}
			fs := lint.Check(files...)
			if err := printFindings(e.streams.Out, output, fs); err != nil {
				return err
			}
			if errs := countErrors(fs); errs > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("lint: %d error(s), %d warning(s)", errs, len(fs)-errs)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// printFindings writes the findings as text lines or one JSON array.
func printFindings(w io.Writer, output string, fs []lint.Finding) error {
	if output == "json" {
		if fs == nil {
			fs = []lint.Finding{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(fs)
	}
	for _, f := range fs {
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	return nil
}

func countErrors(fs []lint.Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity == lint.Error {
			n++
		}
	}
	return n
}

// readManifest reads a FILE argument; "-" is standard input.
func readManifest(e *env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.streams.In)
	}
	return os.ReadFile(name)
}
