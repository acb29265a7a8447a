# Shared by the VNN-COMP scripts (sourced, not run): the repository root, the knn binary, the
# version check, and the decompression of gzipped networks and properties.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KNN="${KNN_BIN:-$ROOT/target/release/knn}"
VERSION_STRING=v1

check_version() {
    if [ "${1:-}" != "$VERSION_STRING" ]; then
        echo "expected the version string '$VERSION_STRING' as first argument, got '${1:-}'" >&2
        exit 1
    fi
}

# VNN-COMP ships some networks and properties gzipped (`net.onnx.gz`). Prints the path of a
# file knn can read: FILE itself, or its decompressed copy in the work folder (kept between
# prepare_instance.sh and run_instance.sh, so the decompression is not counted in the
# instance's time; the name carries a checksum of the full path, so that two benchmarks'
# `prop_1.vnnlib.gz` do not collide).
readable_copy() {
    local file="$1"
    case "$file" in
        *.gz) ;;
        *) printf '%s\n' "$file"; return 0 ;;
    esac
    # Called in $(…), where `set -e` does not apply: every step checks its own failure.
    local work="${KNN_VNNCOMP_WORK:-${TMPDIR:-/tmp}/knn-vnncomp-$(id -u)}"
    mkdir -p "$work" || return 1
    local absolute key copy
    absolute="$(cd "$(dirname "$file")" && pwd)/$(basename "$file")" || return 1
    key="$(printf '%s' "$absolute" | cksum | cut -d' ' -f1)" || return 1
    copy="$work/$key-$(basename "${file%.gz}")"
    if [ ! -f "$copy" ] || [ "$file" -nt "$copy" ]; then
        # Decompressed beside its final name, then renamed: a reader never sees half a file.
        if ! gzip -dc "$file" > "$copy.$$.tmp" || ! mv "$copy.$$.tmp" "$copy"; then
            rm -f "$copy.$$.tmp"
            echo "$file: cannot decompress it into $work" >&2
            return 1
        fi
    fi
    printf '%s\n' "$copy"
}
