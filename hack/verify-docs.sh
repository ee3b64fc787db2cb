#!/usr/bin/env bash
# Checks that every command README.md, docs/*.md, e2e/README.md, CHANGELOG.md and the series' READMEs show works
# (`make verify-docs`, part of `make test`; a few seconds, builds and starts nothing):
#
#  (a) every `make <target>` in a code block or inline code names a target of this Makefile
#      (the database of `make -pq`, so recipes never run);
#  (b) every hack/... and scripts/... path named anywhere in the text exists (a glob must match
#      something); a shell script (a .sh file with a #! line) and anything shown as a command
#      must be executable; every bench/..., e2e/..., series/... and patches/... path named
#      outside CHANGELOG.md exists too (the changelog may name what is gone; a path that
#      continues with a <placeholder> or {a,b} is checked up to its last /);
#  (c) the cheap commands run: `make -n <targets> [VAR=value...]` exactly as shown (unless a
#      target's recipe, or a prerequisite's, calls $(MAKE): make runs such lines even under -n),
#      `bash -n` of every named shell script, `--help` of every named script that handles it,
#      and the read-only commands listed in SAFE_COMMANDS below when the docs show them;
#      every tracked shell script's sourced files, by its own dirname, exist;
#  (d) every relative markdown link and image resolves to a file or directory, and its #anchor
#      (if any) to a heading of the target page (GitHub's slugs);
#  (e) every alert of scripts/prometheus/rules.yaml has a runbook_url, the project's address of
#      a page here with the #anchor of one of its headings;
#  (f) every prober_... metric name the pages (CHANGELOG.md apart) and the rules give is one
#      pkg/kubelet/prober registers (a histogram's _bucket, _sum and _count too; `prober_exec_*`
#      a prefix of one);
#  (g) every numbered patch file name given on its own (CHANGELOG.md apart), or its start, is a
#      file of a series in patches/.
#
# Usage: hack/verify-docs.sh [-v] [FILE.md ...]   (default: README.md docs/*.md e2e/README.md CHANGELOG.md patches/*/README.md)
#   -v  list every check, not only the failures
#
# A make command after `cd <dir>` where <dir> is not a directory of this repository (in the same
# code block or inline code) is someone else's make (e.g. kubernetes' `make WHAT=cmd/kubelet`)
# and is skipped. Failures name the file and line: README.md:17: ...; the exit status is 1.
set -euo pipefail
cd "$(dirname "$0")/.."

# Commands that only print something; run verbatim when a page shows them.
SAFE_COMMANDS=(
  "hack/kube-version.sh"
  "hack/kind-up.sh --print-kubeconfig"
)

verbose=0
files=()
for a in "$@"; do
  case ${a} in
    -v) verbose=1 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    -*) echo "usage: $0 [-v] [FILE.md ...]" >&2 && exit 2 ;;
    *) files+=("${a}") ;;
  esac
