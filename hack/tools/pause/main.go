// Command pause is a stand-in for registry.k8s.io/pause, built locally so the
// e2e cluster needs no registry: it sleeps until SIGINT or SIGTERM and, as PID
// 1 of a pod that shares its PID namespace, reaps orphaned children.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if os.Getpid() != 1 {
		os.Stderr.WriteString("Warning: pause should be the first process\n")
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Stderr.WriteString("Shutting down, got signal: " + sig.String() + "\n")
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
