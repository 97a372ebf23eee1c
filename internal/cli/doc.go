// Package cli is Ramp's command-line interface (`ramp`, also installed as the
// kubectl plugin `kubectl-ramp`): one file per verb. Commands that change a
// Rollout send exactly the patches the Argo Rollouts kubectl plugin sends, so
// both CLIs, Argo CD actions and the controller interoperate. Rendering goes
// through internal/view (pure display models shared with any dashboard);
// plan and lint work offline from files.
package cli
