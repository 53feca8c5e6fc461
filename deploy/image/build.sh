#!/usr/bin/env bash
# Builds the kdrift image with podman (deploy/image/Containerfile).
#
#   cargo build --release -p kdrift && deploy/image/build.sh
#
# Environment (all optional):
#   KDRIFT_BIN   the binary to copy (default: $CARGO_TARGET_DIR/release/kdrift,
#                CARGO_TARGET_DIR defaulting to ./target); stripped on the way in
#   IMAGE        the tag to build (default: localhost/kdrift:<workspace version>)
#   BASE         an existing base image (e.g. gcr.io/distroless/cc-debian12:nonroot,
#                pulled from its registry). Unset: the base is built from Debian
#                packages with mmdebstrap (no registry needed, only a Debian
#                mirror), cached as a tarball in $KDRIFT_IMAGE_CACHE
#                (default ~/.cache/kdrift/image) and imported into podman.
#   DEBIAN_MIRROR  (default http://deb.debian.org)
#
# podman runs with runc and cgroupfs: crun fails on setrlimit and on hybrid
# cgroups on the CI machines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
podman=(podman --runtime runc --cgroup-manager=cgroupfs)

target="${CARGO_TARGET_DIR:-$repo/target}"
bin="${KDRIFT_BIN:-$target/release/kdrift}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n1)"
image="${IMAGE:-localhost/kdrift:$version}"
[ -x "$bin" ] || { echo "build.sh: no kdrift binary at $bin (cargo build --release -p kdrift, or set KDRIFT_BIN)" >&2; exit 1; }
command -v podman >/dev/null || { echo "build.sh: podman is missing (apt-get install podman runc mmdebstrap)" >&2; exit 1; }

# The base from Debian packages: glibc, libgcc_s, libstdc++ (DuckDB's C++
# runtime) and the CA bundle, laid out like distroless's cc-debian12:nonroot
# (/etc/passwd with nonroot = 65532, /home/nonroot, /tmp 1777). mmdebstrap's
# extract variant only unpacks: no maintainer scripts run, so nothing needs
# a shell, and what the dependencies drag in (debconf, perl-base, mawk,
# openssl's tools) is removed below with every other executable: the base
# has no shell and no package manager, only shared libraries and data.
suite=bookworm
packages=base-files,netbase,tzdata,libc6,libgcc-s1,libstdc++6,ca-certificates
mirror="${DEBIAN_MIRROR:-http://deb.debian.org}"
build_base() { # $1: output tarball
  local root; root="$(mktemp -d "${TMPDIR:-/tmp}/kdrift-base.XXXXXX")"
  trap 'rm -rf "$root"' RETURN
  mmdebstrap --quiet --variant=extract --include="$packages" --format=directory "$suite" "$root" \
    "deb $mirror/debian $suite main" "deb $mirror/debian-security $suite-security main" >&2
  (
    cd "$root"
    # Every executable and what only they use: shells, dpkg/apt/debconf, perl, awk, openssl.
    rm -rf bin sbin usr/bin usr/sbin usr/libexec usr/games usr/local/* \
      usr/share/{doc,man,info,locale,lintian,perl5,debconf,bug,menu,common-licenses,gcc,gdb,bash-completion,pixmaps} \
      usr/lib/*-linux-gnu/{perl-base,gconv,engines-3,ossl-modules,libssl.so*,libcrypto.so*} \
      usr/lib/ssl etc/apt etc/dpkg etc/debconf.conf etc/ca-certificates \
      etc/update-motd.d etc/profile.d etc/skel etc/ssl/openssl.cnf etc/ssl/private etc/default \
      var/cache/* var/lib/dpkg var/lib/apt var/log/* dev
    mkdir -p bin sbin usr/bin usr/sbin dev proc sys
    # What update-ca-certificates would write (its maintainer script did not run).
    mkdir -p etc/ssl/certs
    find usr/share/ca-certificates -name '*.crt' -print0 | sort -z | xargs -0 cat > etc/ssl/certs/ca-certificates.crt
    rm -rf usr/share/ca-certificates
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > etc/passwd
    printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > etc/group
    mkdir -p home/nonroot root tmp && chown 65532:65532 home/nonroot && chmod 0700 home/nonroot root && chmod 1777 tmp
  )
  tar --sort=name --numeric-owner --mtime=@0 -C "$root" -cf "$1.part" . && mv "$1.part" "$1"
}

if [ -z "${BASE:-}" ]; then
  cache="${KDRIFT_IMAGE_CACHE:-${HOME:-/root}/.cache/kdrift/image}"
  key="$(printf '%s\n' "$suite" "$packages" "$mirror" "$(sed -n '/^build_base()/,/^}/p' "$0")" | sha256sum | cut -c1-12)"
  tarball="$cache/base-$suite-$key.tar"
  BASE="localhost/kdrift-base:$suite-$key"
  if ! "${podman[@]}" image exists "$BASE"; then
    if [ ! -f "$tarball" ]; then
      command -v mmdebstrap >/dev/null || { echo "build.sh: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; exit 1; }
      mkdir -p "$cache"
      echo "build.sh: building the base from Debian $suite packages ($packages) into $tarball" >&2
      build_base "$tarball"
    fi
    echo "build.sh: importing $tarball as $BASE" >&2
    "${podman[@]}" import --quiet "$tarball" "$BASE" >/dev/null
  fi
fi

context="$(mktemp -d "${TMPDIR:-/tmp}/kdrift-image.XXXXXX")"
trap 'rm -rf "$context"' EXIT
strip -o "$context/kdrift" "$bin" 2>/dev/null || cp "$bin" "$context/kdrift"
chmod 0755 "$context/kdrift"
echo "build.sh: building $image on $BASE from $bin" >&2
old="$("${podman[@]}" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
new="$("${podman[@]}" build --quiet --build-arg BASE="$BASE" -f "$here/Containerfile" -t "$image" "$context")"
# The image this tag named before (another binary): removed unless still in use.
if [ -n "$old" ] && [ "$old" != "$new" ]; then "${podman[@]}" rmi "$old" >/dev/null 2>&1 || true; fi
echo "$image"
