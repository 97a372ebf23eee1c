//go:build !linux

package plugin

import "syscall"

// sysProcAttr is nothing outside Linux, which alone has a parent-death
// signal: there a plugin outlives a controller killed without StopAll.
func sysProcAttr() *syscall.SysProcAttr { return nil }
