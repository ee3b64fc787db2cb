// Command cricleanup stops and removes every pod sandbox (and so every
// container) a CRI runtime knows about, the way the kubelet would: the runtime
// unmounts their files, deletes their network namespaces and calls CNI DEL.
// hack/local-down-cluster.sh runs it against the local cluster's own
// containerd after the kubelet has stopped, so nothing is left behind.
//
//	cricleanup -endpoint unix:///path/to/containerd.sock
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func main() {
	endpoint := flag.String("endpoint", "", "CRI endpoint, unix:///...")
	timeout := flag.Duration("timeout", 2*time.Minute, "overall timeout")
	flag.Parse()
	if *endpoint == "" {
		log.Fatal("-endpoint is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	conn, err := grpc.NewClient(*endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)

	ctrs, err := rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
	if err != nil {
		log.Fatalf("ListContainers: %v", err)
	}
	failed := false
	for _, c := range ctrs.Containers {
		if c.State == runtimeapi.ContainerState_CONTAINER_RUNNING {
			if _, err := rt.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: c.Id, Timeout: 5}); err != nil {
				log.Printf("StopContainer %s: %v", c.Id, err)
				failed = true
			}
		}
		if _, err := rt.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: c.Id}); err != nil {
			log.Printf("RemoveContainer %s: %v", c.Id, err)
			failed = true
		}
	}
	pods, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		log.Fatalf("ListPodSandbox: %v", err)
	}
	for _, p := range pods.Items {
		if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			log.Printf("StopPodSandbox %s: %v", p.Id, err)
			failed = true
		}
		if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			log.Printf("RemovePodSandbox %s: %v", p.Id, err)
			failed = true
		}
	}
	fmt.Printf("cricleanup: removed %d containers, %d pod sandboxes\n", len(ctrs.Containers), len(pods.Items))
	if failed {
		os.Exit(1)
	}
}
