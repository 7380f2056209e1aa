#!/usr/bin/env bash
# `npm test`: the whole suite — lint and format, types, unit, contract (sandbox over HTTP) and browser tests (Chromium).
# Works on a fresh machine: installs node_modules, and the Debian packages the tests use (below) when they are missing.
set -euo pipefail
export NEXT_TELEMETRY_DISABLED=1 # no telemetry notice in the build this runs
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund

# The browser tests run Debian's headless shell (playwright.config.ts: CHROMIUM); the full browser is for
# Lighthouse in bench:pages and the fallback where the shell is missing.
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}"
missing=()
[ -x "$chromium_path" ] || [ -n "${CHROMIUM_PATH:-}" ] || missing+=(chromium-headless-shell)
[ -x /usr/bin/chromium ] || [ -n "${CHROMIUM_PATH:-}" ] || missing+=(chromium)
# PostgreSQL: the store tests run on it as well as on the embedded database (they start their own server).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ -n "${PG_BIN:-}" ] || missing+=(postgresql)
# OpenSSH's server: the SFTP delivery tests start their own on a free loopback port.
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
# Prometheus: the metrics test starts a real one that scrapes two portals.
[ -x /usr/bin/prometheus ] || missing+=(prometheus)
# nginx and systemd's unit checker: the documented deployment (docs/deployment.md) is run and checked as written.
[ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl) # the deployment test's TLS certificate
command -v curl >/dev/null || missing+=(curl) # events.spec: a real client holding the event stream (curl -N)
[ -x /usr/bin/systemd-analyze ] || missing+=(systemd)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "[test] installing Debian's ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif [ ! -x "$chromium_path" ] && [ ! -x /usr/bin/chromium ]; then
    echo "[test] Chromium not found at $chromium_path. Install it (apt-get install -y chromium-headless-shell) or set CHROMIUM_PATH." >&2
    exit 1
  else
    echo "[test] ${missing[*]} not installed: those tests will say they were SKIPPED (apt-get install -y ${missing[*]})." >&2
  fi
fi

# Each step says how long it took and how busy the machine's cores were meanwhile (from /proc/stat):
# what a step could still gain by running beside another.
busy() { awk '/^cpu /{ print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8 }' /proc/stat 2>/dev/null || echo "0 0"; }
step_started=0
step_busy=""
step() {
  finish_step
  echo "[test] $*"
  step_started=$SECONDS
  step_busy="$(busy)"
  step_name="$1"
}
finish_step() {
  [ -n "$step_busy" ] || return 0
  read -r b0 t0 <<<"$step_busy"
  read -r b1 t1 <<<"$(busy)"
  local cores
  cores=$(nproc)
  echo "[test] step $step_name took $((SECONDS - step_started)) s, the cores $(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v n="$cores" 'BEGIN { printf "%.0f%%", t ? 100 * b / t : 0 }') busy"
  step_busy=""
}

step 1/4 "lint (ESLint), format (Prettier), architecture (dependency-cruiser: .dependency-cruiser.mjs) and types (tsc), side by side"
checks_dir="$(mktemp -d)"
run_check() { local name="$1"; shift; "$@" >"$checks_dir/$name.log" 2>&1; echo $? >"$checks_dir/$name.status"; }
run_check eslint npx eslint . --max-warnings 0 &
run_check tsc npx tsc --noEmit &
run_check depcruise npx depcruise lib app components scripts instrumentation.ts --output-type err &
run_check prettier npx prettier --check . &
wait
checks_failed=0
for name in eslint tsc depcruise prettier; do
  if [ "$(cat "$checks_dir/$name.status")" != 0 ]; then
    echo "[test] $name failed:"
    cat "$checks_dir/$name.log"
    checks_failed=1
  fi
done
[ "$checks_failed" -eq 0 ] || exit 1

step 2/4 "unit and contract tests"
npx vitest run

# The browser tests run the portal with a canary key, and the build is made with it too, so that
# tests/e2e/leak.spec.ts can prove it reaches no bundle, page, payload, header or cookie, and the
# scan below that it reaches no log line of any portal process.
canary="$(cat tests/e2e/canary-key)"
canary_b64="$(printf '%s' "$canary" | base64 -w0 | tr -d '=')"

step 3/4 "production build (with the canary key in the environment)"
PORTAL_BUILD_TYPES_CHECKED=1 PICKS_API_KEY="$canary" npx next build >/tmp/picks-portal-build.log 2>&1 || { cat /tmp/picks-portal-build.log; exit 1; }
# A fresh start must not alarm: a build that warns (Turbopack's "tracing of the whole project", say) fails here.
if grep -n "Warning:" /tmp/picks-portal-build.log; then
  echo "[test] the build warned (above; the whole output: /tmp/picks-portal-build.log)" >&2
  exit 1
fi

[ -x "$chromium_path" ] || chromium_path=/usr/bin/chromium # as playwright.config.ts falls back
step 4/4 "browser tests (Chromium at $chromium_path; every process's output goes to .data/e2e-logs/)"
e2e_log="$(mktemp)"
standalone_log="$(mktemp)"
rm -rf .data/e2e-logs
set +e
npx playwright test 2>&1 | tee "$e2e_log"
status=${PIPESTATUS[0]}
# The specs that start all their own servers (playwright.standalone.config.ts) run after the main suite: beside
# it, on two cores, the load made the main suite's timing-sensitive tests (one walk per poll period) flaky.
npx playwright test --config playwright.standalone.config.ts >"$standalone_log" 2>&1
standalone_status=$?
set -e
echo "[test] the self-contained browser specs, run after the others:"
cat "$standalone_log"
finish_step

# The canary scan runs whatever happened before it: a failed test must not hide a leaked key.
logs=("$e2e_log" "$standalone_log" .data/e2e-logs/*.log)
hits=$(cat "${logs[@]}" | grep -c -F -e "$canary" -e "$canary_b64" || true)
echo "[test] canary key in the portal and sandbox logs of the browser run (${#logs[@]} files): $hits occurrences"
[ "$hits" -eq 0 ] || grep -n -F -e "$canary" -e "$canary_b64" "${logs[@]}" | head

[ "$status" -eq 0 ] && [ "$standalone_status" -eq 0 ] && [ "$hits" -eq 0 ] || {
  # The main suite's summary again, last, so that the end of the output (all CI may keep) names what failed.
  [ "$status" -eq 0 ] || { echo "[test] the main browser suite failed:"; grep -E '^\s+[0-9]+ (failed|flaky|passed)|^\s+tests/e2e/.*›' "$e2e_log" | tail -20; }
  [ "$standalone_status" -eq 0 ] || { echo "[test] the self-contained specs failed:"; grep -E '^\s+[0-9]+ (failed|flaky|passed)|^\s+tests/e2e/.*›' "$standalone_log" | tail -20; }
  echo "[test] what every portal, sandbox and server printed in this run (one file each):" >&2
  ls -1 .data/e2e-logs/ | sed 's#^#  .data/e2e-logs/#' >&2
  exit 1
}
