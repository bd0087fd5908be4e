#!/usr/bin/env bash
# `npm run image:offline`: the container image of docker-compose.yml, made without a registry or a Docker
# engine (docs/containers.md). It builds the project, assembles a root filesystem from this machine's files
# (/usr/bin/node and the shared libraries it and the native addons link, at the same paths; the compiled
# packages; production node_modules with isolated-vm and classic-level as built here) and `podman import`s
# it under the image name docker-compose.yml uses.
#
# The root filesystem is packed as a reproducible tar; its sha256 is the image's label
# chainsim.fingerprint, and an image with the same fingerprint is reused instead of imported again.
#
# options: --no-build (use the current dist/ as it is), --force (import even if the fingerprint matches)
# env: CHAINSIM_IMAGE (default: the image docker-compose.yml names), KEEP_ROOTFS=DIR (also keep the tree there)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)

build=1 force=0
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --force) force=1 ;;
    *) echo "image-offline: unknown option $arg (use --no-build, --force)" >&2; exit 2 ;;
  esac
done

say() { echo "image-offline: $*" >&2; }
compose_image=$(sed -nE 's/^ *image: *"?([^" ]+)"? *$/\1/p' docker-compose.yml | head -1)
IMAGE=${CHAINSIM_IMAGE:-$compose_image}
[ -n "$IMAGE" ] || { say "no image: line in docker-compose.yml"; exit 1; }
command -v podman >/dev/null || { say "podman is missing; run scripts/containers/setup-podman.sh (as root)"; exit 1; }
. scripts/containers/rootfs.sh
require_commands image-offline node npm ldd tar sha256sum awk sed du

started=$(date +%s.%N)
if [ "$build" = 1 ]; then
  say "building the project (npm run build)"
  npm run build --silent >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/chainsim-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{app,tmp,data,etc,usr/bin}
chmod 1777 "$root/tmp"

# --- Node and the shared libraries it (and the native addons) load, at the same paths -----------------
node_bin=$(readlink -f "$(command -v node)")
cp "$node_bin" "$root/usr/bin/node"
copy_libs "$node_bin"
# The validator starts its contract worker through /bin/sh (to raise the worker's stack limit).
sh_bin=$(readlink -f /bin/sh)
mkdir -p "$root/bin"
cp "$sh_bin" "$root/bin/sh"
copy_libs "$sh_bin"

# --- The application: package manifests, compiled sources (no tests), manifests -------------------------
# Runtime packages: what the `chainsim` command loads (the client SDK and the e2e tests are not needed).
packages=(protocol consensus contracts node cli)
cp package.json "$root/app/"
cp -r networks "$root/app/networks"
for p in "${packages[@]}"; do
  mkdir -p "$root/app/packages/$p/dist"
  cp "packages/$p/package.json" "$root/app/packages/$p/"
  cp -r "packages/$p/dist/src" "$root/app/packages/$p/dist/src"
done
cp -r packages/cli/bin "$root/app/packages/cli/bin"

# --- Production node_modules, as npm resolved them here (no dev dependencies) ----------------------------
npm ls --omit=dev --all --parseable 2>/dev/null | sed -n "s|^$repo/node_modules/||p" | sort -u > "$work/modules"
[ -s "$work/modules" ] || { say "npm ls --omit=dev found no modules; is node_modules installed?"; exit 1; }
# Each listed package without its nested node_modules; the nested packages npm ls lists come on their own.
while read -r m; do
  case "$m" in @chainsim/*) continue ;; esac # workspace links, made below
  mkdir -p "$root/app/node_modules/$m"
  tar -C "node_modules/$m" --exclude=./node_modules -cf - . | tar -C "$root/app/node_modules/$m" -xf -
done < "$work/modules"
mkdir -p "$root/app/node_modules/@chainsim"
for p in "${packages[@]}"; do ln -s "../../packages/$p" "$root/app/node_modules/@chainsim/$p"; done

# Trim what Node never loads: TypeScript sources and declarations, source maps, docs, native sources,
# prebuilt binaries of other platforms.
nm=$root/app/node_modules
find "$nm" -type f \( -name '*.ts' -o -name '*.map' -o -name '*.md' -o -name '*.markdown' -o -name '*.tsbuildinfo' \) -delete
find "$nm" -depth -type d \( -name .github -o -name __tests__ -o -name .bin \) -prune -exec rm -rf {} +
rm -rf "$nm/isolated-vm/src" "$nm/isolated-vm/vendor" "$nm/isolated-vm/native-example" "$nm/isolated-vm/build"
rm -rf "$nm/classic-level/deps" "$nm/classic-level/binding.cc" "$nm/classic-level/build/Release/obj.target" "$nm/classic-level/build/Release/.deps"
platform=$(node -p 'process.platform + "-" + process.arch')
if [ -d "$nm/classic-level/prebuilds/$platform" ]; then
  find "$nm/classic-level/prebuilds" -mindepth 1 -maxdepth 1 ! -name "$platform" -exec rm -rf {} +
fi
find "$nm/classic-level/prebuilds" -name '*.musl.node' -delete 2>/dev/null || true # glibc here
# Addons built here carry their debug symbols (isolated-vm: 25 MB, 1 MB stripped); Node needs only the dynamic ones.
if command -v strip >/dev/null; then find "$nm" -name '*.node' -type f -exec strip --strip-unneeded {} +; fi
find "$root/app" -type d -empty -delete
mkdir -p "$root/app/node_modules"

# The native addons load into Node: their libraries must be in the image too.
while read -r addon; do copy_libs "$addon"; done < <(find "$nm" -name '*.node' -type f)

# --- Pack reproducibly, fingerprint, import -------------------------------------------------------------
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/rootfs.tar" .
fingerprint=$(sha256sum "$work/rootfs.tar" | cut -c1-64)
size=$(du -sb "$root" | cut -f1)
if [ -n "${KEEP_ROOTFS:-}" ]; then rm -rf "$KEEP_ROOTFS"; cp -a "$root" "$KEEP_ROOTFS"; fi

current=$(podman image inspect -f '{{index .Labels "chainsim.fingerprint"}}' "$IMAGE" 2>/dev/null || true)
if [ "$force" = 0 ] && [ "$current" = "$fingerprint" ]; then
  say "$IMAGE is up to date (fingerprint ${fingerprint:0:12}); nothing imported"
else
  say "importing $IMAGE ($((size / 1024 / 1024)) MiB root filesystem)"
  old=$(podman image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
  podman import --quiet \
    --change 'WORKDIR /app' \
    --change 'ENV NODE_ENV=production' \
    --change 'ENTRYPOINT ["/usr/bin/node", "--no-node-snapshot", "/app/packages/cli/bin/chainsim.js"]' \
    --change 'CMD ["help"]' \
    --change 'VOLUME /data' \
    --change "LABEL chainsim.fingerprint=$fingerprint" \
    --message "chainsim offline image ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))" \
    "$work/rootfs.tar" "$IMAGE" >/dev/null
  # The previous image of this name is now untagged; remove it unless a container still uses it.
  if [ -n "$old" ] && [ "$old" != "$(podman image inspect -f '{{.Id}}' "$IMAGE")" ]; then podman rmi "$old" >/dev/null 2>&1 || true; fi
fi
image_size=$(podman image inspect -f '{{.Size}}' "$IMAGE")
elapsed=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e - s}')
say "$IMAGE: $((image_size / 1024 / 1024)) MiB, fingerprint ${fingerprint:0:12}, ${elapsed}s"
echo "$IMAGE"