done
((${#files[@]})) || files=(README.md docs/*.md e2e/README.md CHANGELOG.md patches/*/README.md)

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

fails=0
fail() { # file:line: message
  echo "verify-docs: $*" >&2
  fails=$((fails + 1))
}
note() { if ((verbose)); then echo "verify-docs: $*"; fi; }

# ---------------------------------------------------------------- markdown → records
# One record per line, tab-separated: kind, file, line, text.
#   X  a simple command (split at && || ; | ` $( ), a leading ( dropped): XS from a line of a
#      shell code block (```sh/bash/shell/console or no language; console: the `$ ` lines
#      only; comments stripped), XC from an inline code span (which may span lines)
#   B  a code block or inline code span starts (a `cd` elsewhere ends with it)
#   P  a hack/... or scripts/... path named anywhere (not after a /: URLs, other trees)
#   Q  a bench/..., e2e/..., series/... or patches/... path, likewise
#   L  a link target outside code        H  a heading's GitHub anchor
extract() {
  awk '
  function emit(kind, ln, text) { gsub(/\t/, " ", text); print kind "\t" FILENAME "\t" ln "\t" text }
  function slug(h,   s) {
    s = tolower(h)
    gsub(/[^a-z0-9 _-]/, "", s)   # GitHub drops punctuation (ASCII approximation)
    gsub(/ /, "-", s)
    if (s in seen) { seen[s]++; s = s "-" seen[s] } else seen[s] = 0
    return s
  }
  function run(s, p,   n) { n = 0; while (substr(s, p + n, 1) == "`") n++; return n }
  function paths(ln, text,   p, c, k) {
    text = " " text
    while (match(text, /[^A-Za-z0-9_.\/-](\.\/)?(hack|scripts|bench|e2e|series|patches)\/[A-Za-z0-9_.*\/-]*/)) {
      p = substr(text, RSTART + 1, RLENGTH - 1); text = substr(text, RSTART + RLENGTH)
      sub(/^\.\//, "", p)
      k = (p ~ /^(hack|scripts)\//) ? "P" : "Q"
      # A template ("bench/results/<UTC date>-default", "kubemark-{a,b}"): up to its last /.
      if (k == "Q" && substr(text, 1, 1) ~ /[<{$]/) sub(/[^\/]*$/, "", p)
      sub(/[.,:-]+$/, "", p); sub(/\/+$/, "", p)
      emit(k, ln, p)
    }
  }
  function links(ln, text,   l) {
    while (match(text, /\]\([^)]*\)/)) {
      l = substr(text, RSTART + 2, RLENGTH - 3); text = substr(text, RSTART + RLENGTH)
      sub(/^</, "", l); sub(/[ >].*$/, "", l)
      emit("L", ln, l)
    }
  }
  function commands(kind, ln, text,   n, i, piece) {
    if (kind == "XC") emit("B", ln, "span")
    gsub(/\$\(|&&|\|\||[;|`)]/, "\n", text)
    n = split(text, piece, "\n")
    for (i = 1; i <= n; i++) { sub(/^[ (]*/, "", piece[i]); if (piece[i] != "") emit(kind, ln, piece[i]) }
  }
  function span(ln, text) { commands("XC", ln, text); paths(ln, text) }
  FNR == 1 { fence = ""; inspan = 0; split("", seen) }
  {
    line = $0
    if (fence != "") {
      if (line ~ "^ *" fence "+ *$") { fence = ""; next }
      paths(FNR, line)
      if (shell) {
        if (lang == "console") { if (line !~ /^ *\$ /) next; sub(/^ *\$ /, "", line) }
        sub(/(^| )#.*$/, "", line)
        commands("XS", FNR, line)
      }
      next
    }
    if (match(line, /^ *(```+|~~~+)/)) {
      inspan = 0
      fence = substr(line, RSTART, RLENGTH); sub(/^ */, "", fence); fence = substr(fence, 1, 3)
      lang = substr(line, RSTART + RLENGTH); sub(/^ */, "", lang); sub(/[ {].*$/, "", lang)
      shell = (lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console")
      emit("B", FNR, "block " lang)
      next
    }
    if (line ~ /^[ \t]*$/) { inspan = 0; next }
    if (!inspan && match(line, /^#+ /)) {
      h = substr(line, RLENGTH + 1); gsub(/`/, "", h); sub(/ +#* *$/, "", h)
      emit("H", FNR, slug(h))
    }
    if (!inspan && match(line, /^ *\[[^]]+\]: *[^ ]+/)) {
      l = line; sub(/^ *\[[^]]+\]: */, "", l); sub(/ .*$/, "", l); emit("L", FNR, l)
    }
    text = ""; p = 1; L = length(line)
    while (p <= L) {
      if (inspan) {
        q = p; found = 0
        while (q <= L) {
          c = index(substr(line, q), "`"); if (!c) break
          q += c - 1; r = run(line, q)
          if (r == spank) { found = 1; break }
          q += r
        }
        if (!found) { spantext = spantext " " substr(line, p); p = L + 1; break }
        spantext = spantext (p > 1 ? "" : " ") substr(line, p, q - p)
        span(spanline, spantext); inspan = 0; p = q + spank
        continue
      }
      c = index(substr(line, p), "`")
      if (!c) { text = text substr(line, p); break }
      text = text substr(line, p, c - 1) " "
      p += c - 1; spank = run(line, p); p += spank
      inspan = 1; spantext = ""; spanline = FNR
    }
    if (text ~ /[^ ]/) { paths(FNR, text); links(FNR, text) }
  }
  ' "$@"
}
for f in "${files[@]}"; do
  [[ -f ${f} ]] || fail "${f}: no such file"
done
extract "${files[@]}" >"${tmp}/records"

# ---------------------------------------------------------------- the Makefile's targets
# From make's database (-p) in question mode (-q) with a goal that does nothing: recipes never
# run. targets: every target; recursive: targets whose recipe, or a prerequisite's, has $(MAKE).
make -npq .DEFAULT 2>/dev/null >"${tmp}/db" || true
awk '
  /^# Not a target:/ { skip = 1; next }
  /^# (Files|Variables|Implicit Rules|Pattern-specific|Directories|Finished)/ { files = ($2 == "Files"); next }
  !files { next }
  /^[^#\t %.][^\t=]*:/ && !/^[^:]*:[:]?=/ {
    if (skip) { skip = 0; cur = ""; next }
    t = $0; sub(/:.*/, "", t); cur = t; targets[t] = 1
    pre = $0; sub(/^[^:]*::?/, "", pre); sub(/\|.*/, "", pre); deps[t] = pre
    next
  }
  /^\t/ && cur != "" && ($0 ~ /\$\(MAKE\)/ || $0 ~ /\$\{MAKE\}/) { rec[cur] = 1 }
  /^$/ { cur = ""; skip = 0 }
  END {
    do { changed = 0
      for (t in targets) if (!(t in rec)) {
        n = split(deps[t], d, " ")
        for (i = 1; i <= n; i++) if (d[i] in rec) { rec[t] = 1; changed = 1; break }
      }
    } while (changed)
    for (t in targets) print (t in rec ? "R" : "T"), t
  }
' "${tmp}/db" >"${tmp}/targets"
if ! grep -q '^[TR] test$' "${tmp}/targets"; then
  fail "Makefile: could not read the targets from 'make -npq' (no 'test' target found)"
fi
declare -A target=()
while read -r k t; do target[${t}]=${k}; done <"${tmp}/targets"

# ---------------------------------------------------------------- commands in code
declare -A dry_at=() invoked=() named=() named_at=() run_at=()
ncmd=0
nq=0
foreign=0
while IFS=$'\t' read -r kind file ln text; do
  case ${kind} in
    B) foreign=0 && continue ;;
    P | Q)
      if [[ ${kind} == P ]]; then
        named[${text}]=1
        named_at[${text}]=${named_at[${text}]:-${file}:${ln}}
      else
        [[ ${file} == CHANGELOG.md ]] && continue
        nq=$((nq + 1))
      fi
      if [[ ${text} == *'*'* ]]; then
        compgen -G "${text}" >/dev/null || fail "${file}:${ln}: ${text}: matches no file"
      elif [[ ! -e ${text} ]]; then
        fail "${file}:${ln}: ${text}: no such file or directory"
      fi
      continue
      ;;
    XS | XC) ;;
    *) continue ;;
  esac
  read -r -a w <<<"${text}"
  i=0
  while ((i < ${#w[@]})) && [[ ${w[i]} =~ ^[A-Za-z_][A-Za-z0-9_]*= || ${w[i]} =~ ^(sudo|env|then|do|if|else|time|exec|!)$ ]]; do
    i=$((i + 1))
  done
  ((i < ${#w[@]})) || continue
  cmd=${w[i]#./}
  args=("${w[@]:i+1}")
  if [[ ${cmd} == cd ]]; then
    d=${args[0]:-}
    [[ -z ${d} || -d ${d} || ${d} == [\$~-]* ]] || foreign=1
    continue
  fi
  if [[ ${cmd} == hack/* || ${cmd} == scripts/* ]]; then
    # In a code block it is a command; in inline code only with arguments (else it is a name).
    [[ ${kind} == XS || ${#args[@]} -gt 0 ]] && invoked[${cmd}]=${invoked[${cmd}]:-${file}:${ln}}
    line="${cmd}${args[*]:+ ${args[*]}}"
    for s in "${SAFE_COMMANDS[@]}"; do
      [[ ${line} == "${s}" ]] && run_at[${s}]=${run_at[${s}]:-${file}:${ln}}
    done
    continue
  fi
  [[ ${cmd} == make ]] || continue
  ncmd=$((ncmd + 1))
  if ((foreign)); then
    note "${file}:${ln}: skipped (after a cd elsewhere): make ${args[*]}"
    continue
  fi
  tg=() vars=() own=1
  for a in "${args[@]}"; do
    a=${a//\"/}
    a=${a//\'/}
    case ${a} in
      -C | -f | --directory* | --file* | --makefile*) own=0 ;;
      -*) ;;
      *=*) vars+=("${a}") ;;
      *'<'* | *'>'* | *'['* | *'{'* | *'$'* | *'*'* | *'…'* | '') ;;
      *) tg+=("${a}") ;;
    esac
  done
  if ((own == 0 || ${#tg[@]} == 0)); then continue; fi
  rec=0
  for t in "${tg[@]}"; do
    if [[ -z ${target[${t}]:-} ]]; then
      fail "${file}:${ln}: \`make ${args[*]}\`: the Makefile has no target '${t}'"
      rec=2
    elif [[ ${target[${t}]} == R ]]; then
      ((rec)) || rec=1
    fi
  done
  ((rec == 2)) && continue
  if ((rec)); then
    note "${file}:${ln}: make ${tg[*]}: target exists (not dry-run: its recipe runs \$(MAKE))"
    continue
  fi
  for t in "${tg[@]}"; do
    key="${vars[*]:-}|${t}"  # "VAR=x VAR2=y|target"
    dry_at[${key}]=${dry_at[${key}]:-${file}:${ln}}
  done
done <"${tmp}/records"

# (c) make -n with the variables shown: one run per set of variables, all its targets at once;
# if that fails, target by target, to name the page and line.
declare -A byvars=()
for key in "${!dry_at[@]}"; do byvars["v${key%%|*}"]+=" ${key#*|}"; done
# shellcheck disable=SC2069 # on purpose: make's errors to the caller, the dry-run listing away
dryrun() { timeout 60 make -n "$@" 2>&1 >/dev/null; }
for vk in "${!byvars[@]}"; do
  v=${vk#v}
  read -r -a vw <<<"${v}"
  read -r -a tw <<<"${byvars[${vk}]}"
  if dryrun "${tw[@]}" "${vw[@]}" >/dev/null; then
    note "make -n ${tw[*]} ${v}: ok"
    continue
  fi
  for t in "${tw[@]}"; do
    out=$(dryrun "${t}" "${vw[@]}") ||
      fail "${dry_at["${v}|${t}"]}: \`make ${t}${v:+ ${v}}\`: make -n fails: $(printf '%s' "${out}" | tail -n 3 | tr '\n' ' ')"
  done
done

# ---------------------------------------------------------------- scripts
nrun=0
declare -A scripts=()
for p in "${!named[@]}" "${!invoked[@]}"; do
  [[ ${p} == *'*'* || ! -f ${p} ]] || scripts[${p}]=1
done
for p in "${!scripts[@]}"; do
  at=${invoked[${p}]:-${named_at[${p}]}}
  shebang=0
  [[ $(head -c 2 "${p}") == '#!' ]] && shebang=1
  # (b) executable: what is shown as a command, and every shell script.
  if [[ -n ${invoked[${p}]:-} && ! -x ${p} ]]; then
    fail "${at}: ${p} is shown as a command but is not executable"
  elif [[ ${p} == *.sh && ${shebang} == 1 && ! -x ${p} ]]; then
    fail "${at}: ${p} is a shell script but is not executable"
  fi
  # (c) syntax, and --help where the script handles it (a case arm for --help).
  if [[ ${p} == *.sh && ${shebang} == 1 ]]; then
    nrun=$((nrun + 1))
    bash -n "${p}" 2>"${tmp}/err" || fail "${at}: ${p}: bash -n: $(head -n 2 "${tmp}/err" | tr '\n' ' ')"
  fi
  if [[ -x ${p} ]] && grep -qE '(^|[(| ])--help *[|)]' "${p}"; then
    nrun=$((nrun + 1))
    if ! out=$(timeout 30 "./${p}" --help 2>&1) || [[ -z ${out} ]]; then
      fail "${at}: ${p} --help fails or prints nothing: $(printf '%s' "${out}" | tail -n 2 | tr '\n' ' ')"
    else
      note "${at}: ${p} --help: ok"
    fi
  fi
done
for s in "${!run_at[@]}"; do
  nrun=$((nrun + 1))
  read -r -a sw <<<"${s}"
  if ! out=$(timeout 30 "./${sw[0]}" "${sw[@]:1}" 2>&1) || [[ -z ${out} ]]; then
    fail "${run_at[${s}]}: \`${s}\` fails or prints nothing: $(printf '%s' "${out}" | tail -n 2 | tr '\n' ' ')"
  else
    note "${run_at[${s}]}: ${s}: ${out}"
  fi
done

# ---------------------------------------------------------------- sourced files
# (c) every tracked shell script's `source "$(dirname "${BASH_SOURCE[0]}")/<path>"` (or
# "$0") resolves: a script moved to another folder fails here, not in the middle of a run.
nsrc=0
while IFS= read -r sh; do
  while IFS= read -r rel; do
    nsrc=$((nsrc + 1))
    [[ -f $(dirname "${sh}")/${rel} ]] || fail "${sh}: sources ${rel}, which is not at $(dirname "${sh}")/${rel}"
  done < <(sed -nE 's/^ *(source|\.) +"\$\(dirname +"\$(\{BASH_SOURCE\[0\]\}|0)"\)\/([^"]+)".*/\3/p' "${sh}")
done < <(git ls-files '*.sh' 2>/dev/null || find hack bench scripts e2e -name '*.sh')

# ---------------------------------------------------------------- links
# (d) [text](target), ![alt](target) and [ref]: target outside code.
declare -A anchors_of=()
nlinks=0
while IFS=$'\t' read -r kind file ln l; do
  [[ ${kind} == L ]] || continue
  case ${l} in http://* | https://* | mailto:* | ftp://* | '') continue ;; esac
  nlinks=$((nlinks + 1))
  path=${l%%#*}
  anchor=
  [[ ${l} == *'#'* ]] && anchor=${l#*#}
  dest=${file}
  if [[ -n ${path} ]]; then
    dest=$(dirname "${file}")/${path}
    dest=${dest#./}
    if [[ ! -e ${dest} ]]; then
      fail "${file}:${ln}: link (${l}): ${dest} does not exist"
      continue
    fi
  fi
  if [[ -n ${anchor} && -f ${dest} && ${dest} == *.md ]]; then
    [[ -n ${anchors_of[${dest}]+x} ]] || anchors_of[${dest}]=$'\n'$(extract "${dest}" | awk -F'\t' '$1 == "H" {print $4}')$'\n'
    if [[ ${anchors_of[${dest}]} != *$'\n'"${anchor}"$'\n'* ]]; then
      fail "${file}:${ln}: link (${l}): no heading with anchor #${anchor} in ${dest}"
      continue
    fi
  fi
  note "${file}:${ln}: link ${l}: ok"
done <"${tmp}/records"

# ---------------------------------------------------------------- runbooks
# (e) every alert of the Prometheus rules has a runbook_url, the project's address of a page
# here and one of its headings: an alert's link to what to do must not break when a page moves.
rules=scripts/prometheus/rules.yaml runbook_base=https://github.com/probewheel/probewheel/blob/main/
nrunbooks=0
if [[ -f ${rules} ]]; then
  alerts=$(grep -cE '^[[:space:]]*- alert:' "${rules}" || true)
  while IFS=: read -r ln url; do
    nrunbooks=$((nrunbooks + 1))
    url=${url#*runbook_url:}
    url=${url//[[:space:]\"\']/}
    [[ ${url} == "${runbook_base}"* ]] || { fail "${rules}:${ln}: runbook_url ${url} is not under ${runbook_base}" && continue; }
    dest=${url#"${runbook_base}"}
    anchor=${dest#*#}
    dest=${dest%%#*}
    [[ -f ${dest} ]] || { fail "${rules}:${ln}: runbook_url ${url}: ${dest} does not exist" && continue; }
    [[ -n ${anchors_of[${dest}]+x} ]] || anchors_of[${dest}]=$'\n'$(extract "${dest}" | awk -F'\t' '$1 == "H" {print $4}')$'\n'
    [[ ${url} == *'#'* && ${anchors_of[${dest}]} == *$'\n'"${anchor}"$'\n'* ]] ||
      fail "${rules}:${ln}: runbook_url ${url}: no heading with anchor #${anchor} in ${dest}"
  done < <(grep -nE '^[[:space:]]*runbook_url:' "${rules}" || true)
  ((nrunbooks == alerts)) || fail "${rules}: ${alerts} alerts, ${nrunbooks} runbook_url annotations"
fi

# ---------------------------------------------------------------- metric names
# (f) every prober_... name the pages (CHANGELOG.md apart: it may name what is gone) and the
# Prometheus rules give is a metric the prober package registers: "Subsystem: ..." with
# "Name: ..." in an *Opts literal, or metrics.NewDesc("..."), in pkg/kubelet/prober/*.go (not
# the tests; prober_manager.go is upstream's, with prober_probe_total and
# prober_probe_duration_seconds), with _bucket, _sum or _count after it, or a prefix of one
# ending in _ (`prober_exec_*`). Not names: a file (prober_manager.go), a path's part
# (prober/prober_test.go), a recording rule's middle (instance:prober_scheduler_runs:rate10m).
metrics_dir=pkg/kubelet/prober
mapfile -t metric_srcs < <(find "${metrics_dir}" -maxdepth 1 -name '*.go' ! -name '*_test.go' | LC_ALL=C sort)
registered=$'\n'$(awk '
  function str(l) { sub(/^[^"]*"/, "", l); sub(/".*$/, "", l); return l }
  FNR == 1 { ns = ""; ss = ""; desc = 0 }
  /^[[:space:]]*Namespace:[[:space:]]*"/ { ns = str($0) }
  /^[[:space:]]*Subsystem:[[:space:]]*"/ { ss = str($0) }
  /^[[:space:]]*Name:[[:space:]]*"/ && (ns != "" || ss != "") {
    print (ns != "" ? ns "_" : "") (ss != "" ? ss "_" : "") str($0); ns = ""; ss = ""
  }
  desc && /"/ { print str($0); desc = 0 }
  /NewDesc\(/ { l = $0; sub(/.*NewDesc\(/, "", l); if (l ~ /^[[:space:]]*"/) print str(l); else desc = 1 }
' "${metric_srcs[@]}" | grep '^prober_' | LC_ALL=C sort -u)$'\n'
[[ ${registered} == *$'\n'prober_* ]] ||
  fail "${metrics_dir}: found no prober_ metric in ${metrics_dir}/*.go: this check's parsing no longer fits the code"
# The pages (f) and (g) read: CHANGELOG.md may name what is gone.
named_pages=()
for f in "${files[@]}"; do [[ ${f} == CHANGELOG.md ]] || named_pages+=("${f}"); done
[[ -f ${rules} ]] && named_pages+=("${rules}")
# page_names <lead> <name> [<skip>]: "file<TAB>line<TAB>name" for each match of the regexp
# <name> after a character matching <lead> (or a line's start) in named_pages, except where
# the text after it matches <skip>.
page_names() {
  ((${#named_pages[@]})) || return 0
  awk -v lead="$1" -v re="$2" -v skip="${3:-}" '{
    text = " " $0
    while (match(text, lead re)) {
      name = substr(text, RSTART + 1, RLENGTH - 1); text = substr(text, RSTART + RLENGTH)
      if (skip == "" || text !~ skip) print FILENAME "\t" FNR "\t" name
    }
  }' "${named_pages[@]}"
}
nmetrics=0
while IFS=$'\t' read -r file ln name; do
  nmetrics=$((nmetrics + 1))
  if [[ ${name} == *_ ]]; then
    [[ ${registered} == *$'\n'"${name}"* ]] ||
      fail "${file}:${ln}: ${name}*: no metric ${metrics_dir} registers starts so"
    continue
  fi
  base=${name}
  [[ ${registered} == *$'\n'"${name}"$'\n'* ]] || base=$(sed -E 's/_(bucket|sum|count)$//' <<<"${name}")
  [[ ${registered} == *$'\n'"${base}"$'\n'* ]] ||
    fail "${file}:${ln}: ${name}: not a metric ${metrics_dir} registers (nor one with _bucket, _sum or _count)"
done < <(page_names '[^A-Za-z0-9_:/]' 'prober_[a-z_]+' '^([.][a-z]|:)') # not a file name, a recording rule

# (g) every numbered patch file name the pages give on its own (CHANGELOG.md apart), as
# docs/fork.md's table does (`0005-kubelet-prober-add-executors-…`: a name, or the start of
# one), is one of a series in patches/ (paths under patches/ are (b)'s).
npatchnames=0
patch_names=$'\n'$(find patches -name '[0-9][0-9][0-9][0-9]-*.patch' -printf '%f\n' | LC_ALL=C sort -u)
while IFS=$'\t' read -r file ln name; do
  npatchnames=$((npatchnames + 1))
  name=${name%.}
  name=${name%.patch}
  [[ ${patch_names} == *$'\n'"${name}"* ]] ||
    fail "${file}:${ln}: ${name}: no patch file in patches/ is named so (or starts so)"
done < <(page_names '[^A-Za-z0-9_./-]' '[0-9][0-9][0-9][0-9]-[A-Za-z][A-Za-z0-9._-]*')

summary="${#files[@]} pages: ${ncmd} make commands (${#dry_at[@]} targets dry-run), ${#named[@]} hack/ and scripts/ paths, ${nq} other paths, ${nsrc} sourced files, ${nrun} script runs, ${nlinks} links, ${nrunbooks} runbooks, ${nmetrics} metric names, ${npatchnames} patch names"
if ((fails)); then
  echo "verify-docs: FAILED, ${fails} problem(s) above; checked ${summary}" >&2
  exit 1
fi
echo "verify-docs: ok: ${summary}"
