// Command probetarget is the container the e2e tests probe. One static binary
// (no base image) serves every probe handler the kubelet has, each backed by a
// named check whose state can be switched at run time:
//
//	HTTP   GET :8080/check/<name>            200 when <name> is ok, 503 when failing
//	TCP    :8081                             listening while check "tcp" is ok, closed otherwise
//	gRPC   :8082 grpc.health.v1.Health/Check service <name> ("" means "grpc")
//	exec   probetarget check <name>          exit 0 when ok, 1 when failing
//
// A check's state is the content of /state/<name>: "ok" (or no file), "fail",
// or "hang" (HTTP and gRPC hold the request until the client gives up; exec
// sleeps for an hour). It is switched by
//
//	POST :9090/set?name=<name>&state=<ok|fail|hang>    (admin port, never probed)
//	probetarget set <name> <state>                     (kubectl exec)
//
// and is initially set with --fail=<name>,<name>... (or --hang=...). The
// HTTP, TCP and gRPC checks are served by bench/target, the probe target of
// every level of probewheel's measurements. GET
// :9090/stats returns how many times each check was asked, as JSON; GET
// :9090/times?key=<handler>/<name> (e.g. http/readiness, exec/liveness) the
// Unix-nanosecond times of its last 256 calls, oldest first, so a test can see
// when the kubelet probed; GET :9090/healthz answers 200 (the tests wait on it).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/probewheel/probewheel/bench/target"
)

const (
	stateOK   = "ok"
	stateFail = "fail"
	stateHang = "hang"
)

var (
	stateDir = envOr("PROBETARGET_STATE_DIR", "/state")
	validNme = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "check":
			os.Exit(cmdCheck(os.Args[2:]))
		case "set":
			os.Exit(cmdSet(os.Args[2:]))
		case "serve":
			os.Args = append(os.Args[:1], os.Args[2:]...)
		}
	}
	serve()
}

func statePath(name string) string { return filepath.Join(stateDir, name) }

func getState(name string) string {
	b, err := os.ReadFile(statePath(name))
	if err != nil {
		return stateOK
	}
	switch s := strings.TrimSpace(string(b)); s {
	case stateFail, stateHang:
		return s
	default:
		return stateOK
	}
}

func setState(name, state string) error {
	if !validNme.MatchString(name) {
		return fmt.Errorf("invalid check name %q", name)
	}
	switch state {
	case stateOK, stateFail, stateHang:
	default:
		return fmt.Errorf("invalid state %q (want ok, fail or hang)", state)
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	tmp := statePath("." + name + ".tmp")
	if err := os.WriteFile(tmp, []byte(state+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(name))
}

// cmdCheck is the exec handler: it records the call and answers with its exit code.
func cmdCheck(args []string) int {
	if len(args) != 1 || !validNme.MatchString(args[0]) {
		fmt.Fprintln(os.Stderr, "usage: probetarget check <name>")
		return 2
	}
	name := args[0]
	if f, err := os.OpenFile(statePath("."+name+".execlog"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		fmt.Fprintln(f, time.Now().UnixNano())
		f.Close()
	}
	switch getState(name) {
	case stateFail:
		fmt.Printf("check %s: failing\n", name)
		return 1
	case stateHang:
		time.Sleep(time.Hour)
		return 1
	default:
		fmt.Printf("check %s: ok\n", name)
		return 0
	}
}

func cmdSet(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: probetarget set <name> <ok|fail|hang>")
		return 2
	}
	if err := setState(args[0], args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// maxTimes bounds the call times kept per check: a 1 s probe fills it in
// four minutes, longer than any test looks back.
const maxTimes = 256

type counters struct {
	mu    sync.Mutex
	n     map[string]int
	times map[string][]int64 // Unix ns, oldest first, at most maxTimes
}

func (c *counters) inc(kind, name string) {
	now := time.Now().UnixNano()
	key := kind + "/" + name
	c.mu.Lock()
	c.n[key]++
	ts := append(c.times[key], now)
	if len(ts) > maxTimes {
		ts = append(ts[:0], ts[len(ts)-maxTimes:]...)
	}
	c.times[key] = ts
	c.mu.Unlock()
}

func (c *counters) timesOf(key string) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64{}, c.times[key]...)
}

func (c *counters) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	// Exec checks run in separate processes; they leave one line per call.
	files, _ := filepath.Glob(statePath(".*.execlog"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "."), ".execlog")
		out["exec/"+name] = strings.Count(string(b), "\n")
	}
	return out
}

// execTimes are the last maxTimes calls of an exec check, from the lines its
// processes left (Unix ns, oldest first).
func execTimes(name string) []int64 {
	b, err := os.ReadFile(statePath("." + name + ".execlog"))
	if err != nil {
		return []int64{}
	}
	lines := strings.Fields(string(b))
	lines = lines[max(0, len(lines)-maxTimes):]
	times := make([]int64, 0, len(lines))
	for _, l := range lines {
		if ns, err := strconv.ParseInt(l, 10, 64); err == nil {
			times = append(times, ns)
		}
	}
	return times
}

