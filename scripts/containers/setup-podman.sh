#!/usr/bin/env bash
# Makes this machine able to run docker-compose.yml with podman, as docs/containers.md describes:
# installs podman, podman-compose and runc when missing (with netavark and aardvark-dns, podman's
# network backend and the DNS server that lets services reach each other by name), and writes the /etc/containers/containers.conf
# this kind of machine needs (cgroupfs, runc, no default ulimits). Debian/Ubuntu, as root.
# Idempotent: does nothing when everything is already in place. Exit 0 = podman is ready.
set -euo pipefail

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
