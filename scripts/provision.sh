#!/usr/bin/env bash
# Installs and starts what chainsmith needs, idempotently: node modules, a Temporal dev server,
# a Docker engine, the sandbox base image, the toolchain images (images/toolchains/*; a worker also
# builds a missing one on demand), and for the tests Python's `datasets` and moto, versitygw (a real
# S3 server), docker-compose (to check docker-compose.yml) and a headless Chromium.
# Used by `npm run demo`, `npm test` and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

home=${CHAINSMITH_HOME:-$HOME/.chainsmith}
address=${CHAINSMITH_TEMPORAL_ADDRESS:-127.0.0.1:7233}
ui_port=${CHAINSMITH_TEMPORAL_UI_PORT:-8233}
mkdir -p "$home"
# Steps to run (default: all); e.g. `provision.sh docker` checks only the Docker engine.
steps=" ${*:-node temporal docker image toolchains python s3 compose chromium} "
want() { [[ $steps == *" $1 "* ]]; }
say() { echo "[provision] $*"; }
die() { echo "[provision] error: $*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
apt_install() {
  is_root && [ -f /etc/debian_version ] || return 1
  say "installing Debian packages: $*"
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ] \
    || apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- node modules -------------------------------------------------------------------------------
if want node && { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  # `npm install` follows package-lock.json (which lists every platform's optional packages, so it is
  # left as it is) and, unlike `npm ci`, keeps what node_modules already has.
  say "installing node modules (npm install, as locked)"
  npm install --no-audit --no-fund --loglevel=error
fi

# --- Temporal ------------------------------------------------------------------------------------
if want temporal; then
  export PATH="$PATH:$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin:/usr/local/go/bin"
  temporal_ok() { temporal operator cluster health --address "$address" >/dev/null 2>&1; }
  if ! command -v temporal >/dev/null; then
    command -v go >/dev/null || die "no 'temporal' binary and no Go toolchain: install Go (https://go.dev/dl) or put the temporal CLI on PATH"
    say "installing the temporal CLI v1.5.1 with go install (first time only, a few minutes)"
    go install github.com/temporalio/cli/cmd/temporal@v1.5.1
  fi
  if temporal_ok; then
    say "Temporal is up at $address"
  else
    case "$address" in
      127.0.0.1:*|localhost:*) ;;
      *) die "Temporal at $address does not answer (CHAINSMITH_TEMPORAL_ADDRESS); start it or unset the variable to use a local dev server" ;;
    esac
    port=${address##*:}
    say "starting temporal server start-dev on 127.0.0.1:$port (UI :$ui_port, db $home/temporal.db)"
    sa_flags=()
    while IFS= read -r kv; do sa_flags+=(--search-attribute "$kv"); done < <(node -e \
      'const a=require("./src/workflows/search-attributes.json");for(const[k,v]of Object.entries(a))console.log(`${k}=${v}`)')
    setsid nohup temporal server start-dev --ip 127.0.0.1 --port "$port" --ui-ip 127.0.0.1 --ui-port "$ui_port" \
      --db-filename "$home/temporal.db" --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
      --log-level warn "${sa_flags[@]}" >"$home/temporal.log" 2>&1 </dev/null &
    for _ in $(seq 1 60); do temporal_ok && break; sleep 1; done
    temporal_ok || { tail -n 20 "$home/temporal.log" >&2; die "Temporal dev server did not become healthy (log: $home/temporal.log)"; }
    say "Temporal is up at $address, Web UI http://127.0.0.1:$ui_port"
  fi
  # A reused server may predate our search attributes: add the missing ones.
  existing=$(temporal operator search-attribute list --address "$address" -o json 2>/dev/null || echo '[]')
  node -e '
    const want=require("./src/workflows/search-attributes.json"); const have=JSON.stringify(JSON.parse(process.argv[1]));
    for (const [k,v] of Object.entries(want)) if (!have.includes(`"${k}"`)) console.log(`${k} ${v}`);' "$existing" |
    while read -r name type; do
      say "registering search attribute $name ($type)"
      temporal operator search-attribute create --address "$address" --name "$name" --type "$type" >/dev/null
    done
fi

# --- Docker --------------------------------------------------------------------------------------
if want docker; then
  docker_ok() { docker info >/dev/null 2>&1; }
  if ! docker_ok; then
    if ! command -v dockerd >/dev/null; then
      apt_install docker.io || die "no Docker engine is reachable and this is not root on Debian: install Docker Engine (https://docs.docker.com/engine/install/) and start it, or set DOCKER_HOST"
    fi
    is_root || die "no Docker engine is reachable: start dockerd (as root) or set DOCKER_HOST"
    # A dockerd or containerd killed with its machine's session leaves its pid file behind. Once that
    # pid is reused by another process, dockerd waits for a "still running" containerd that never answers.
    for pidfile in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
      [ -f "$pidfile" ] || continue
      comm=$(cat "/proc/$(cat "$pidfile")/comm" 2>/dev/null || true)
      case "$comm" in dockerd|containerd) ;; *) rm -f "$pidfile" ;; esac
    done
    say "starting dockerd (no bridge, no iptables; sandboxes run without network)"
    setsid nohup dockerd --bridge=none --iptables=false --ip-forward=false >"$home/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 30); do docker_ok && break; sleep 1; done
    docker_ok || { tail -n 20 "$home/dockerd.log" >&2; die "dockerd did not start (log: $home/dockerd.log)"; }
  fi
  say "Docker engine $(docker version --format '{{.Server.Version}}') is reachable"
fi

