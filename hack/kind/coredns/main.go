//go:build ignore

// Command coredns is CoreDNS (the version kubeadm names, required by the
// wrapper module hack/kind-build-tools.sh builds this in) with only the
// plugins kubeadm's Corefile uses, plus log: what `coredns` itself is
// with the other 50-odd plugins (cloud DNS providers, etcd, dnstap, ...)
// left out, which takes a fraction of the time to build cold. The way
// CoreDNS documents for a custom build: import the plugins, keep their
// directives in CoreDNS's own order, call coremain.Run.
//
// The ignore build tag keeps this file out of probewheel's own module; the
// build script drops that line when it copies the file into the wrapper module.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

// plugins are the directives of the imported plugins (metrics registers "prometheus").
var plugins = map[string]bool{
	"cache": true, "errors": true, "forward": true, "health": true, "kubernetes": true,
	"loadbalance": true, "log": true, "loop": true, "prometheus": true, "ready": true, "reload": true,
}

func init() {
	// CoreDNS runs plugins in the order of its generated directive list.
	var kept []string
	for _, d := range dnsserver.Directives {
		if plugins[d] {
			kept = append(kept, d)
		}
	}
	dnsserver.Directives = kept
}

func main() { coremain.Run() }
