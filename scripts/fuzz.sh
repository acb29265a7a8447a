#!/usr/bin/env bash
# Runs the fuzz targets one after the other (docs/testing.md, "Fuzzing"), one job each:
#   scripts/fuzz.sh [SECONDS] [TARGET…]
# Needs cargo-fuzz and a nightly toolchain; built as cargo-fuzz does by default: optimised, with
# debug assertions and overflow checks (an overflow is a panic, so a finding). The seeds (fuzz/corpus/TARGET) are read, never
# written: what libFuzzer finds goes to fuzz/corpus-grown/TARGET (not in the repository), a
# crash to fuzz/artifacts/TARGET (a target stops at its first crash, the next one starts).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-240}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(parse_and_check run_engines npy nnet onnx vnnlib cli_input verify_exhaustive)
fi
for target in "${targets[@]}"; do
    mkdir -p "corpus-grown/$target" "artifacts/$target"
    echo "== $target: up to 1000000 runs or ${seconds}s"
    cargo +nightly fuzz run "$target" "corpus-grown/$target" "corpus/$target" -- \
        -runs=1000000 -max_total_time="$seconds" -max_len=8192 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 || echo "== $target: stopped on a finding"
done
