package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/plugin"
)

// The ConfigMap holding the plugin configuration lives in the controller's
// own namespace; the Role config/rbac generates grants get there.
// +kubebuilder:rbac:groups="",namespace=ramp-system,resources=configmaps,verbs=get

// pluginInstallTimeout bounds reading the configuration and installing
// every plugin (downloads included) at start.
const pluginInstallTimeout = 5 * time.Minute

// setupMetricPlugins reads upstream's metric plugin configuration (the
// metricProviderPlugins key of --metric-plugins-configmap, in $POD_NAMESPACE
// else argo-rollouts, as upstream), installs each binary into --plugin-dir
// and registers it as provider "plugin/<name>". No ConfigMap (or no read
// access to it) is no plugins; a bad configuration or a failed install
// stops the controller, as upstream's does.
func setupMetricPlugins(reader client.Reader, o options, log logr.Logger) error {
	if o.pluginsConfigMap == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), pluginInstallTimeout)
	defer cancel()
	key := client.ObjectKey{Namespace: firstNonEmpty(os.Getenv("POD_NAMESPACE"), provider.DefaultCredentialNamespace), Name: o.pluginsConfigMap}
	var cm corev1.ConfigMap
	if err := reader.Get(ctx, key, &cm); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			log.Info("no metric plugins", "configMap", key.String(), "reason", apierrors.ReasonForError(err))
			return nil
		}
		return fmt.Errorf("metric plugins: ConfigMap %s: %w", key, err)
	}
	items, err := plugin.ParseConfig(cm.Data)
	if err != nil {
		return fmt.Errorf("metric plugins: ConfigMap %s: %w", key, err)
	}
	httpClient := &http.Client{Timeout: pluginInstallTimeout}
	for _, it := range items {
		path, err := plugin.Install(ctx, it, o.pluginDir, httpClient)
		if err != nil {
			return fmt.Errorf("metric plugins: ConfigMap %s: %w", key, err)
		}
		plugin.Register(it.Name, path, it.Args)
		log.Info("installed metric plugin", "name", it.Name, "path", path, "sha256Checked", it.Sha256 != "")
	}
	return nil
}
