#!/usr/bin/env bash
# install.sh puts on this machine what restyplane's run, test and bench targets need:
# Debian packages (nginx with the Lua module, etcd, Chromium) and Go tools built from the
# module proxy into ./bin. It is idempotent: a second run installs nothing and returns fast.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(nginx-light libnginx-mod-http-lua lua-cjson lua-resty-core lua-resty-lrucache
      etcd-server chromium wrk iproute2 caddy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install: Debian packages ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # The package lists may be missing on a fresh machine; update once when an install fails.
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  }
  # Debian enables and starts a system nginx on install; restyplane runs its own.
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
  fi
  $sudo pkill -f 'nginx: master process /usr/sbin/nginx -g daemon on' >/dev/null 2>&1 || true
fi

mkdir -p bin
# Go tools come from the module proxy at pinned versions; a built binary is reused.
if [ ! -x bin/swag ]; then
  echo "install: swag"
  GOBIN="$PWD/bin" go install github.com/swaggo/swag/cmd/swag@v1.16.4
fi
if [ "${RESTYPLANE_INSTALL_KUBE:-1}" = 1 ] && [ -f hack/tools/go.mod ] && [ ! -x bin/kube-apiserver ]; then
  echo "install: kube-apiserver (first build takes minutes; the binary is cached in ./bin)"
  (cd hack/tools && GOBIN="$PWD/../../bin" go install k8s.io/kubernetes/cmd/kube-apiserver)
fi
