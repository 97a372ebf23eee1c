package view

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Age is the time from since to now, short as kubectl prints it: "5s",
// "3m", "2h", "4d". A zero since gives "".
func Age(since, now time.Time) string {
	if since.IsZero() {
		return ""
	}
	return short(now.Sub(since))
}

func short(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

func pod(p *corev1.Pod, now time.Time) Pod {
	var ready, restarts int32
	for _, c := range p.Status.ContainerStatuses {
		if c.Ready {
			ready++
		}
		restarts += c.RestartCount
	}
	return Pod{
		Name:     p.Name,
		Status:   podStatus(p),
		Ready:    fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)),
		Restarts: restarts,
		Age:      Age(p.CreationTimestamp.Time, now),
	}
}

// podStatus is the reason kubectl shows in its STATUS column, with a symbol:
// ✔ running and ready or completed, ✖ failing, ◌ on its way.
func podStatus(p *corev1.Pod) Status {
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	initializing := false
	for _, c := range p.Status.InitContainerStatuses {
		if c.State.Terminated != nil && c.State.Terminated.ExitCode == 0 {
			continue
		}
		switch {
		case c.State.Terminated != nil:
			reason, initializing = "Init:Error", true
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			reason, initializing = "Init:"+c.State.Waiting.Reason, true
		default:
			reason, initializing = "Init:Running", true
		}
		break
	}
	if !initializing {
		for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := p.Status.ContainerStatuses[i]
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				reason = c.State.Waiting.Reason
			case c.State.Terminated != nil && c.State.Terminated.Reason != "":
				reason = c.State.Terminated.Reason
			case c.State.Terminated != nil:
				reason = fmt.Sprintf("ExitCode:%d", c.State.Terminated.ExitCode)
			}
		}
	}
	if p.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	if reason == "" {
		reason = string(corev1.PodPending)
	}
	return Status{Name: reason, Icon: podIcon(reason, isReady(p))}
}

func podIcon(reason string, ready bool) string {
	switch reason {
	case "Running":
		if ready {
			return IconOK
		}
		return IconProgressing
	case "Succeeded", "Completed":
		return IconOK
	case "Pending", "ContainerCreating", "PodInitializing", "Terminating", "Init:Running":
		return IconProgressing
	case "Unknown":
		return IconUnknown
	}
	return IconBad
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
