#!/usr/bin/env bash
# Fuzzes the HTTP API of a live single-validator network with schemathesis against docs/openapi.yaml (served
# at /openapi.json): exits non-zero on any server error (HTTP 5xx; an answer with error_code 1, internal
# error, is a schema violation: the spec leaves that code out) or any answer that does not match the spec.
# See docs/api.md, "The OpenAPI contract".
#   bash scripts/schemathesis.sh                 # SCHEMATHESIS_MAX_EXAMPLES (default 15) cases per operation,
#                                                # SCHEMATHESIS_SEED (default 1) for other cases
#   bash scripts/schemathesis.sh --install-only  # only install schemathesis (.ci/run does, before the tests)
# Needs python3 with venv and pip; schemathesis is installed once into SCHEMATHESIS_VENV (default
# /tmp/chainsim-schemathesis). Run `npm run build` first.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
venv=${SCHEMATHESIS_VENV:-/tmp/chainsim-schemathesis}
max_examples=${SCHEMATHESIS_MAX_EXAMPLES:-15}
seed=${SCHEMATHESIS_SEED:-1}

command -v python3 >/dev/null || { echo "schemathesis.sh: python3 is missing: install python3 and python3-venv" >&2; exit 1; }
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $version" ]; then
  echo "schemathesis.sh: installing schemathesis $version into $venv" >&2
  python3 -m venv "$venv" || { echo "schemathesis.sh: python3 -m venv failed: install python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install --quiet "schemathesis==$version" || { echo "schemathesis.sh: pip could not install schemathesis $version" >&2; exit 1; }
fi
[ "${1:-}" = --install-only ] && exit 0

# Three consecutive free ports (p2p, http, ws of node v1 are port base + 1, 2, 3).
port_base=$(python3 - <<'PY'
import random, socket
for _ in range(200):
    base = random.randrange(20000, 60000, 10)
    try:
        for port in (base + 1, base + 2, base + 3):
            with socket.socket() as s:
                s.bind(("127.0.0.1", port))
        print(base)
        break
    except OSError:
        pass
PY
)
data_dir=$(mktemp -d /tmp/chainsim-schemathesis-net.XXXXXX)
chainsim() { node packages/cli/bin/chainsim.js "$@"; }
stop() { chainsim down --data-dir "$data_dir" >/dev/null 2>&1 || true; rm -rf "$data_dir"; }
trap stop EXIT
trap 'exit 143' TERM INT # so that the network is stopped also when the script is killed
chainsim up networks/single.toml --detach --fresh --data-dir "$data_dir" --port-base "$port_base" >/dev/null
url=http://127.0.0.1:$((port_base + 2))

SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$PWD/scripts" "$venv/bin/schemathesis" run "$url/openapi.json" --url "$url" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing --max-examples "$max_examples" --seed "$seed" --workers 2 \
  --request-timeout 30 --generation-database none --no-color
