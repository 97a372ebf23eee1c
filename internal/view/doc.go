// Package view turns Ramp objects into display models (pure, no I/O) shared
// by the CLI and any dashboard, so both show a rollout the same way.
package view
