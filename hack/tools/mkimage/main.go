// Command mkimage writes a single-layer container image with no base image as
// a docker-archive tarball (what `docker save` writes and `ctr images import`
// reads), so the e2e cluster gets its images without any registry:
//
//	mkimage -o pause.tar -tag registry.k8s.io/pause:3.10.2 \
//	    -add _output/bin/e2e/pause:/pause -entrypoint /pause
//
// The layer holds the -add'ed files (mode 0755), the -link'ed symlinks and the
// -dir'ed directories (1777 for /tmp, 0755 otherwise), with fixed owners and
// times, so the same inputs always give the same image. Symlinks let one
// static multi-call binary (busybox) stand in for a base image's /bin.
package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	var tags, adds, links, dirs, entrypoint, cmd, env list
	out := flag.String("o", "", "output tarball")
	user := flag.String("user", "", "image user (e.g. 65535)")
	flag.Var(&tags, "tag", "image reference (repeatable)")
	flag.Var(&adds, "add", "src:dst, a file copied into the image with mode 0755 (repeatable)")
	flag.Var(&links, "link", "dst:target, a symlink dst -> target (repeatable)")
	flag.Var(&dirs, "dir", "directory created in the image (repeatable)")
	flag.Var(&entrypoint, "entrypoint", "entrypoint argument (repeatable, in order)")
	flag.Var(&cmd, "cmd", "cmd argument (repeatable, in order)")
	flag.Var(&env, "env", "K=V environment entry (repeatable)")
	flag.Parse()
	if *out == "" || len(tags) == 0 || len(adds) == 0 {
		log.Fatal("usage: mkimage -o out.tar -tag ref -add src:dst [-link dst:target] [-dir d] [-entrypoint arg]... [-cmd arg]...")
	}

	layer, err := buildLayer(adds, links, dirs)
	if err != nil {
		log.Fatal(err)
	}
	layerSum := sha256.Sum256(layer)
	diffID := "sha256:" + hex.EncodeToString(layerSum[:])

	cfg := map[string]any{
		"architecture": "amd64",
		"os":           "linux",
		"created":      epoch.Format(time.RFC3339),
		"config": map[string]any{
			"Entrypoint": nonNil(entrypoint),
			"Cmd":        nonNil(cmd),
			"Env":        append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...),
			"User":       *user,
			"WorkingDir": "/",
		},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": []string{diffID}},
		"history": []map[string]any{{"created": epoch.Format(time.RFC3339), "created_by": "probewheel hack/tools/mkimage"}},
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		log.Fatal(err)
	}
	cfgSum := sha256.Sum256(cfgJSON)
	cfgName := hex.EncodeToString(cfgSum[:]) + ".json"
	layerName := hex.EncodeToString(layerSum[:]) + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{
		"Config":   cfgName,
		"RepoTags": []string(tags),
		"Layers":   []string{layerName},
	}})
	if err != nil {
		log.Fatal(err)
	}

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	must(writeDir(tw, hex.EncodeToString(layerSum[:])+"/", 0o755))
	for _, f := range []struct {
		name string
		data []byte
	}{{layerName, layer}, {cfgName, cfgJSON}, {"manifest.json", manifest}} {
		must(writeFile(tw, f.name, f.data, 0o644))
	}
	must(tw.Close())
	must(os.WriteFile(*out+".tmp", buf.Bytes(), 0o644))
	must(os.Rename(*out+".tmp", *out))
	fmt.Printf("%s: %s (layer %s, %d bytes)\n", *out, strings.Join(tags, " "), diffID[:19], len(layer))
}

func nonNil(l list) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func buildLayer(adds, links, dirs []string) ([]byte, error) {
	type file struct {
		src    string // regular file: its content is read from here
		target string // symlink: where it points
		mode   int64
	}
	files := map[string]file{}
	allDirs := map[string]int64{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			if _, ok := allDirs[d]; !ok {
				allDirs[d] = 0o755
			}
		}
	}
	for _, d := range dirs {
		d = path.Clean("/" + d)
		mode := int64(0o755)
		if d == "/tmp" {
			mode = 0o1777
		}
		allDirs[d] = mode
		addParents(d)
	}
	for _, a := range adds {
		src, dst, ok := strings.Cut(a, ":")
		if !ok {
			return nil, fmt.Errorf("-add %q: want src:dst", a)
		}
		dst = path.Clean("/" + dst)
		files[dst] = file{src: src, mode: 0o755}
		addParents(dst)
	}
	for _, l := range links {
		dst, target, ok := strings.Cut(l, ":")
		if !ok || target == "" {
			return nil, fmt.Errorf("-link %q: want dst:target", l)
		}
		dst = path.Clean("/" + dst)
		if _, dup := files[dst]; dup {
			return nil, fmt.Errorf("-link %q: %s is already in the image", l, dst)
		}
		files[dst] = file{target: target, mode: 0o777}
		addParents(dst)
	}
	var names []string
	for d := range allDirs {
		names = append(names, d)
	}
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		rel := strings.TrimPrefix(n, "/")
		if mode, ok := allDirs[n]; ok {
			if err := writeDir(tw, rel+"/", mode); err != nil {
				return nil, err
			}
			continue
		}
		if t := files[n].target; t != "" {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: rel, Linkname: t, Mode: 0o777, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
			continue
		}
		data, err := os.ReadFile(files[n].src)
		if err != nil {
			return nil, err
		}
		if err := writeFile(tw, rel, data, files[n].mode); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeDir(tw *tar.Writer, name string, mode int64) error {
	return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, ModTime: epoch, Format: tar.FormatPAX})
}

func writeFile(tw *tar.Writer, name string, data []byte, mode int64) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
