package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// podIPAnnotation carries the pod's IP from the pod spec to the fake
// runtime's sandbox status (the kubelet passes pod annotations to
// RunPodSandbox). It must be a loopback address: the benchmark sends no probe
// outside 127.0.0.0/8, and gRPC probes, which have no host field, go to the
// pod IP.
const podIPAnnotation = "pwscale.probewheel.invalid/pod-ip"

// execProbeCmd is the command of every exec probe: ExecSync answers it from
// the recorder's state for key argv[1], after the configured latency.
const execProbeCmd = "/pwscale-probe"

// fakeRuntime is a CRI runtime + image service for one hollow kubelet. It
// replaces k8s.io/cri-api/pkg/apis/testing (kubemark's in-process fake), which
// appends every call to an ever-growing slice under one mutex and gives every
// sandbox 192.168.192.168. Here every call costs O(1) (List* O(result): an
// unfiltered list returns everything, a list filtered by pod UID, the
// kubelet's per-pod query, reads an index of that pod's objects): the
// objects are immutable snapshots replaced on change, so Lists and Statuses
// share them without cloning, and there is no call log. It runs in the
// benchmark's process, not the kubelet's, like containerd would.
type fakeRuntime struct {
	runtimeapi.UnimplementedRuntimeServiceServer
	runtimeapi.UnimplementedImageServiceServer

	rec         *recorder
	execLatency time.Duration

	mu         sync.RWMutex
	seq        atomic.Uint64
	sandboxes  store[*fakeSandbox]
	containers store[*fakeContainer]
	calls      atomic.Int64
	execs      atomic.Int64
}

type fakeSandbox struct {
	item   *runtimeapi.PodSandbox       // what ListPodSandbox returns
	status *runtimeapi.PodSandboxStatus // what PodSandboxStatus returns
}

type fakeContainer struct {
	sandbox string
	item    *runtimeapi.Container
	status  *runtimeapi.ContainerStatus
}

func newFakeRuntime(rec *recorder, execLatency time.Duration) *fakeRuntime {
	return &fakeRuntime{
		rec:         rec,
		execLatency: execLatency,
		sandboxes:   newStore(func(sb *fakeSandbox) map[string]string { return sb.item.Labels }),
		containers:  newStore(func(c *fakeContainer) map[string]string { return c.item.Labels }),
	}
}

// podUIDLabel is the label the kubelet puts on every sandbox and container
// and filters its per-pod lists by (kubelettypes.KubernetesPodUIDLabel).
const podUIDLabel = "io.kubernetes.pod.uid"

// store holds the runtime's sandboxes or its containers by ID, indexed by
// the pod UID label for the kubelet's per-pod lists; the runtime's mu guards
// it. An object's labels never change: a replacement keeps its index entry.
type store[T any] struct {
	byID   map[string]T
	ofPod  map[string]map[string]bool // pod UID → IDs
	labels func(T) map[string]string
}

func newStore[T any](labels func(T) map[string]string) store[T] {
	return store[T]{byID: map[string]T{}, ofPod: map[string]map[string]bool{}, labels: labels}
}

func (s *store[T]) get(id string) (T, bool) {
	v, ok := s.byID[id]
	return v, ok
}

// put adds v as id, or replaces id's snapshot with v.
func (s *store[T]) put(id string, v T) {
	s.byID[id] = v
	uid := s.labels(v)[podUIDLabel]
	if s.ofPod[uid] == nil {
		s.ofPod[uid] = map[string]bool{}
	}
	s.ofPod[uid][id] = true
}

func (s *store[T]) remove(id string) {
	v, ok := s.byID[id]
	if !ok {
		return
	}
	delete(s.byID, id)
	uid := s.labels(v)[podUIDLabel]
	delete(s.ofPod[uid], id)
	if len(s.ofPod[uid]) == 0 {
		delete(s.ofPod, uid)
	}
}

