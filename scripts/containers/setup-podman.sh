#!/usr/bin/env bash
# Makes this machine able to run docker-compose.yml with podman, as docs/containers.md describes:
# installs podman, podman-compose and runc when missing (with netavark and aardvark-dns, podman's
# network backend and the DNS server that lets services reach each other by name), and writes the /etc/containers/containers.conf
# this kind of machine needs (cgroupfs, runc, no default ulimits). Debian/Ubuntu, as root.
# Idempotent: does nothing when everything is already in place. Exit 0 = podman is ready.
#
# It then proves the compose network works: a probe container (this machine's node, imported as a tiny
# image) on a fresh bridge network publishes a port on 127.0.0.1, and the host must reach it. Exit 1 with
# the engine's message when it does not.
set -euo pipefail
cd "$(dirname "$0")"
. ./rootfs.sh

CONF=/etc/containers/containers.conf
read -r -d '' WANT_CONF <<'CONF' || true
# Written by chainsim scripts/containers/setup-podman.sh (see docs/containers.md).
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else echo "setup-podman: needs root to run: $*" >&2; exit 1
  fi
}

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v podman-compose >/dev/null || missing+=(podman-compose)
command -v runc >/dev/null || missing+=(runc)
[ -x /usr/lib/podman/netavark ] || missing+=(netavark)
[ -x /usr/lib/podman/aardvark-dns ] || missing+=(aardvark-dns)
# netavark sets up container networks with iptables; no podman package depends on it, and without it a
# container is created but never starts ("netavark: No such file or directory").
command -v iptables >/dev/null || [ -x /usr/sbin/iptables ] || missing+=(iptables)
[ "$(id -u)" = 0 ] || command -v sudo >/dev/null || missing+=(sudo)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || { echo "setup-podman: ${missing[*]} missing and no apt-get here; install them by hand" >&2; exit 1; }
  echo "setup-podman: installing ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y podman podman-compose runc netavark aardvark-dns iptables >&2 \
    || { as_root env DEBIAN_FRONTEND=noninteractive apt-get update >&2 \
         && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y podman podman-compose runc netavark aardvark-dns iptables >&2; }
fi

if [ "$(cat "$CONF" 2>/dev/null)" != "$WANT_CONF" ]; then
  if [ -f "$CONF" ] && ! grep -q 'chainsim scripts/containers/setup-podman.sh' "$CONF"; then
    as_root cp "$CONF" "$CONF.before-chainsim"
    echo "setup-podman: kept the previous $CONF as $CONF.before-chainsim" >&2
  fi
  as_root mkdir -p /etc/containers
  printf '%s\n' "$WANT_CONF" | as_root tee "$CONF" >/dev/null
  echo "setup-podman: wrote $CONF" >&2
fi

require_commands setup-podman podman podman-compose runc iptables node ldd tar awk grep
for program in netavark aardvark-dns; do
  [ -x /usr/lib/podman/$program ] || { echo "setup-podman: /usr/lib/podman/$program is missing after the install" >&2; exit 1; }
done

backend=$(podman info --format '{{.Host.NetworkBackend}}') \
  || { echo "setup-podman: podman is installed but 'podman info' fails" >&2; exit 1; }
# Podman keeps the backend it first ran with. CNI without the dnsname plugin cannot resolve service names;
# switch an empty installation (no containers, images or volumes) to netavark.
if [ "$backend" = cni ] && [ ! -x /usr/lib/cni/dnsname ]; then
  if [ -z "$(podman ps -aq)$(podman images -q)$(podman volume ls -q)" ]; then
    echo "setup-podman: switching podman from CNI (no DNS) to netavark" >&2
    podman system reset -f >&2
    as_root rm -f /etc/cni/net.d/87-podman-bridge.conflist
    backend=$(podman info --format '{{.Host.NetworkBackend}}')
  else
    echo "setup-podman: warning: podman uses CNI without the dnsname plugin, so services cannot reach each other by name;" \
      "install golang-github-containernetworking-plugin-dnsname, or run 'podman system reset' to switch to netavark" >&2
  fi
fi
echo "setup-podman: podman $(podman --version | awk '{print $3}') ($backend), $(podman-compose --version 2>/dev/null | grep -i 'podman-compose' | head -1)" >&2

# --- Proof: a container on a bridge network, its port published to 127.0.0.1, reached from the host -------
PROBE_IMAGE=localhost/chainsim-setup-probe:node
PROBE=chainsim-setup-probe-$$
if ! podman image exists "$PROBE_IMAGE"; then
  root=$(mktemp -d "${TMPDIR:-/tmp}/chainsim-probe.XXXXXX")
  mkdir -p "$root/usr/bin"
  cp "$(readlink -f "$(command -v node)")" "$root/usr/bin/node"
  copy_libs "$root/usr/bin/node"
  tar -C "$root" -cf - . | podman import --quiet - "$PROBE_IMAGE" >/dev/null
  rm -rf "$root"
fi
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
errors=$(mktemp)
cleanup_probe() { rm -f "$errors"; podman rm -f -t 0 "$PROBE" >/dev/null 2>&1 || true; podman network rm -f "$PROBE" >/dev/null 2>&1 || true; }
trap cleanup_probe EXIT
fail_probe() {
  echo "setup-podman: podman cannot run a container with a published port, so docker-compose.yml cannot work: $1" >&2
  echo "setup-podman: check iptables (netavark needs it), /etc/containers/containers.conf and 'podman info'; docs/containers.md" >&2
  exit 1
}
podman network create "$PROBE" >/dev/null 2>"$errors" || fail_probe "podman network create failed: $(tail -3 "$errors")"
podman run -d --name "$PROBE" --network "$PROBE" -p "127.0.0.1:$port:8080" "$PROBE_IMAGE" /usr/bin/node -e \
  'require("http").createServer((q, s) => s.end("chainsim-probe")).listen(8080)' >/dev/null 2>"$errors" \
  || fail_probe "podman run failed: $(tail -3 "$errors")"
answer=$(node -e '
  const url = process.argv[1], deadline = Date.now() + 20000;
  const poll = () => fetch(url).then((r) => r.text()).then(console.log, () => (Date.now() < deadline ? setTimeout(poll, 200) : process.exit(1)));
  poll();' "http://127.0.0.1:$port/") || true
[ "$answer" = chainsim-probe ] || fail_probe "the probe container's port 127.0.0.1:$port did not answer within 20 s ($(podman logs "$PROBE" 2>&1 | tail -3))"
echo "setup-podman: a container on a bridge network answered on its published port 127.0.0.1:$port" >&2
