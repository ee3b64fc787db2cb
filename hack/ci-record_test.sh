#!/usr/bin/env bash
# Table test of hack/ci-record.sh --check (make verify-docs runs it): each case is a
# CI record and the two pages that state it, and whether the check must pass; a case
# the check judges wrongly fails the test.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

record=$'# .ci/run on a fresh clone, 2026-11-30\n\ncommit: 5fc1ec2\ntotal: 21 min 5 s (1265 s)\n\n| step | time |\n|---|---|\n| make test | 13 min 26 s |\n| make upstream-test | 7 min 39 s |'
readme=$'CI takes 21 min 5 s\non a fresh machine ([record](e2e/results/ci-20261130.md)).'
clusters=$'Earlier: a table that is not the record\'s.\n\n| a | b |\n|---|---|\n| x | 1 min 0 s |\n\nOn commit 5fc1ec2, **21 min 5 s**\n(2026-11-30, [ci-20261130.md](../e2e/results/ci-20261130.md)):\n\n| step | time |\n|---|---|\n| `make test` (vet, tests) | 13 min 26 s |\n| `make upstream-test`, gate on and off | 7 min 39 s |\n\nAfter the table.'
# shellcheck source=hack/table-test-lib.sh
source "${here}/table-test-lib.sh"
# case <name> <want: pass|fail> <record> <README.md> <docs/clusters.md>
case_() {
  local name=$1 want=$2 dir=${work}/$1 got=pass
  mkdir -p "${dir}/results" "${dir}/pages/docs"
  printf '%s\n' "$3" >"${dir}/results/ci-20261130.md"
  printf '# an older record\n\ncommit: 0000000\ntotal: 99 min 0 s (5940 s)\n' >"${dir}/results/ci-20261127.md"
  printf '%s\n' "$4" >"${dir}/pages/README.md"
  printf '%s\n' "$5" >"${dir}/pages/docs/clusters.md"
  PW_CI_RESULTS=${dir}/results PW_CI_PAGES=${dir}/pages "${here}/ci-record.sh" --check >"${dir}/out" 2>&1 || got=fail
  judge "${name}" "${want}" "${got}" "${dir}/out"
}
case_ agree pass "${record}" "${readme}" "${clusters}"
case_ readme-other-total fail "${record}" "${readme/21 min 5 s/20 min 5 s}" "${clusters}"
case_ readme-older-record fail "${record}" "${readme/20261130/20261127}" "${clusters}"
case_ clusters-commit-wrapped pass "${record}" "${readme}" "${clusters/commit 5fc1ec2/commit$'\n'5fc1ec2}"
case_ clusters-longer-commit fail "${record}" "${readme}" "${clusters/commit 5fc1ec2/commit 5fc1ec2f}"
case_ clusters-other-commit fail "${record}" "${readme}" "${clusters/commit 5fc1ec2/commit 5fc1ec3}"
case_ clusters-no-citation fail "${record}" "${readme}" "${clusters//ci-20261130/ci-20261129}"
case_ row-other-time fail "${record}" "${readme}" "${clusters/7 min 39 s/7 min 38 s}"
case_ row-missing fail "${record}" "${readme}" "${clusters/$'\n'| \`make upstream-test\`, gate on and off | 7 min 39 s |/}"
case_ row-extra fail "${record}" "${readme}" "${clusters/$'\n\nAfter'/$'\n'| kind | 1 min 0 s |$'\n\nAfter'}"
swapped=${clusters/13 min 26 s/T} swapped=${swapped/7 min 39 s/13 min 26 s} swapped=${swapped/T/7 min 39 s}
case_ rows-swapped fail "${record}" "${readme}" "${swapped}"
case_ no-table fail "${record}" "${readme}" "${clusters%%$'\n\n| step'*}"
((failed == 0)) || { echo "ci-record_test: the check judged a case wrongly" >&2; exit 1; }
echo "ci-record_test: every case judged as it should be"