// list is what a filtered List returns: the object asked for by ID, else
// the pod's (a pod UID selector) or all, whose labels match sel and that
// keep accepts.
func (s *store[T]) list(id string, sel map[string]string, keep func(T) bool) []T {
	var ids []string
	switch uid, byPod := sel[podUIDLabel]; {
	case id != "":
		ids = []string{id}
	case byPod:
		ids = slices.Collect(maps.Keys(s.ofPod[uid]))
	default:
		ids = slices.Collect(maps.Keys(s.byID))
	}
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if v, ok := s.byID[id]; ok && labelsMatch(sel, s.labels(v)) && keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// serve listens on the unix socket path and serves until the returned stop is called.
func (f *fakeRuntime) serve(path string) (stop func(), err error) {
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	s := grpc.NewServer(grpc.MaxRecvMsgSize(64<<20), grpc.MaxSendMsgSize(64<<20))
	runtimeapi.RegisterRuntimeServiceServer(s, f)
	runtimeapi.RegisterImageServiceServer(s, f)
	go func() { _ = s.Serve(l) }()
	return func() { s.Stop(); _ = os.Remove(path) }, nil
}

func (f *fakeRuntime) newID() string {
	return fmt.Sprintf("%032x", f.seq.Add(1))
}

// loopbackIP parses s and requires it to be in 127.0.0.0/8.
func loopbackIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, err
	}
	if !a.Is4() || !a.IsLoopback() {
		return netip.Addr{}, fmt.Errorf("%s is not an IPv4 loopback address", s)
	}
	return a, nil
}

func (f *fakeRuntime) Version(context.Context, *runtimeapi.VersionRequest) (*runtimeapi.VersionResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.VersionResponse{Version: "0.1.0", RuntimeName: "pwscale-fakecri", RuntimeVersion: "0.1.0", RuntimeApiVersion: "v1"}, nil
}

func (f *fakeRuntime) Status(context.Context, *runtimeapi.StatusRequest) (*runtimeapi.StatusResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.StatusResponse{Status: &runtimeapi.RuntimeStatus{Conditions: []*runtimeapi.RuntimeCondition{
		{Type: runtimeapi.RuntimeReady, Status: true},
		{Type: runtimeapi.NetworkReady, Status: true},
	}}}, nil
}

func (f *fakeRuntime) RuntimeConfig(context.Context, *runtimeapi.RuntimeConfigRequest) (*runtimeapi.RuntimeConfigResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.RuntimeConfigResponse{Linux: &runtimeapi.LinuxRuntimeConfiguration{CgroupDriver: runtimeapi.CgroupDriver_CGROUPFS}}, nil
}

func (f *fakeRuntime) UpdateRuntimeConfig(context.Context, *runtimeapi.UpdateRuntimeConfigRequest) (*runtimeapi.UpdateRuntimeConfigResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.UpdateRuntimeConfigResponse{}, nil
}

func (f *fakeRuntime) RunPodSandbox(_ context.Context, req *runtimeapi.RunPodSandboxRequest) (*runtimeapi.RunPodSandboxResponse, error) {
	f.calls.Add(1)
	cfg := req.GetConfig()
	ipText := cfg.GetAnnotations()[podIPAnnotation]
	ip, err := loopbackIP(ipText)
	if err != nil {
		// Never hand out an address outside loopback (see podIPAnnotation).
		return nil, status.Errorf(codes.InvalidArgument, "pod %s/%s: annotation %s=%q: %v",
			cfg.GetMetadata().GetNamespace(), cfg.GetMetadata().GetName(), podIPAnnotation, ipText, err)
	}
	id := f.newID()
	now := time.Now().UnixNano()
	st := &runtimeapi.PodSandboxStatus{
		Id: id, Metadata: cfg.GetMetadata(), State: runtimeapi.PodSandboxState_SANDBOX_READY, CreatedAt: now,
		Network: &runtimeapi.PodSandboxNetworkStatus{Ip: ip.String()},
		// The kubelet recreates a sandbox whose network namespace mode differs from the pod's.
		Linux:          &runtimeapi.LinuxPodSandboxStatus{Namespaces: &runtimeapi.Namespace{Options: cfg.GetLinux().GetSecurityContext().GetNamespaceOptions()}},
		Labels:         cfg.GetLabels(),
		Annotations:    cfg.GetAnnotations(),
		RuntimeHandler: req.GetRuntimeHandler(),
	}
	sb := &fakeSandbox{status: st, item: sandboxItem(st)}
	f.mu.Lock()
	f.sandboxes.put(id, sb)
	f.mu.Unlock()
	return &runtimeapi.RunPodSandboxResponse{PodSandboxId: id}, nil
}

