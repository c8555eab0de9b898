#!/usr/bin/env bash
# The system packages the whole test suite starts for real: etcd, NATS, Python gRPC, Chromium and kubectl.
# Run by `npm test` and by .ci/run. As root it installs what is missing with apt-get; otherwise it stops
# before the suite with the exact command to run. `npm run test:unit` needs none of them.
set -euo pipefail

missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
# The KServe gRPC test drives the server from Python's own client (Debian's modules, not pip's).
/usr/bin/python3 -c 'import grpc, grpc_tools' >/dev/null 2>&1 || missing+=(python3-grpcio python3-grpc-tools)
# The /docs test drives Swagger UI in headless Chromium (playwright-core, no bundled browser).
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The deploy/ test renders the kustomize overlays with `kubectl kustomize`.
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi

{
  echo "The test suite needs system packages that are missing: ${missing[*]}"
  if command -v apt-get >/dev/null 2>&1; then
    echo "Install them, then run npm test again:"
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
  else
    echo "Install them with your system's package manager (these are their Debian names), then run npm test again."
  fi
  echo "npm run test:unit runs the tests that need none of them."
} >&2
exit 1
