#!/usr/bin/env bash
# VNN-COMP: run_instance.sh v1 CATEGORY NETWORK PROPERTY RESULTS_FILE TIMEOUT — verifies one
# instance with `knn verify` and leaves its answer in RESULTS_FILE: `sat` and the witness,
# `unsat`, `timeout` or `unknown`. When knn cannot run the instance (a usage, I/O or parse
# error) the answer is `unknown` and knn's message goes to standard error.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_version "${1:-}"
if [ "$#" -ne 6 ]; then
    echo "usage: run_instance.sh v1 CATEGORY NETWORK PROPERTY RESULTS_FILE TIMEOUT" >&2
    exit 1
fi
results="$5"
timeout="$6"

# A results file left by an earlier run must not pass for this run's answer.
rm -f "$results"
status=0
network="$(readable_copy "$3")" && property="$(readable_copy "$4")" || status=$?
if [ "$status" -eq 0 ]; then
    "$KNN" verify "$network" --vnnlib "$property" --timeout "$timeout" --results "$results" --quiet || status=$?
fi
case "$status" in
    # holds, violated, unknown: knn wrote the results file.
    0 | 10 | 11) ;;
    *) echo "run_instance.sh: the instance could not be run (exit code $status): the answer is unknown" >&2 ;;
esac
if [ ! -f "$results" ]; then
    echo unknown > "$results"
fi
exit 0
