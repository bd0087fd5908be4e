# The chainsim image for docker-compose.yml (where a Docker engine and a registry exist; without them,
# `npm run image:offline` makes the same image for podman, see docs/containers.md).
#   docker build -t chainsim:local .      or      docker compose build

# --- build: compile the native addons (isolated-vm needs node-gyp: python3, make, g++) and the TypeScript
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Manifests first, so the dependency layer is cached while only sources change.
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/consensus/package.json packages/consensus/
COPY packages/contracts/package.json packages/contracts/
COPY packages/client/package.json packages/client/
COPY packages/node/package.json packages/node/
COPY packages/cli/package.json packages/cli/
COPY test/package.json test/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY test test
# The node serves the API contract at /openapi.json: the build copies it into packages/node/dist.
COPY docs/openapi.yaml docs/
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf packages/*/dist/test packages/*/dist/tsconfig.tsbuildinfo packages/*/src packages/*/test \
           node_modules/isolated-vm/src node_modules/isolated-vm/vendor node_modules/isolated-vm/build/Release/obj.target \
           node_modules/classic-level/deps \
 && find node_modules -name '*.node' -type f -exec strip --strip-unneeded {} +

# --- runtime: Node, the compiled packages and production node_modules only
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
COPY networks networks
RUN mkdir -p /data && rm -f node_modules/@chainsim/e2e node_modules/@chainsim/client
VOLUME /data
# isolated-vm on Node >= 20 needs the built-in snapshot off (see packages/cli/src/validator.ts).
ENTRYPOINT ["node", "--no-node-snapshot", "--max-old-space-size=1536", "/app/packages/cli/bin/chainsim.js"]
CMD ["help"]
