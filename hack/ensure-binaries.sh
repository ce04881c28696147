#!/usr/bin/env bash
# Builds (once) and caches the control-plane binaries the integration tests run:
# kcp, kube-apiserver and etcd, from the Go module proxy via the wrapper modules in
# hack/kcp, hack/kube-apiserver and hack/etcd. Versions: hack/versions.env. A sharded kcp
# also runs kcp's front-proxy and cache server, built from the same kcp module (hack/kcp);
# after kcp they reuse its compiled packages, so they add little to a cold build.
#
#   hack/ensure-binaries.sh               build what is missing, print nothing on stdout
#   hack/ensure-binaries.sh --print-env   ... then print RXFLEET_*_BIN=<path> lines on stdout
#   hack/ensure-binaries.sh --only kcp    restrict to some of: kcp kube-apiserver etcd
#                                         kcp-front-proxy kcp-cache-server
#   hack/ensure-binaries.sh --only promtool   Prometheus's promtool (for deploy/monitoring's
#                                         tests): built only when named, never by default
#
# Per binary: the env override (RXFLEET_KCP_BIN, RXFLEET_KUBE_APISERVER_BIN, RXFLEET_ETCD_BIN,
# RXFLEET_KCP_FRONT_PROXY_BIN, RXFLEET_KCP_CACHE_SERVER_BIN) wins if set; else ${RXFLEET_CACHE_DIR:-$HOME/.cache/rxfleet}/bin/<name>-<version>
# is used, built there first if missing (into a temp file, then an atomic rename, under a
# lock so that concurrent callers build once). Progress goes to stderr.
set -euo pipefail

HACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "${HACK_DIR}/versions.env"

CACHE_DIR="${RXFLEET_CACHE_DIR:-${HOME}/.cache/rxfleet}"
BIN_DIR="${CACHE_DIR}/bin"

print_env=0
only=()
while (($#)); do
  case "$1" in
    --print-env) print_env=1 ;;
    --only)
      shift
      case "${1:-}" in
        kcp | kube-apiserver | etcd | kcp-front-proxy | kcp-cache-server | promtool) only+=("$1") ;;
        *) echo "rxfleet: --only takes one of: kcp kube-apiserver etcd kcp-front-proxy kcp-cache-server promtool" >&2; exit 2 ;;
      esac
      ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rxfleet: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

log() { echo "rxfleet: $*" >&2; }

