#!/usr/bin/env bash
# VNN-COMP: prepare_instance.sh v1 CATEGORY NETWORK PROPERTY — checks that knn can take this
# instance (exit 0) or not (exit 1: the harness skips it). Any category is accepted; the
# network must be one knn imports (.onnx, .nnet, or a .knn program), gzipped or not. Gzipped
# files are decompressed here, ahead of the timed run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_version "${1:-}"
if [ "$#" -ne 4 ]; then
    echo "usage: prepare_instance.sh v1 CATEGORY NETWORK PROPERTY" >&2
    exit 1
fi
network="$3"
property="$4"

for file in "$network" "$property"; do
    if [ ! -f "$file" ]; then
        echo "$file: no such file" >&2
        exit 1
    fi
done
if [ ! -x "$KNN" ]; then
    echo "$KNN: knn is not built (run install_tool.sh v1)" >&2
    exit 1
fi

network="$(readable_copy "$network")"
readable_copy "$property" > /dev/null
case "$network" in
    *.onnx | *.nnet)
        # The import itself says whether knn supports every operator of the network.
        if ! "$KNN" import "$network" -o - > /dev/null; then
            echo "$network: knn cannot import this network" >&2
            exit 1
        fi
        ;;
    *.knn) ;;
    *)
        echo "$network: knn reads .onnx, .nnet and .knn networks" >&2
        exit 1
        ;;
esac
exit 0
