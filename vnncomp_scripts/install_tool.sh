#!/usr/bin/env bash
# VNN-COMP: install_tool.sh v1 — builds knn (cargo build --release) in this repository.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_version "${1:-}"

if ! command -v cargo > /dev/null; then
    echo "cargo was not found: install Rust (https://rustup.rs), then run this script again" >&2
    exit 1
fi
cd "$ROOT"
cargo build --release
"$ROOT/target/release/knn" --version
