# Sourced by the SDK test scripts: installs TypeScript (npm, into a local
# folder) and mypy (a virtual environment) under $SVC_TEST_CACHE, idempotently,
# and sets TSC and MYPY.
SDK_TYPESCRIPT_VERSION="5.9.3"
SDK_MYPY_VERSION="2.4.1"

ensure_sdk_tools() {
  if ! command -v npm >/dev/null || ! command -v python3 >/dev/null; then
    echo "skipping: npm and python3 are needed to type-check the generated SDKs"
    exit 0
  fi
  local cache="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
  local node_dir="$cache/sdk-node"
  local have
  have="$(node -e 'try{process.stdout.write(require(process.argv[1]).version)}catch(e){}' "$node_dir/node_modules/typescript/package.json" 2>/dev/null || true)"
  if [ "$have" != "$SDK_TYPESCRIPT_VERSION" ]; then
    mkdir -p "$node_dir"
    npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error "typescript@$SDK_TYPESCRIPT_VERSION" >/dev/null
  fi
  TSC="$node_dir/node_modules/.bin/tsc"
  local venv="$cache/venv-sdk"
  if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
  if ! "$venv/bin/pip" freeze 2>/dev/null | grep -qx "mypy==$SDK_MYPY_VERSION"; then
    "$venv/bin/pip" install -q --disable-pip-version-check "mypy==$SDK_MYPY_VERSION"
  fi
  MYPY="$venv/bin/mypy"
}

# Builds the generator example once and sets SDKGEN, unless SDKGEN is set.
ensure_sdkgen() {
  local root="$1"
  if [ -z "${SDKGEN:-}" ]; then
    (cd "$root" && cargo build --quiet --release --locked -p sdkgen --example sdkgen)
    SDKGEN="${CARGO_TARGET_DIR:-$root/target}/release/examples/sdkgen"
  fi
}