# --- sandbox base image --------------------------------------------------------------------------
# Images are built one at a time on a host (debootstrap shares a package cache), as workers build them.
image_lock="$home/locks/images.lock"
mkdir -p "$home/locks"
export CHAINSMITH_DEBOOTSTRAP_CACHE="$home/cache/debootstrap"
cat_recipe() { (cd "$1" && LC_ALL=C ls | while read -r f; do cat "$f"; done); }
debootstrap_ready() {
  command -v debootstrap >/dev/null || apt_install debootstrap \
    || die "building sandbox images offline needs root and debootstrap (apt-get install debootstrap)"
  is_root || die "building sandbox images with debootstrap needs root"
}
if want image; then
  # The tag hashes the whole recipe (src/environments/images.ts computes the same), so a recipe edit rebuilds.
  tag="chainsmith-base:$(cat_recipe images/base | sha256sum | cut -c1-12)"
  if docker image inspect "$tag" >/dev/null 2>&1; then
    say "sandbox image $tag is cached"
  elif timeout 60 docker pull -q debian:bookworm-slim >/dev/null 2>&1; then
    say "building sandbox image $tag from debian:bookworm-slim (a registry answered)"
    docker build -q --network host -t "$tag" images/base >/dev/null
  else
    say "no registry answers: building sandbox image $tag from a debootstrap rootfs (first time only, about 2 minutes)"
    debootstrap_ready
    flock "$image_lock" bash -c 'docker image inspect "$1" >/dev/null 2>&1 || bash images/base/build.sh "$1"' build "$tag"
  fi
  say "sandbox image $tag is ready"
fi

# --- toolchain images ----------------------------------------------------------------------------
if want toolchains; then
  # CHAINSMITH_TOOLCHAINS="c node" builds only those.
  for dir in images/toolchains/*/; do
    name=$(basename "$dir")
    [[ " ${CHAINSMITH_TOOLCHAINS:-$name} " == *" $name "* ]] || continue
    tag="chainsmith-toolchain:$name-$( { cat_recipe images/base; cat_recipe "$dir"; } | sha256sum | cut -c1-12)"
    if docker image inspect "$tag" >/dev/null 2>&1; then
      say "toolchain image $tag is cached"
      continue
    fi
    say "building toolchain image $tag (debootstrap: $(sed 's/#.*//' "$dir/packages" | tr -s ' \n' ' '); first time only, a few minutes)"
    debootstrap_ready
    flock "$image_lock" bash -c 'docker image inspect "$1" >/dev/null 2>&1 || bash images/toolchain.sh "$1" "$2"' build "$tag" "$dir"
    say "toolchain image $tag is ready"
  done
fi

# --- Python `datasets`, moto -------------------------------------------------------------------------
if want python; then
  # The export test loads the JSONL the way trainers do, with datasets.load_dataset("json", ...).
  # A venv of its own keeps PyPI packages out of the system Python.
  venv="$home/python"
  if "$venv/bin/python" -c 'import datasets' >/dev/null 2>&1; then
    say "Python datasets $("$venv/bin/python" -c 'import datasets; print(datasets.__version__)') is ready in $venv"
  else
    command -v python3 >/dev/null || apt_install python3 python3-venv || die "no python3: install Python 3 (with venv) to run the dataset tests"
    say "creating a Python venv in $venv"
    if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
      apt_install python3-venv && python3 -m venv --clear "$venv" || die "python3 cannot create a venv: install python3-venv"
    fi
    say "installing datasets 4.8.5 from PyPI into $venv (first time only)"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-input "datasets==4.8.5" \
      || die "pip could not install datasets from PyPI into $venv"
  fi
  # The S3 artifact-store test runs moto's S3-compatible server on 127.0.0.1.
  if ! [ -x "$venv/bin/moto_server" ]; then
    say "installing moto[server] 5.1.22 from PyPI into $venv (first time only)"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-input "moto[server]==5.1.22" \
      || die "pip could not install moto[server] from PyPI into $venv"
  fi
fi

# --- S3 server (versitygw) ----------------------------------------------------------------------
if want s3; then
  # The scale-out test keeps the artifact store on a real S3 server: Versity's gateway over a directory.
  # Built from the Go module proxy; about 2 CPU-minutes the first time.
  export PATH="$PATH:$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin:/usr/local/go/bin"
  if ! command -v versitygw >/dev/null; then
    command -v go >/dev/null || die "no versitygw and no Go toolchain: install Go (https://go.dev/dl) to run the scale-out test"
    say "installing versitygw v1.8.0 with go install (first time only, a few minutes)"
    go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
  fi
  say "versitygw is installed at $(command -v versitygw)"
fi

# --- docker-compose ------------------------------------------------------------------------------
if want compose; then
  # The compose test runs `docker-compose config` on docker-compose.yml; Debian packages Compose v1.
  if ! command -v docker-compose >/dev/null && ! docker compose version >/dev/null 2>&1; then
    NEEDRESTART_SUSPEND=1 apt_install docker-compose || die "no docker-compose: install Docker Compose to run the compose-file test"
  fi
  say "$(docker-compose version --short 2>/dev/null || docker compose version --short) can check docker-compose.yml"
fi

# --- Chromium ------------------------------------------------------------------------------------
if want chromium; then
  # The report test opens the generated page in headless Chromium and screenshots it; Debian's
  # package is used as is (nothing downloads a browser).
  if ! command -v chromium >/dev/null; then
    NEEDRESTART_SUSPEND=1 apt_install chromium || die "no chromium: install it (Debian: apt-get install chromium) to run the report test"
  fi
  say "$(chromium --version 2>/dev/null | head -n 1) is installed at $(command -v chromium)"
fi
