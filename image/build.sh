#!/usr/bin/env bash
# build.sh makes restyplane's container image without a registry: mmdebstrap builds a
# Debian bookworm root filesystem from Debian's mirror with nginx, its Lua module and the Lua
# libraries, the restyplane binary is added to it, and `docker import` turns the tarball into
# an image that runs as the unprivileged user restyplane (uid/gid 10001).
#
#   image/build.sh [version]     tags $IMAGE_NAME:<version> and $IMAGE_NAME:latest
#
# The root filesystem is cached in .cache/image/ under a key made of everything that goes
# into it (suite, mirrors, packages, the hooks below): the first build takes minutes, a
# rebuild after a code change only builds the binary, appends it and imports (seconds).
# Needs: mmdebstrap (hack/install.sh installs it), go, docker, and root for the root
# filesystem (mmdebstrap's root mode keeps file owners; unshare mode needs subuids).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}}
name=${IMAGE_NAME:-restyplane}
cache=.cache/image
start=$SECONDS
step() { printf 'image: [%3ds] %s\n' $((SECONDS - start)) "$*"; }

# What a proxy needs and nothing more: the Essential set, nginx with the Lua, stream (TLS
# passthrough; njs tells h2c from HTTP/1.1) and ModSecurity (WAF, with the OWASP Core Rule Set) modules, resty-core,
# lrucache, cjson, and CA certificates for TLS to upstreams.
suite=bookworm
mirrors=(
  "deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main"
)
packages=usr-is-merged,nginx-light,libnginx-mod-http-lua,libnginx-mod-stream,libnginx-mod-stream-js,libnginx-mod-http-modsecurity,modsecurity-crs,lua-cjson,lua-resty-core,lua-resty-lrucache,ca-certificates
uid=10001

# The Essential set is resolved before the packages above, so init-system-helpers gets
# usrmerge (and all of Perl, 40 MB) although usr-is-merged satisfies it: purge them.
perl="usrmerge libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl perl libperl5.36 perl-modules-5.36 libgdbm-compat4 libgdbm6"

# The user is written into the files directly: the Essential set has no useradd. Its data
# directory is 0700 (restyplane tightens it anyway); nginx's own log and state directories
# are given to it so that an nginx started by hand as that user does not warn.
hooks=(
  --customize-hook="chroot \"\$1\" dpkg --purge $perl"
  --customize-hook="echo 'restyplane:x:$uid:$uid:restyplane:/var/lib/restyplane:/usr/sbin/nologin' >> \"\$1/etc/passwd\""
  --customize-hook="echo 'restyplane:x:$uid:' >> \"\$1/etc/group\""
  --customize-hook="echo 'restyplane:!::0:99999:7:::' >> \"\$1/etc/shadow\""
  --customize-hook="install -d -m 0700 -o $uid -g $uid \"\$1/var/lib/restyplane\""
  --customize-hook="chown -R $uid:$uid \"\$1/var/log/nginx\" \"\$1/var/lib/nginx\""
  --customize-hook="rm -rf \"\$1\"/var/cache/apt/* \"\$1\"/var/lib/apt/lists/* \"\$1\"/var/log/*.log \"\$1\"/var/cache/debconf/*-old"
)
opts=(
  --variant=essential
  --include="$packages"
  --aptopt='APT::Install-Recommends "false"'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/lintian/*'
)
key=$(printf '%s\n' "$suite" "${mirrors[@]}" "${opts[@]}" "${hooks[@]}" | sha256sum | cut -c1-16)
rootfs=$cache/rootfs-$key.tar

for tool in go docker tar; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing" >&2; exit 1; }
done
docker version >/dev/null || { echo "image: the Docker engine does not answer (is dockerd running?)" >&2; exit 1; }
mkdir -p "$cache"

if [ -f "$rootfs" ]; then
  step "root filesystem $rootfs cached"
else
  command -v mmdebstrap >/dev/null || { echo "image: mmdebstrap is missing (run hack/install.sh)" >&2; exit 1; }
  [ "$(id -u)" -eq 0 ] || { echo "image: building the root filesystem needs root (mmdebstrap keeps file owners)" >&2; exit 1; }
  step "building the $suite root filesystem with $packages (first build: a few minutes)"
  rm -f "$cache"/rootfs-*.tar "$cache"/rootfs-*.tmp
  mmdebstrap --mode=root "${opts[@]}" "${hooks[@]}" "$suite" "$rootfs.tmp.tar" "${mirrors[@]}"
  mv "$rootfs.tmp.tar" "$rootfs"
  step "root filesystem done: $(du -h "$rootfs" | cut -f1)"
fi

step "building restyplane $version (CGO_ENABLED=0)"
stage=$cache/stage
rm -rf "$stage" && mkdir -p "$stage/usr/bin"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$stage/usr/bin/restyplane" ./cmd/restyplane

step "adding the binary to a copy of the root filesystem"
cp "$rootfs" "$cache/image.tar"
tar --append -f "$cache/image.tar" -C "$stage" --owner=0 --group=0 --mode=0755 ./usr/bin/restyplane

# The environment is serve's (the default command): in a container it must listen on every
# address. The agent's listener is set where it runs (deploy/compose.yaml, deploy/).
step "importing $name:$version"
docker import \
  --message "restyplane $version from Debian $suite packages" \
  --change 'ENTRYPOINT ["/usr/bin/restyplane"]' \
  --change 'CMD ["serve"]' \
  --change "USER $uid:$uid" \
  --change 'WORKDIR /var/lib/restyplane' \
  --change 'ENV RESTYPLANE_LISTEN=0.0.0.0:9180' \
  --change 'ENV RESTYPLANE_NGINX_LOGS=stdout' \
  --change 'ENV RESTYPLANE_DATA_DIR=/var/lib/restyplane' \
  --change 'ENV RESTYPLANE_PROXY_LISTEN=0.0.0.0:8080' \
  --change 'ENV RESTYPLANE_PROXY_TLS_LISTEN=0.0.0.0:8443' \
  --change 'EXPOSE 8080 8443 9180 9181' \
  --change "LABEL org.opencontainers.image.title=restyplane org.opencontainers.image.version=$version" \
  "$cache/image.tar" "$name:$version" >/dev/null
docker tag "$name:$version" "$name:latest"
rm -rf "$stage" "$cache/image.tar"
step "done: $name:$version and $name:latest ($(docker image inspect -f '{{.Size}}' "$name:$version" | numfmt --to=iec))"
