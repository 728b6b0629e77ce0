#!/usr/bin/env bash
# Installs what the tests need: Go modules, and the Debian packages of the
# integration tests (a real single-node Slurm). Idempotent; quiet when all is
# there already.
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download
bash test/slurm/install.sh
