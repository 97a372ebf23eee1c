package dashboard

import (
	"context"
	"errors"
	"fmt"
	"golang.org/x/time/rate"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Options are `ramp dashboard`'s flags.
type Options struct {
	Address       string
	EnableActions bool
	InClusterAuth bool
	// User names the kubeconfig identity in local mode (shown, not trusted).
	User string
}

// Validate refuses a local-mode server reachable from other machines:
// without --in-cluster-auth it acts as the kubeconfig user for whoever can
// reach it.
func (o Options) Validate() error {
	host, _, err := net.SplitHostPort(o.Address)
	if err != nil {
		return fmt.Errorf("--address %q: want HOST:PORT: %w", o.Address, err)
	}
	if o.InClusterAuth {
		return nil
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--address %q is not a loopback address: without --in-cluster-auth, whoever reaches it acts as you; listen on 127.0.0.1, or run in-cluster with --in-cluster-auth", o.Address)
	}
	return nil
}

// coalesceWindow is how long the hub lets a burst of changes settle.
const coalesceWindow = 100 * time.Millisecond

// Run serves the dashboard until ctx ends. ready, if set, is called with
// the address listened on once the informers have synced.
func Run(ctx context.Context, cfg *rest.Config, o Options, log logr.Logger, ready func(addr string)) error {
	if err := o.Validate(); err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := rampv1.AddToScheme(scheme); err != nil {
		return err
	}
	cache, err := crcache.New(cfg, cacheOptions(scheme))
	if err != nil {
		return err
	}
	writer, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := preflight(ctx, writer); err != nil {
		return err
	}
	hub := NewHub(Render(cache), 256)
	for _, k := range watched() {
		inf, err := cache.GetInformer(ctx, k.obj, crcache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("watch %s: %w", k.resource, err)
		}
		if _, err := inf.AddEventHandler(handler(hub, cache)); err != nil {
			return fmt.Errorf("watch %s: %w", k.resource, err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cacheDone := make(chan error, 1)
	go func() { cacheDone <- cache.Start(ctx) }()
	if !cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("the informers did not sync before the dashboard was stopped")
	}
	go hub.Run(ctx, coalesceWindow)
	sc := Config{Reader: cache, Writer: writer, Actions: o.EnableActions, Hub: hub, Log: log, Authn: Local{Name: o.User}}
	if o.InClusterAuth {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		reviews := &ReviewCache{TTL: reviewTTL, Now: time.Now, Limit: rate.NewLimiter(newTokenReviews, 2*newTokenReviews)}
		sc.SignIn = &SignIn{Reviewer: TokenReviewer{Reviews: cs.AuthenticationV1().TokenReviews(), Cache: reviews}, Now: time.Now}
		sc.Authn = sc.SignIn
		sc.Authz = &SubjectAccessReviewer{Reviews: cs.AuthorizationV1().SubjectAccessReviews(), TTL: 10 * time.Second, Now: time.Now}
	}
	srv, err := New(sc)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Address)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: o.guard(srv), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("dashboard listening", "address", ln.Addr().String(), "actions", o.EnableActions, "inClusterAuth", o.InClusterAuth)
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err = <-served:
	case err = <-cacheDone:
	case <-ctx.Done():
	}
	cancel() // ends the event streams, which Shutdown would wait for
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if serr := hs.Shutdown(shut); err == nil || errors.Is(err, http.ErrServerClosed) {
		err = serr
	}
	return err
}