# A build writes to a temp file that is renamed into place only when complete; if the script
# dies first, the temp file is removed here (and stale ones from a SIGKILLed run under the lock).
CLEANUP_TMP=""
CHILD_PID=""
cleanup() {
  if [[ -n "$CHILD_PID" ]]; then kill -TERM "$CHILD_PID" 2>/dev/null || true; wait "$CHILD_PID" 2>/dev/null || true; fi
  if [[ -n "$CLEANUP_TMP" ]]; then rm -f "$CLEANUP_TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a command in the background and waits, so that an INT/TERM reaches `cleanup` (which
# stops the command) at once instead of after the command ends.
run() {
  "$@" &
  CHILD_PID=$!
  local rc=0
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=""
  return "$rc"
}

wanted() {
  ((${#only[@]} == 0)) && return 0
  named "$1"
}

# Named by --only (promtool is built only then).
named() {
  local n
  for n in "${only[@]}"; do [[ "$n" == "$1" ]] && return 0; done
  return 1
}

find_go() {
  if command -v go >/dev/null 2>&1; then command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then echo /usr/local/go/bin/go
  else log "Go toolchain not found (need go >= 1.26 on PATH or in /usr/local/go)"; return 1
  fi
}

# build <name> <version> <wrapper dir> <module the version belongs to> <package> <ldflags> <out> [build tags]
build() {
  local name=$1 version=$2 dir=$3 module=$4 pkg=$5 ldflags=$6 out=$7 tags=${8:-}
  local go; go="$(find_go)"
  if ! grep -Eq "^[[:space:]]*(require[[:space:]]+)?${module//./\\.}[[:space:]]+${version//./\\.}([[:space:]]|$)" "${dir}/go.mod"; then
    log "hack/$(basename "$dir")/go.mod does not require ${module} ${version} (hack/versions.env); regenerate the wrapper (hack/README.md)"
    return 1
  fi
  mkdir -p "$BIN_DIR"
  rm -f "${BIN_DIR}/.${name}-${version}.tmp."*
  local tmp; tmp="$(mktemp "${BIN_DIR}/.${name}-${version}.tmp.XXXXXX")"
  CLEANUP_TMP="$tmp"
  local t0 t1 t2
  t0=$(date +%s)
  log "downloading Go modules for ${name} ${version}..."
  run env -C "$dir" GOFLAGS="-mod=readonly -buildvcs=false" "$go" mod download >&2
  t1=$(date +%s)
  log "compiling ${name} ${version} (module download took $((t1 - t0))s)..."
  run env -C "$dir" CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
    "$go" build -trimpath ${tags:+-tags "$tags"} -ldflags "-s -w ${ldflags}" -o "$tmp" "$pkg" >&2
  t2=$(date +%s)
  chmod 0755 "$tmp"
  mv -f "$tmp" "$out"
  CLEANUP_TMP=""
  log "built ${out} in $((t2 - t0))s (download $((t1 - t0))s, compile+link $((t2 - t1))s)"
}

# ensure <name> <env var> <version> <module> <package> <ldflags> <approx minutes> [build tags] [wrapper]
# (the minutes: a cold build on a fresh 2-core machine, rounded up; hack/README.md has the figures;
# the wrapper module directory under hack/ defaults to <name>)
ensure() {
  local name=$1 var=$2 version=$3 module=$4 pkg=$5 ldflags=$6 minutes=$7 tags=${8:-} wrapper=${9:-$1}
  local override="${!var:-}"
  local path
  if [[ -n "$override" ]]; then
    if [[ ! -x "$override" ]]; then log "${var}=${override} is not an executable file"; return 1; fi
    path="$override"
  else
    path="${BIN_DIR}/${name}-${version}"
    if [[ ! -x "$path" ]]; then
      mkdir -p "$BIN_DIR"
      # One builder at a time per binary; the others wait and then find it built.
      exec {lock_fd}>"${BIN_DIR}/.${name}-${version}.lock"
      if command -v flock >/dev/null 2>&1; then flock "$lock_fd"; fi
      if [[ ! -x "$path" ]]; then
        log "building ${name} ${version} (one-time, ~${minutes} min on a fresh 2-core machine, more under load)..."
        build "$name" "$version" "${HACK_DIR}/${wrapper}" "$module" "$pkg" "$ldflags" "$path" "$tags"
      fi
      exec {lock_fd}>&-
    fi
  fi
  ((print_env)) && echo "${var}=${path}"
  return 0
}

kube_ldflags() { # <gitVersion> <major> <minor>
  local v=$1 maj=$2 min=$3 p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean ' \
      "$p" "$v" "$p" "$maj" "$p" "$min" "$p"
  done
}

major() { local v=${1#v}; echo "${v%%.*}"; }
minor() { local v=${1#v}; v=${v#*.}; echo "${v%%.*}"; }
# The Kubernetes version kcp is based on, as its own Makefile stamps it.
KCP_KUBE_VERSION="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ {print $2; exit}' "${HACK_DIR}/kcp/go.mod")"

if wanted etcd; then
  ensure etcd RXFLEET_ETCD_BIN "$ETCD_VERSION" go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 \
    "" 2
fi
if wanted kube-apiserver; then
  ensure kube-apiserver RXFLEET_KUBE_APISERVER_BIN "$KUBE_APISERVER_VERSION" k8s.io/kubernetes \
    k8s.io/kubernetes/cmd/kube-apiserver "$(kube_ldflags "$KUBE_APISERVER_VERSION" "$(major "$KUBE_APISERVER_VERSION")" "$(minor "$KUBE_APISERVER_VERSION")")" 9
fi
if wanted kcp; then
  # kcp reports "<kube version>+kcp-<kcp version>" like its own Makefile does.
  ensure kcp RXFLEET_KCP_BIN "$KCP_VERSION" github.com/kcp-dev/kcp github.com/kcp-dev/kcp/cmd/kcp \
    "$(kube_ldflags "${KCP_KUBE_VERSION}+kcp-${KCP_VERSION}" "$(major "$KCP_KUBE_VERSION")" "$(minor "$KCP_KUBE_VERSION")")" 11
fi
# The sharded kcp's other servers, from the same kcp module and wrapper (hack/kcp). After kcp
# they compile only their own packages: well under a minute each (hack/README.md).
KCP_LDFLAGS="$(kube_ldflags "${KCP_KUBE_VERSION}+kcp-${KCP_VERSION}" "$(major "$KCP_KUBE_VERSION")" "$(minor "$KCP_KUBE_VERSION")")"
if wanted kcp-front-proxy; then
  ensure kcp-front-proxy RXFLEET_KCP_FRONT_PROXY_BIN "$KCP_VERSION" github.com/kcp-dev/kcp \
    github.com/kcp-dev/kcp/cmd/kcp-front-proxy "$KCP_LDFLAGS" 1 "" kcp
fi
if wanted kcp-cache-server; then
  ensure kcp-cache-server RXFLEET_KCP_CACHE_SERVER_BIN "$KCP_VERSION" github.com/kcp-dev/kcp \
    github.com/kcp-dev/kcp/cmd/cache-server "$KCP_LDFLAGS" 1 "" kcp
fi
if named promtool; then
  # The Prometheus module's v0.3NN.P is Prometheus 3.NN.P; `remove_all_sd` leaves out the service
  # discovery plugins (cloud SDKs) that rule checks and rule unit tests never use.
  p=${PROMTOOL_VERSION#v0.}
  ensure promtool RXFLEET_PROMTOOL_BIN "$PROMTOOL_VERSION" github.com/prometheus/prometheus \
    github.com/prometheus/prometheus/cmd/promtool \
    "-X github.com/prometheus/common/version.Version=$((${p%%.*} / 100)).$((${p%%.*} % 100)).${p#*.}" \
    3 remove_all_sd
fi
