// Command etcd runs the etcd server built from its Go module, so the local
// control plane needs nothing but the Go toolchain.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
