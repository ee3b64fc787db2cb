#!/usr/bin/env bash
# Prints the pinned Kubernetes version: the k8s.io/kubernetes requirement in go.mod,
# the single place it is written down.
set -euo pipefail
cd "$(dirname "$0")/.."
awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3; exit} $1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' go.mod