func serve() {
	var (
		httpAddr  = flag.String("http", ":8080", "HTTP check address")
		tcpAddr   = flag.String("tcp", ":8081", "TCP check address (listening while check \"tcp\" is ok)")
		grpcAddr  = flag.String("grpc", ":8082", "gRPC health address")
		adminAddr = flag.String("admin", ":9090", "admin address")
		fail      = flag.String("fail", "", "comma-separated checks that start failing")
		hang      = flag.String("hang", "", "comma-separated checks that start hanging")
	)
	flag.Parse()
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		log.Fatal(err)
	}
	for state, list := range map[string]string{stateFail: *fail, stateHang: *hang} {
		for _, name := range strings.Split(list, ",") {
			if name = strings.TrimSpace(name); name != "" {
				if err := setState(name, state); err != nil {
					log.Fatal(err)
				}
			}
		}
	}
	hostname, _ := os.Hostname()
	log.Printf("probetarget on %s: http %s tcp %s grpc %s admin %s", hostname, *httpAddr, *tcpAddr, *grpcAddr, *adminAddr)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cnt := &counters{n: map[string]int{}, times: map[string][]int64{}}

	// Every check port is bound before any is served: a kubelet that finds one port
	// open must find the others open too (a liveness probe with failureThreshold 1
	// run at the container's start would otherwise restart a healthy container).
	httpLn := mustListen(*httpAddr)
	gl := mustListen(*grpcAddr)
	var tcpLn net.Listener
	if getState("tcp") == stateOK {
		tcpLn = mustListen(*tcpAddr)
	}

	// HTTP, gRPC and TCP checks.
	srv := &target.Server{Checks: checks{cnt}}
	go func() {
		if err := srv.ServeHTTP(httpLn); err != nil {
			log.Fatal(err)
		}
	}()

	// Admin.
	amux := http.NewServeMux()
	amux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	amux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		name, state := r.URL.Query().Get("name"), r.URL.Query().Get("state")
		if err := setState(name, state); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		log.Printf("check %s -> %s", name, state)
		fmt.Fprintf(w, "check %s: %s\n", name, state)
	})
	amux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(cnt.snapshot())
	})
	amux.HandleFunc("/times", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		key := r.URL.Query().Get("key")
		times := cnt.timesOf(key)
		if name, ok := strings.CutPrefix(key, "exec/"); ok && validNme.MatchString(name) {
			times = execTimes(name)
		}
		_ = json.NewEncoder(w).Encode(times)
	})
	go serveHTTP(mustListen(*adminAddr), amux)

	// gRPC health.
	go func() { _ = srv.ServeGRPC(srv.GRPC(), gl) }()

	// TCP: the listener exists only while check "tcp" is ok.
	go tcpLoop(ctx, *tcpAddr, srv, tcpLn)

	<-ctx.Done()
	log.Printf("terminating")
	srv.Close()
}

// checks serves the HTTP path "check/<name>", the gRPC service <name> ("" is
// "grpc") and the TCP port (check "tcp") from the checks' state files, and
// counts each call.
type checks struct{ cnt *counters }

func (c checks) Probe(p target.Probe) target.Answer {
	var name string
	switch p.Handler {
	case target.HTTP:
		n, ok := strings.CutPrefix(string(p.Name), "check/")
		if !ok {
			return target.Answer{State: target.NotFound}
		}
		name = n
	case target.GRPC:
		if name = string(p.Name); name == "" {
			name = "grpc"
		}
	case target.TCP:
		name = "tcp"
	}
	if !validNme.MatchString(name) {
		return target.Answer{State: target.NotFound}
	}
	c.cnt.inc(p.Handler.String(), name)
	switch getState(name) {
	case stateFail:
		return target.Answer{State: target.Fail}
	case stateHang:
		return target.Answer{State: target.Hang}
	}
	return target.Answer{State: target.OK}
}

func mustListen(addr string) net.Listener {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	return l
}

func serveHTTP(l net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// tcpLoop keeps addr listening while check "tcp" is ok, starting from ln (nil: closed).
func tcpLoop(ctx context.Context, addr string, srv *target.Server, ln net.Listener) {
	accept := func(l net.Listener) { _ = srv.ServeTCP(l, 0) }
	if ln != nil {
		go accept(ln)
	}
	defer func() {
		if ln != nil {
			ln.Close()
		}
	}()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		want := getState("tcp") == stateOK
		switch {
		case want && ln == nil:
			l, err := net.Listen("tcp", addr)
			if err != nil {
				log.Printf("tcp listen %s: %v", addr, err)
				break
			}
			ln = l
			log.Printf("tcp %s: listening", addr)
			go accept(l)
		case !want && ln != nil:
			ln.Close()
			ln = nil
			log.Printf("tcp %s: closed", addr)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