func sandboxItem(st *runtimeapi.PodSandboxStatus) *runtimeapi.PodSandbox {
	return &runtimeapi.PodSandbox{Id: st.Id, Metadata: st.Metadata, State: st.State, CreatedAt: st.CreatedAt,
		Labels: st.Labels, Annotations: st.Annotations, RuntimeHandler: st.RuntimeHandler}
}

func (f *fakeRuntime) StopPodSandbox(_ context.Context, req *runtimeapi.StopPodSandboxRequest) (*runtimeapi.StopPodSandboxResponse, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	sb, ok := f.sandboxes.get(req.GetPodSandboxId())
	if !ok {
		return &runtimeapi.StopPodSandboxResponse{}, nil // idempotent, as the CRI requires
	}
	o := sb.status
	st := &runtimeapi.PodSandboxStatus{Id: o.Id, Metadata: o.Metadata, State: runtimeapi.PodSandboxState_SANDBOX_NOTREADY,
		CreatedAt: o.CreatedAt, Network: o.Network, Linux: o.Linux, Labels: o.Labels, Annotations: o.Annotations,
		RuntimeHandler: o.RuntimeHandler}
	f.sandboxes.put(st.Id, &fakeSandbox{status: st, item: sandboxItem(st)})
	return &runtimeapi.StopPodSandboxResponse{}, nil
}

func (f *fakeRuntime) RemovePodSandbox(_ context.Context, req *runtimeapi.RemovePodSandboxRequest) (*runtimeapi.RemovePodSandboxResponse, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.sandboxes.remove(req.GetPodSandboxId())
	f.mu.Unlock()
	return &runtimeapi.RemovePodSandboxResponse{}, nil
}

func (f *fakeRuntime) PodSandboxStatus(_ context.Context, req *runtimeapi.PodSandboxStatusRequest) (*runtimeapi.PodSandboxStatusResponse, error) {
	f.calls.Add(1)
	f.mu.RLock()
	sb, ok := f.sandboxes.get(req.GetPodSandboxId())
	f.mu.RUnlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "pod sandbox %q not found", req.GetPodSandboxId())
	}
	return &runtimeapi.PodSandboxStatusResponse{Status: sb.status}, nil
}

