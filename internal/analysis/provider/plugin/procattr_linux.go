package plugin

import "syscall"

// sysProcAttr makes the kernel kill a plugin when the controller dies,
// however it dies (SIGKILL, OOM, a second SIGTERM's os.Exit): StopAll only
// runs on an orderly exit, and a go-plugin server does not notice that its
// host is gone. (The signal follows the OS thread that started the
// plugin; Go's runtime keeps its threads for the process's life.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
