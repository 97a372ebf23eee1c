package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/buildinfo"
	_ "github.com/ramp-rollouts/ramp/internal/builtin" // lint and plan know the controller's routers and providers
)

// Streams are where a command reads and writes.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// env is what every command shares: kubectl's standard flags and the output.
type env struct {
	prog    string // "ramp" or "kubectl ramp"
	flags   *genericclioptions.ConfigFlags
	streams Streams
}

// ExitError carries a process exit code (status uses 1 and 2).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

// NewRoot builds the command tree. prog is the name it was invoked as.
func NewRoot(prog string, s Streams) *cobra.Command {
	use := filepath.Base(prog)
	if use == "kubectl-ramp" {
		use = "kubectl ramp"
	}
	e := &env{prog: use, flags: genericclioptions.NewConfigFlags(true), streams: s}
	root := &cobra.Command{
		Use:           use,
		Short:         "Drive Ramp (Argo Rollouts API) rollouts: get, promote, abort, plan, lint, doctor",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if use == "kubectl ramp" { // cobra names a command by Use's first word: "kubectl get" otherwise
		root.Use = "ramp"
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: use}
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	e.flags.AddFlags(root.PersistentFlags())
	for _, add := range commands {
		root.AddCommand(add(e))
	}
	return root
}

// commands are the verbs; each file registers its constructor from init.
var commands []func(*env) *cobra.Command

func register(c func(*env) *cobra.Command) { commands = append(commands, c) }

// Main runs the CLI and returns the process exit code.
func Main(args []string, s Streams) int {
	root := NewRoot(args[0], s)
	root.SetArgs(args[1:])
	if err := root.Execute(); err != nil {
		_, _ = fmt.Fprintf(s.Err, "error: %v\n", err) // nowhere left to report a failed write to stderr
		if ee := (*ExitError)(nil); errors.As(err, &ee) {
			return ee.Code
		}
		return 1
	}
	return 0
}

// client returns a controller-runtime client for the cluster the kubectl
// flags select.
func (e *env) client() (client.WithWatch, error) {
	cfg, err := e.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := rampv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.NewWithWatch(cfg, client.Options{Scheme: scheme})
}

// namespace is -n, else the kubeconfig context's namespace, else "default".
func (e *env) namespace() (string, error) {
	ns, _, err := e.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", err
	}
	return ns, nil
}

func init() {
	register(func(e *env) *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := fmt.Fprintf(e.streams.Out, "%s %s\n", e.prog, version())
				return err
			},
		}
	})
}

func version() string { return buildinfo.Get().String() }

// Stdio are the process's standard streams.
func Stdio() Streams { return Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }
