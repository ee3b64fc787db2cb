package main

import (
	"context"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// tracker watches what the control plane sees: every pod's readiness
// transitions and status writes, node status writes and lease renewals, each
// with the time the watch delivered it.
type tracker struct {
	mu       sync.Mutex
	nodeOf   map[string]int // node name -> index
	pods     map[string]*podTrack
	podUpd   []stamp // pod writes after creation (the kubelet's status updates)
	nodeUpd  []stamp // node object writes
	leaseUpd []stamp // lease renewals
}

type stamp struct {
	t    time.Time
	node int
}

type transition struct {
	t     time.Time
	ready bool
}

type podTrack struct {
	node        int
	seen        bool
	ready       bool
	firstReady  time.Time
	transitions []transition // after the first Ready
	restarts    int32
	ips         []string
}

func newTracker(p *plan) *tracker {
	t := &tracker{nodeOf: map[string]int{}, pods: map[string]*podTrack{}}
	for i, n := range p.nodeNames {
		t.nodeOf[n] = i
	}
	for i := range p.pods {
		t.pods[p.pods[i].name] = &podTrack{node: p.pods[i].node}
	}
	return t
}

func podReady(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

func (t *tracker) onPod(old, obj any) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	pt := t.pods[p.Name]
	if pt == nil {
		return
	}
	if o, ok := old.(*v1.Pod); ok && o.ResourceVersion != p.ResourceVersion {
		t.podUpd = append(t.podUpd, stamp{now, pt.node})
	}
	pt.seen = true
	r := podReady(p)
	if r && pt.firstReady.IsZero() {
		pt.firstReady = now
	} else if r != pt.ready && !pt.firstReady.IsZero() {
		pt.transitions = append(pt.transitions, transition{now, r})
	}
	pt.ready = r
	for _, cs := range p.Status.ContainerStatuses {
		pt.restarts = max(pt.restarts, cs.RestartCount)
	}
	pt.ips = pt.ips[:0]
	for _, ip := range p.Status.PodIPs {
		pt.ips = append(pt.ips, ip.IP)
	}
}

// onWrite returns an update handler that records a write of a node's
// object (the node itself, its lease: both are named after the node) in *to.
func (t *tracker) onWrite(to *[]stamp) func(old, obj any) {
	return func(old, obj any) {
		o, ok1 := old.(metav1.Object)
		n, ok2 := obj.(metav1.Object)
		if !ok1 || !ok2 || o.GetResourceVersion() == n.GetResourceVersion() {
			return
		}
		t.mu.Lock()
		if i, ok := t.nodeOf[n.GetName()]; ok {
			*to = append(*to, stamp{time.Now(), i})
		}
		t.mu.Unlock()
	}
}

// run starts the informers; they stop with ctx.
func (t *tracker) run(ctx context.Context, cs kubernetes.Interface, ns, runID string) {
	sel := labels.SelectorFromSet(labels.Set{runLabel: runID}).String()
	watch := func(lw *cache.ListWatch, obj runtime.Object, h cache.ResourceEventHandlerFuncs) {
		_, inf := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: obj, Handler: h})
		go inf.RunWithContext(ctx)
	}
	watch(cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "pods", ns,
		func(o *metav1.ListOptions) { o.LabelSelector = sel }), &v1.Pod{},
		cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { t.onPod(nil, obj) },
			UpdateFunc: t.onPod,
		})
	watch(cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "nodes", "",
		func(o *metav1.ListOptions) { o.LabelSelector = sel }), &v1.Node{},
		cache.ResourceEventHandlerFuncs{UpdateFunc: t.onWrite(&t.nodeUpd)})
	watch(cache.NewFilteredListWatchFromClient(cs.CoordinationV1().RESTClient(), "leases", v1.NamespaceNodeLease,
		func(o *metav1.ListOptions) { o.FieldSelector = fields.Everything().String() }), &coordv1.Lease{},
		cache.ResourceEventHandlerFuncs{UpdateFunc: t.onWrite(&t.leaseUpd)})
}

// readyCount is how many pods are Ready now, and when the last of them
// first turned Ready.
func (t *tracker) readyCount() (int, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	var last time.Time
	for _, p := range t.pods {
		if p.ready {
			n++
		}
		if p.firstReady.After(last) {
			last = p.firstReady
		}
	}
	return n, last
}

// restarts is the number of container restarts the API reported.
func (t *tracker) restarts() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, p := range t.pods {
		n += int(p.restarts)
	}
	return n
}

// countIn counts the stamps of each node in [from, to).
func countIn(stamps []stamp, nodes int, from, to time.Time) []int {
	c := make([]int, nodes)
	for _, s := range stamps {
		if !s.t.Before(from) && s.t.Before(to) {
			c[s.node]++
		}
	}
	return c
}

// nonLoopbackPodIPs lists pod IPs the API reports outside 127.0.0.0/8.
func (t *tracker) nonLoopbackPodIPs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var bad []string
	for name, p := range t.pods {
		for _, ip := range p.ips {
			if _, err := loopbackIP(ip); err != nil {
				bad = append(bad, name+" "+ip)
			}
		}
		if len(p.ips) == 0 && p.seen && p.ready {
			bad = append(bad, name+" (Ready without a pod IP)")
		}
	}
	return bad
}
