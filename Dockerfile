# The chainsmith worker (and CLI) image. docker-compose.yml runs it as `worker`; other commands run in it
# too, e.g. `docker compose run --rm worker node bin/chainsmith.js mine --repo /srv/chainsmith/repos/foo --out /data/foo.jsonl`, so they share /data.
FROM node:20-bookworm-slim

# git: `chainsmith mine` shells out to it. The repositories are bind-mounted from the host and owned by
# another uid, so git's "dubious ownership" check would refuse them without safe.directory.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'

WORKDIR /app

# Dependencies first, so a source edit reuses the cached install layer. Dev deps are needed for tsc.
COPY package.json package-lock.json ./
# npm install follows the lock file; npm ci rejects lock files without other platforms' optional packages.
RUN npm install --no-audit --no-fund --loglevel=error

# Everything else: src/ to compile, and images/base/, whose hash names the sandbox image (src/environments/images.ts).
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --loglevel=error

ENV NODE_ENV=production CHAINSMITH_HOME=/data
# Runs as root on purpose: the worker talks to the host's Docker engine through /var/run/docker.sock.
CMD ["node", "bin/chainsmith.js", "worker"]
