package controlplane

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// ensureObjects creates the kwok nodes and registers metrics-server with the
// aggregator, then waits until nodes are schedulable and metrics are served.
func (c Config) ensureObjects(ctx context.Context, cs *kubernetes.Clientset) error {
	for i := 0; i < c.Nodes; i++ {
		if err := createIfMissing(ctx, func() error {
			_, err := cs.CoreV1().Nodes().Create(ctx, fakeNode(nodeName(i)), metav1.CreateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("node: %w", err)
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-server", Namespace: "kube-system"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(c.metricsServer()), TargetPort: intstr.FromInt32(int32(c.metricsServer()))}}},
	}
	if err := createIfMissing(ctx, func() error {
		_, err := cs.CoreV1().Services("kube-system").Create(ctx, svc, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) { // the port base may have changed: keep it current
			old, gerr := cs.CoreV1().Services("kube-system").Get(ctx, svc.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			old.Spec.Ports = svc.Spec.Ports
			_, err = cs.CoreV1().Services("kube-system").Update(ctx, old, metav1.UpdateOptions{})
		}
		return err
	}); err != nil {
		return fmt.Errorf("metrics-server service: %w", err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		return err
	}
	agg, err := aggregator.NewForConfig(rc)
	if err != nil {
		return err
	}
	port := int32(c.metricsServer())
	apisvc := &apiregv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1beta1.metrics.k8s.io"},
		Spec: apiregv1.APIServiceSpec{
			Service: &apiregv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: &port},
			Group:   "metrics.k8s.io", Version: "v1beta1",
			InsecureSkipTLSVerify: true, GroupPriorityMinimum: 100, VersionPriority: 100,
		},
	}
	if err := createIfMissing(ctx, func() error {
		_, err := agg.ApiregistrationV1().APIServices().Create(ctx, apisvc, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			old, gerr := agg.ApiregistrationV1().APIServices().Get(ctx, apisvc.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			old.Spec = apisvc.Spec
			_, err = agg.ApiregistrationV1().APIServices().Update(ctx, old, metav1.UpdateOptions{})
		}
		return err
	}); err != nil {
		return fmt.Errorf("metrics APIService: %w", err)
	}
	if err := poll(ctx, 2*time.Minute, func() (bool, error) {
		for i := 0; i < c.Nodes; i++ {
			n, err := cs.CoreV1().Nodes().Get(ctx, nodeName(i), metav1.GetOptions{})
			if err != nil || !nodeReady(n) || len(n.Spec.Taints) > 0 {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return fmt.Errorf("kwok nodes did not become Ready and untainted: %w", err)
	}
	err = poll(ctx, 2*time.Minute, func() (bool, error) {
		a, err := agg.ApiregistrationV1().APIServices().Get(ctx, apisvc.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range a.Status.Conditions {
			if cond.Type == apiregv1.Available && cond.Status == apiregv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("metrics.k8s.io (metrics-server) did not become available: %w", err)
	}
	return nil
}

func fakeNode(name string) *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"},
		},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func createIfMissing(ctx context.Context, create func() error) error {
	// An update of an existing object races with its controller's status
	// writes (the aggregator's on the APIService): read it again and retry.
	if err := retry.RetryOnConflict(retry.DefaultRetry, create); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