func labelsMatch(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (f *fakeRuntime) ListPodSandbox(_ context.Context, req *runtimeapi.ListPodSandboxRequest) (*runtimeapi.ListPodSandboxResponse, error) {
	f.calls.Add(1)
	flt := req.GetFilter()
	f.mu.RLock()
	defer f.mu.RUnlock()
	sbs := f.sandboxes.list(flt.GetId(), flt.GetLabelSelector(), func(sb *fakeSandbox) bool {
		return flt.GetState() == nil || flt.GetState().GetState() == sb.item.State
	})
	out := make([]*runtimeapi.PodSandbox, len(sbs))
	for i, sb := range sbs {
		out[i] = sb.item
	}
	return &runtimeapi.ListPodSandboxResponse{Items: out}, nil
}

func (f *fakeRuntime) CreateContainer(_ context.Context, req *runtimeapi.CreateContainerRequest) (*runtimeapi.CreateContainerResponse, error) {
	f.calls.Add(1)
	cfg := req.GetConfig()
	f.mu.RLock()
	_, ok := f.sandboxes.get(req.GetPodSandboxId())
	f.mu.RUnlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "pod sandbox %q not found", req.GetPodSandboxId())
	}
	id := f.newID()
	img := cfg.GetImage().GetImage()
	st := &runtimeapi.ContainerStatus{
		Id: id, Metadata: cfg.GetMetadata(), State: runtimeapi.ContainerState_CONTAINER_CREATED,
		CreatedAt: time.Now().UnixNano(), Image: cfg.GetImage(), ImageRef: imageID(img), ImageId: imageID(img),
		Labels: cfg.GetLabels(), Annotations: cfg.GetAnnotations(), LogPath: cfg.GetLogPath(),
	}
	c := &fakeContainer{sandbox: req.GetPodSandboxId(), status: st}
	c.item = containerItem(c)
	f.mu.Lock()
	f.containers.put(id, c)
	f.mu.Unlock()
	return &runtimeapi.CreateContainerResponse{ContainerId: id}, nil
}

func containerItem(c *fakeContainer) *runtimeapi.Container {
	st := c.status
	return &runtimeapi.Container{Id: st.Id, PodSandboxId: c.sandbox, Metadata: st.Metadata, Image: st.Image,
		ImageRef: st.ImageRef, ImageId: st.ImageId, State: st.State, CreatedAt: st.CreatedAt,
		Labels: st.Labels, Annotations: st.Annotations}
}

// setContainer replaces container id's snapshot with a modified copy.
func (f *fakeRuntime) setContainer(id string, change func(*runtimeapi.ContainerStatus)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.containers.get(id)
	if !ok {
		return status.Errorf(codes.NotFound, "container %q not found", id)
	}
	// Never modify a snapshot in place: a List or Status answer may be
	// marshalling it. The fields are copied by hand (no proto.Clone): the
	// messages they point to are never modified either.
	o := c.status
	st := &runtimeapi.ContainerStatus{Id: o.Id, Metadata: o.Metadata, State: o.State, CreatedAt: o.CreatedAt,
		StartedAt: o.StartedAt, FinishedAt: o.FinishedAt, ExitCode: o.ExitCode, Image: o.Image, ImageRef: o.ImageRef,
		ImageId: o.ImageId, Reason: o.Reason, Labels: o.Labels, Annotations: o.Annotations, LogPath: o.LogPath}
	change(st)
	n := &fakeContainer{sandbox: c.sandbox, status: st}
	n.item = containerItem(n)
	f.containers.put(id, n)
	return nil
}

func (f *fakeRuntime) StartContainer(_ context.Context, req *runtimeapi.StartContainerRequest) (*runtimeapi.StartContainerResponse, error) {
	f.calls.Add(1)
	err := f.setContainer(req.GetContainerId(), func(st *runtimeapi.ContainerStatus) {
		st.State = runtimeapi.ContainerState_CONTAINER_RUNNING
		st.StartedAt = time.Now().UnixNano()
	})
	return &runtimeapi.StartContainerResponse{}, err
}

func (f *fakeRuntime) StopContainer(_ context.Context, req *runtimeapi.StopContainerRequest) (*runtimeapi.StopContainerResponse, error) {
	f.calls.Add(1)
	err := f.setContainer(req.GetContainerId(), func(st *runtimeapi.ContainerStatus) {
		if st.State != runtimeapi.ContainerState_CONTAINER_EXITED {
			st.State = runtimeapi.ContainerState_CONTAINER_EXITED
			st.FinishedAt = time.Now().UnixNano()
			st.ExitCode = 137
			st.Reason = "Error"
		}
	})
	if status.Code(err) == codes.NotFound {
		err = nil
	}
	return &runtimeapi.StopContainerResponse{}, err
}

