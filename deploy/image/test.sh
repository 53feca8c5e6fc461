#!/usr/bin/env bash
# CI's image test (.ci/run, after `cargo test --workspace`): builds the image
# with build.sh around the binary that test run already built (the dev
# profile's target/debug/kdrift: no second DuckDB build), then runs it as
# deploy/ does (read-only root, no capabilities; no network) and checks:
#   - `kdrift demo` runs and finds the demo's answer (node-1 is 42m cpu short);
#   - `kdrift record --help` runs;
#   - the process runs as uid/gid 65532 (the owner of the store it writes);
#   - the image holds no shell (/bin/sh absent) and no executable but kdrift.
# Exits non-zero with a "test.sh: FAIL: ..." line on the first failed check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-${HOME:-/root}/.cache/kdrift/target}"
export KDRIFT_BIN="${KDRIFT_BIN:-$target/debug/kdrift}"
export IMAGE="${IMAGE:-localhost/kdrift:ci}"
podman=(podman --runtime runc --cgroup-manager=cgroupfs)
run=("${podman[@]}" run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024
  --network none --read-only --cap-drop ALL --security-opt no-new-privileges)
fail() { echo "test.sh: FAIL: $*" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/kdrift-image-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
now() { date +%s%3N; }
ms() { echo "$(( ($2 - $1) / 1000 )).$(printf %03d $(( ($2 - $1) % 1000 )))s"; }

t0=$(now)
"$here/build.sh" > "$work/image" || fail "build.sh failed"
t1=$(now)
[ "$(cat "$work/image")" = "$IMAGE" ] || fail "build.sh printed '$(cat "$work/image")', expected $IMAGE"
size="$("${podman[@]}" image inspect --format '{{.Size}}' "$IMAGE")"
echo "test.sh: built $IMAGE in $(ms "$t0" "$t1") ($((size / 1048576)) MiB)"

config="$("${podman[@]}" image inspect --format '{{.Config.User}} {{json .Config.Entrypoint}}' "$IMAGE")"
[ "$config" = '65532:65532 ["/usr/local/bin/kdrift"]' ] || fail "image config is '$config', expected user 65532:65532, entrypoint [/usr/local/bin/kdrift]"

# kdrift demo, its store in /tmp (a tmpfs under --read-only, as in the pod).
t0=$(now)
"${run[@]}" "$IMAGE" demo > "$work/demo.out" 2> "$work/demo.err" || { cat "$work/demo.err" >&2; fail "kdrift demo exited non-zero in the image"; }
t1=$(now)
grep -qF 'node-1 cpu: the pod requests 100m, 58m free → 42m short' "$work/demo.out" \
  || { cat "$work/demo.out" >&2; fail "kdrift demo's output lacks 'node-1 cpu: the pod requests 100m, 58m free → 42m short'"; }
grep -qF 'loaded 3382 object versions' "$work/demo.err" \
  || { cat "$work/demo.err" >&2; fail "kdrift demo did not report 'loaded 3382 object versions'"; }
echo "test.sh: kdrift demo in the image: $(ms "$t0" "$t1"), found node-1 42m cpu short"

"${run[@]}" "$IMAGE" record --help > "$work/record.out" 2>&1 || { cat "$work/record.out" >&2; fail "kdrift record --help exited non-zero in the image"; }
grep -qF 'Record the cluster continuously' "$work/record.out" || { cat "$work/record.out" >&2; fail "kdrift record --help lacks 'Record the cluster continuously'"; }
echo "test.sh: kdrift record --help in the image: ok"

# The uid the process runs as: the owner of the store it writes on a volume.
mkdir -p "$work/data" && chmod 1777 "$work/data"
"${run[@]}" -v "$work/data:/data:Z" "$IMAGE" demo --save /data/demo.duckdb > /dev/null 2> "$work/save.err" \
  || { cat "$work/save.err" >&2; fail "kdrift demo --save /data/demo.duckdb exited non-zero in the image"; }
owner="$(stat -c %u:%g "$work/data/demo.duckdb")"
[ "$owner" = 65532:65532 ] || fail "the store written in the image is owned by $owner, expected 65532:65532 (the uid deploy/ runs as)"
echo "test.sh: the process runs as $owner"

# No shell, no executable but kdrift: list the image's files.
cid="$("${podman[@]}" create "$IMAGE")"
"${podman[@]}" export "$cid" > "$work/fs.tar"
"${podman[@]}" rm "$cid" > /dev/null
tar -tf "$work/fs.tar" | sed 's#^\./##; s#/$##' > "$work/files"
tar -tvf "$work/fs.tar" > "$work/modes"
[ -s "$work/files" ] || fail "podman export of $IMAGE listed no file"
grep -qxE '(usr/)?bin/sh' "$work/files" && fail "the image holds /bin/sh"
shells="$(grep -E '(^|/)(sh|bash|dash|ash|zsh|ksh|mksh|busybox|perl|python3?)$' "$work/files" || true)"
[ -z "$shells" ] || fail "the image holds a shell or interpreter: $(echo "$shells" | tr '\n' ' ')"
# (etc/hostname, hosts, resolv.conf: the mount points podman adds to every container.)
execs="$(awk '$1 ~ /^-..x/ && $NF !~ /\.so(\.[0-9]+)*$/ {print $NF}' "$work/modes" | sed 's#^\./##' \
  | grep -vxE 'etc/(hostname|hosts|resolv\.conf)' || true)"
[ "$execs" = usr/local/bin/kdrift ] || fail "the image holds executables besides kdrift: $(echo "$execs" | tr '\n' ' ')"
echo "test.sh: no shell in the image (/bin/sh absent; the one executable is /usr/local/bin/kdrift, $(wc -l < "$work/files") files)"
echo "test.sh: ok"
