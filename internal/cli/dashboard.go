package cli

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ramp-rollouts/ramp/internal/dashboard"
)

func init() { register(newDashboard) }

func newDashboard(e *env) *cobra.Command {
	o := dashboard.Options{}
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the web dashboard (read-only unless --enable-actions) on 127.0.0.1:3100",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			cfg, err := e.flags.ToRESTConfig()
			if err != nil {
				return err
			}
			raw, _ := e.flags.ToRawKubeConfigLoader().RawConfig() // shown only: no name is better than failing
			o.User = shownUser(cfg, raw)
			log := logr.FromSlogHandler(slog.NewTextHandler(e.streams.Err, nil))
			ctrllog.SetLogger(log)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return dashboard.Run(ctx, cfg, o, log, func(addr string) {
				_, _ = fmt.Fprintf(e.streams.Out, "Ramp dashboard on http://%s (Ctrl-C to stop)\n", addr) // a closed stdout does not stop the server
			})
		},
	}
	cmd.Flags().StringVar(&o.Address, "address", "127.0.0.1:3100", "HOST:PORT to listen on (loopback unless --in-cluster-auth)")
	cmd.Flags().BoolVar(&o.EnableActions, "enable-actions", false, "allow promote, abort, retry, pause, resume, restart, undo and set image from the dashboard")
	cmd.Flags().BoolVar(&o.InClusterAuth, "in-cluster-auth", false, "require a Kubernetes bearer token on every request (TokenReview) and authorise every read and action with a SubjectAccessReview")
	return cmd
}

// shownUser names who a local dashboard acts as, for the page's header: the
// user impersonated (the kubeconfig's `as`, or --as) when there is one, else
// the current context's user entry.
func shownUser(cfg *rest.Config, raw clientcmdapi.Config) string {
	if u := cfg.Impersonate.UserName; u != "" {
		return u
	}
	if c, ok := raw.Contexts[raw.CurrentContext]; ok {
		return c.AuthInfo
	}
	return ""
}
