#!/usr/bin/env bash
# install.sh puts on this machine what one of restyplane's make targets needs, and nothing
# more: `run` gets nginx with the Lua, stream (with njs) and ModSecurity modules, the Core Rule Set and
# the Lua libraries; `test` also the test tools
# (etcd, Chromium, wrk, iproute2, swag, kube-apiserver, and for the Gateway API conformance
# harness kube-controller-manager, kube-scheduler and kwok); `bench` (valgrind besides) and
# `openapi` what those targets need. It is idempotent: a second run installs nothing and
# returns fast.
#
#   hack/install.sh run|test|bench|openapi|image
#
# It never stops, disables or kills a service or process: a system nginx the user runs is
# left alone. Debian starts a packaged service when it installs it; while apt-get runs, a
# policy-rc.d that answers 101 ("action forbidden") keeps it from starting, and it is
# removed afterwards (one that the machine already has is used as it is, never replaced).
# RESTYPLANE_EXTRA_PACKAGES names more Debian packages to install with the mode's.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-test}"

# What each mode needs. A new target adds its list here and a case below.
run_pkgs=(nginx-light libnginx-mod-http-lua libnginx-mod-stream libnginx-mod-stream-js libnginx-mod-http-modsecurity modsecurity-crs lua-cjson lua-resty-core lua-resty-lrucache)
test_pkgs=(etcd-server chromium wrk iproute2 caddy mmdebstrap docker.io)
image_pkgs=(mmdebstrap docker.io)
bench_pkgs=(etcd-server wrk iproute2 caddy valgrind)

pkgs=("${run_pkgs[@]}")
go_tools=()
case "$mode" in
  run) ;;
  test) pkgs+=("${test_pkgs[@]}"); go_tools=(swag kube-apiserver kube-controller-manager kube-scheduler kwok) ;;
  bench) pkgs+=("${bench_pkgs[@]}"); go_tools=(kube-apiserver) ;;
  openapi) pkgs=(); go_tools=(swag) ;;
  image) pkgs+=("${image_pkgs[@]}") ;;
  *) echo "usage: hack/install.sh run|test|bench|openapi|image" >&2; exit 2 ;;
esac
# shellcheck disable=SC2206 # a space-separated list by design
pkgs+=(${RESTYPLANE_EXTRA_PACKAGES:-})

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install: Debian packages ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# restyplane hack/install.sh: no service starts while it installs packages.\nexit 101\n' |
      $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  apt=($sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends)
  # The package lists may be missing on a fresh machine; update once when an install fails.
  "${apt[@]}" "${missing[@]}" >/dev/null 2>&1 || {
    $sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
    "${apt[@]}" "${missing[@]}"
  }
fi

mkdir -p bin
# Go tools come from the module proxy at pinned versions; a built binary is reused.
for tool in "${go_tools[@]}"; do
  case "$tool" in
    swag)
      if [ ! -x bin/swag ]; then
        echo "install: swag"
        GOBIN="$PWD/bin" go install github.com/swaggo/swag/cmd/swag@v1.16.4
      fi ;;
    kube-apiserver|kube-controller-manager|kube-scheduler)
      # Kubernetes' programs of one release, pinned by hack/tools/go.mod.
      if [ "${RESTYPLANE_INSTALL_KUBE:-1}" = 1 ] && [ -f hack/tools/go.mod ] && [ ! -x "bin/$tool" ]; then
        echo "install: $tool (first build takes minutes; the binary is cached in ./bin)"
        (cd hack/tools && GOBIN="$PWD/../../bin" go install "k8s.io/kubernetes/cmd/$tool")
      fi ;;
    kwok)
      # kwok has a module of its own (hack/kwok/go.mod) that pins it and its dependencies.
      if [ "${RESTYPLANE_INSTALL_KUBE:-1}" = 1 ] && [ -f hack/kwok/go.mod ] && [ ! -x bin/kwok ]; then
        echo "install: kwok"
        (cd hack/kwok && GOBIN="$PWD/../../bin" go install sigs.k8s.io/kwok/cmd/kwok)
      fi ;;
  esac
done