func (f *fakeRuntime) RemoveContainer(_ context.Context, req *runtimeapi.RemoveContainerRequest) (*runtimeapi.RemoveContainerResponse, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.containers.remove(req.GetContainerId())
	f.mu.Unlock()
	return &runtimeapi.RemoveContainerResponse{}, nil
}

func (f *fakeRuntime) ListContainers(_ context.Context, req *runtimeapi.ListContainersRequest) (*runtimeapi.ListContainersResponse, error) {
	f.calls.Add(1)
	flt := req.GetFilter()
	f.mu.RLock()
	defer f.mu.RUnlock()
	cs := f.containers.list(flt.GetId(), flt.GetLabelSelector(), func(c *fakeContainer) bool {
		return (flt.GetPodSandboxId() == "" || flt.GetPodSandboxId() == c.sandbox) &&
			(flt.GetState() == nil || flt.GetState().GetState() == c.item.State)
	})
	out := make([]*runtimeapi.Container, len(cs))
	for i, c := range cs {
		out[i] = c.item
	}
	return &runtimeapi.ListContainersResponse{Containers: out}, nil
}

func (f *fakeRuntime) ContainerStatus(_ context.Context, req *runtimeapi.ContainerStatusRequest) (*runtimeapi.ContainerStatusResponse, error) {
	f.calls.Add(1)
	f.mu.RLock()
	c, ok := f.containers.get(req.GetContainerId())
	f.mu.RUnlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "container %q not found", req.GetContainerId())
	}
	return &runtimeapi.ContainerStatusResponse{Status: c.status}, nil
}

func (f *fakeRuntime) UpdateContainerResources(context.Context, *runtimeapi.UpdateContainerResourcesRequest) (*runtimeapi.UpdateContainerResourcesResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.UpdateContainerResourcesResponse{}, nil
}

func (f *fakeRuntime) UpdatePodSandboxResources(context.Context, *runtimeapi.UpdatePodSandboxResourcesRequest) (*runtimeapi.UpdatePodSandboxResourcesResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.UpdatePodSandboxResourcesResponse{}, nil
}

func (f *fakeRuntime) ReopenContainerLog(context.Context, *runtimeapi.ReopenContainerLogRequest) (*runtimeapi.ReopenContainerLogResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ReopenContainerLogResponse{}, nil
}

