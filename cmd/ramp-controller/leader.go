package main

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/leaderelection"
	ctrl "sigs.k8s.io/controller-runtime"
)

// leaseBaseName is the leader-election Lease of the controller without
// --instance-id; each instance id gets a Lease of its own (leaseName).
const leaseBaseName = "ramp-controller"

// leaseName is the leader-election Lease of this controller: one per
// instance id, so that shards running in one namespace do not elect a
// single leader among them.
func (o options) leaseName() string {
	if o.instanceID == "" {
		return leaseBaseName
	}
	return leaseBaseName + "-" + o.instanceID
}

// leaderElectionOptions are the manager's leader-election options the
// flags describe; the Lease is released when the controller stops.
func leaderElectionOptions(o options) ctrl.Options {
	return ctrl.Options{
		LeaderElection:                o.leaderElect,
		LeaderElectionID:              o.leaseName(),
		LeaderElectionNamespace:       o.leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
	}
}

// checkLeaderElection validates --instance-id (a label value, and part of
// the Lease name) and the leader-election timings as client-go's elector
// requires them: all positive, lease duration > renew deadline > retry
// period x leaderelection.JitterFactor.
func (o options) checkLeaderElection() error {
	if o.instanceID != "" {
		if errs := validation.IsValidLabelValue(o.instanceID); len(errs) > 0 {
			return fmt.Errorf("--instance-id %q is not a valid label value: %s", o.instanceID, strings.Join(errs, "; "))
		}
		if errs := validation.IsDNS1123Subdomain(o.leaseName()); o.leaderElect && len(errs) > 0 {
			return fmt.Errorf("--instance-id %q cannot name the leader-election Lease %q (lower-case letters, digits, '-' and '.' only): %s",
				o.instanceID, o.leaseName(), strings.Join(errs, "; "))
		}
	}
	for _, f := range []struct {
		flag string
		d    time.Duration
		ok   bool
	}{
		{"--leader-election-lease-duration", o.leaseDuration, o.leaseDuration > 0},
		{"--leader-election-renew-deadline", o.renewDeadline, o.renewDeadline > 0},
		{"--leader-election-retry-period", o.retryPeriod, o.retryPeriod > 0},
	} {
		if !f.ok {
			return fmt.Errorf("%s must be positive, not %s", f.flag, f.d)
		}
	}
	if o.leaseDuration <= o.renewDeadline {
		return fmt.Errorf("--leader-election-lease-duration (%s) must be greater than --leader-election-renew-deadline (%s)", o.leaseDuration, o.renewDeadline)
	}
	if minRenew := float64(o.retryPeriod) * leaderelection.JitterFactor; float64(o.renewDeadline) <= minRenew {
		return fmt.Errorf("--leader-election-renew-deadline (%s) must be greater than %.1f x --leader-election-retry-period (%s)",
			o.renewDeadline, leaderelection.JitterFactor, o.retryPeriod)
	}
	return nil
}
