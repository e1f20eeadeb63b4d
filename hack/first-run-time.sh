#!/usr/bin/env bash
# first-run-time.sh clones the repository (the one given, else this one) into a fresh
# directory, starts `make run` there in the background on ports of its own, and prints how
# long it took from the clone to the first 200 on /healthz. It leaves the server running
# in its own process group (its id is in <dir>.pid) for the caller to stop.
set -u
dir=$(mktemp -d /tmp/rp-fresh.XXXXXX)
rmdir "$dir"
start=$(date +%s.%N)
git clone -q "${1:-.}" "$dir"
cd "$dir"
RESTYPLANE_LISTEN=127.0.0.1:9391 RESTYPLANE_PROXY_LISTEN=127.0.0.1:8391 RESTYPLANE_PROXY_TLS_LISTEN=127.0.0.1:8392 \
  setsid make run >"$dir.log" 2>&1 &
echo $! > "$dir.pid"
for i in $(seq 1 1800); do
  code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9391/healthz)
  if [ "$code" = 200 ]; then
    end=$(date +%s.%N); echo "healthz 200 after $(echo "$end - $start" | bc) s"; exit 0
  fi
  sleep 0.1
done
echo "no 200 within 180 s"; exit 1