// ExecSync serves exec probes: cmd is [execProbeCmd, <key>]. It records the
// call for the key, waits the configured latency (or, for a check set to
// hang, until the kubelet's timeout) and exits 0 (ok) or 1 (fail).
func (f *fakeRuntime) ExecSync(ctx context.Context, req *runtimeapi.ExecSyncRequest) (*runtimeapi.ExecSyncResponse, error) {
	f.calls.Add(1)
	f.execs.Add(1)
	cmd := req.GetCmd()
	if len(cmd) != 2 || cmd[0] != execProbeCmd {
		return &runtimeapi.ExecSyncResponse{ExitCode: 127, Stderr: []byte("pwscale: unknown command\n")}, nil
	}
	f.mu.RLock()
	c, ok := f.containers.get(req.GetContainerId())
	f.mu.RUnlock()
	if !ok || c.status.State != runtimeapi.ContainerState_CONTAINER_RUNNING {
		return nil, status.Errorf(codes.NotFound, "container %q is not running", req.GetContainerId())
	}
	k, err := strconv.Atoi(cmd[1])
	if err != nil {
		return &runtimeapi.ExecSyncResponse{ExitCode: 127, Stderr: []byte("pwscale: bad key\n")}, nil
	}
	ok = f.rec.probe(k)
	if f.execLatency > 0 {
		t := time.NewTimer(f.execLatency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	if !ok {
		return &runtimeapi.ExecSyncResponse{ExitCode: 1, Stdout: []byte("fail\n")}, nil
	}
	return &runtimeapi.ExecSyncResponse{ExitCode: 0, Stdout: []byte("ok\n")}, nil
}

func (f *fakeRuntime) ContainerStats(_ context.Context, req *runtimeapi.ContainerStatsRequest) (*runtimeapi.ContainerStatsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ContainerStatsResponse{Stats: &runtimeapi.ContainerStats{Attributes: &runtimeapi.ContainerAttributes{Id: req.GetContainerId()}}}, nil
}

func (f *fakeRuntime) ListContainerStats(context.Context, *runtimeapi.ListContainerStatsRequest) (*runtimeapi.ListContainerStatsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ListContainerStatsResponse{}, nil
}

func (f *fakeRuntime) PodSandboxStats(_ context.Context, req *runtimeapi.PodSandboxStatsRequest) (*runtimeapi.PodSandboxStatsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.PodSandboxStatsResponse{Stats: &runtimeapi.PodSandboxStats{Attributes: &runtimeapi.PodSandboxAttributes{Id: req.GetPodSandboxId()}}}, nil
}

func (f *fakeRuntime) ListPodSandboxStats(context.Context, *runtimeapi.ListPodSandboxStatsRequest) (*runtimeapi.ListPodSandboxStatsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ListPodSandboxStatsResponse{}, nil
}

func (f *fakeRuntime) ListMetricDescriptors(context.Context, *runtimeapi.ListMetricDescriptorsRequest) (*runtimeapi.ListMetricDescriptorsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ListMetricDescriptorsResponse{}, nil
}

func (f *fakeRuntime) ListPodSandboxMetrics(context.Context, *runtimeapi.ListPodSandboxMetricsRequest) (*runtimeapi.ListPodSandboxMetricsResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ListPodSandboxMetricsResponse{}, nil
}

// --- image service: every image is present; nothing is ever pulled.

func imageID(ref string) string {
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(ref)))
}

func fakeImage(ref string) *runtimeapi.Image {
	return &runtimeapi.Image{Id: imageID(ref), RepoTags: []string{ref}, Size: 1 << 20, Spec: &runtimeapi.ImageSpec{Image: ref}}
}

func (f *fakeRuntime) ListImages(context.Context, *runtimeapi.ListImagesRequest) (*runtimeapi.ListImagesResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ListImagesResponse{Images: []*runtimeapi.Image{fakeImage(podImage)}}, nil
}

func (f *fakeRuntime) ImageStatus(_ context.Context, req *runtimeapi.ImageStatusRequest) (*runtimeapi.ImageStatusResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.ImageStatusResponse{Image: fakeImage(req.GetImage().GetImage())}, nil
}

func (f *fakeRuntime) PullImage(_ context.Context, req *runtimeapi.PullImageRequest) (*runtimeapi.PullImageResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.PullImageResponse{ImageRef: imageID(req.GetImage().GetImage())}, nil
}

func (f *fakeRuntime) RemoveImage(context.Context, *runtimeapi.RemoveImageRequest) (*runtimeapi.RemoveImageResponse, error) {
	f.calls.Add(1)
	return &runtimeapi.RemoveImageResponse{}, nil
}

func (f *fakeRuntime) ImageFsInfo(context.Context, *runtimeapi.ImageFsInfoRequest) (*runtimeapi.ImageFsInfoResponse, error) {
	f.calls.Add(1)
	fs := []*runtimeapi.FilesystemUsage{{
		Timestamp: time.Now().UnixNano(), FsId: &runtimeapi.FilesystemIdentifier{Mountpoint: "/"},
		UsedBytes: &runtimeapi.UInt64Value{Value: 1 << 30}, InodesUsed: &runtimeapi.UInt64Value{Value: 1000},
	}}
	return &runtimeapi.ImageFsInfoResponse{ImageFilesystems: fs, ContainerFilesystems: fs}, nil
}
