"""The numpy peer of the `crown` bench: one CROWN pass on `mnist-net_256x6` for 1, 64 and 1,024
subdomains, in numpy float64, batched over the subdomains with matrix products (the way a
Python bound propagator does it), beside knn's times from criterion, as ratios.

Requires Python 3 and numpy (pinned in `benches/peers/requirements.txt`; only numpy is used).
Reads the files of `cargo run --release -p knn-benches --example crown_data -- DIR`: the same
weights, box, bounds after one tightening and subdomains as the bench. `benches/peers/crown`
does everything in one command.

The pass is plain CROWN with knn's relaxation of an unstable relu (upper line the chord; lower
line slope 0 or 1, whichever end loses less area, and the chord's slope; the better bound of
the two per row) and no rounding charges: knn's pass also charges the engine's and its own
rounding so that its bound holds for the binary64 network, which this one does not. Each
subdomain's bounds are its own arrays (as in a tool that keeps per-subdomain bounds); the
relaxation is computed inside the timed pass, as knn prepares its layers inside its pass.

numpy runs on one thread (OPENBLAS_NUM_THREADS=1, unless set), as the bench does.

Usage: crown_numpy.py DATA_DIR [CRITERION_DIR] [REPEATS]
"""

import json
import os
import sys
import timeit
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402 (after the thread count is set)

COUNTS = (1, 64, 1024)


def load(directory: Path):
    weights = []
    while (directory / f"W{len(weights)}.npy").exists():
        k = len(weights)
        weights.append((np.load(directory / f"W{k}.npy"), np.load(directory / f"b{k}.npy")))
    pre = [
        (np.load(directory / f"pre{r}_lo.npy"), np.load(directory / f"pre{r}_hi.npy"))
        for r in range(len(weights) - 1)
    ]
    return {
        "layers": weights,
        "pre": pre,
        "lo": np.load(directory / "lo.npy"),
        "hi": np.load(directory / "hi.npy"),
        "rows": np.load(directory / "rows.npy"),
        "fix_index": np.load(directory / "fix_index.npy"),
        "fix_positive": np.load(directory / "fix_positive.npy").astype(bool),
        "knn_bounds": np.load(directory / "knn_bounds.npy"),
    }


def subdomain_bounds(data, n):
    """Per relu layer, (lo, hi) of shape (n, width): the root's, the first layer's relus of each
    subdomain cut to their sign (not timed)."""
    bounds = [(np.tile(lo, (n, 1)), np.tile(hi, (n, 1))) for lo, hi in data["pre"]]
    lo, hi = bounds[0]
    for f in range(data["fix_index"].shape[1]):
        index, positive = data["fix_index"][:n, f], data["fix_positive"][:n, f]
        fixed = index >= 0
        at = np.nonzero(fixed)[0]
        i, p = index[fixed], positive[fixed]
        lo[at[p], i[p]] = 0.0
        hi[at[~p], i[~p]] = 0.0
    return bounds


def relaxation(lo, hi, adaptive):
    """Lower slope, upper slope and upper intercept of relu on [lo, hi], elementwise."""
    unstable = (lo < 0.0) & (hi > 0.0)
    active = (lo >= 0.0).astype(np.float64)
    chord = np.where(unstable, hi / np.where(unstable, hi - lo, 1.0), active)
    intercept = np.where(unstable, -chord * lo, 0.0)
    lower = np.where(unstable, (hi >= -lo).astype(np.float64), active) if adaptive else chord
    return lower, chord, intercept


def crown(data, bounds, adaptive):
    """Lower bounds (n, rows) of rows·y over the box, one relaxation for all relus."""
    layers, rows = data["layers"], data["rows"]
    n, m = bounds[0][0].shape[0], rows.shape[0]
    w, b = layers[-1]
    a = np.broadcast_to(rows @ w, (n, m, w.shape[1]))
    const = np.broadcast_to(rows @ b, (n, m)).copy()
    for k in range(len(layers) - 2, -1, -1):
        lower, upper, intercept = relaxation(*bounds[k], adaptive)
        positive, negative = np.maximum(a, 0.0), np.minimum(a, 0.0)
        const += np.einsum("nmj,nj->nm", negative, intercept)
        a = positive * lower[:, None, :] + negative * upper[:, None, :]
        w, b = layers[k]
        const += a @ b
        a = (a.reshape(n * m, -1) @ w).reshape(n, m, -1)
    return const + np.maximum(a, 0.0) @ data["lo"] + np.minimum(a, 0.0) @ data["hi"]


def crown_pass(data, bounds):
    return np.maximum(crown(data, bounds, True), crown(data, bounds, False))


def knn_seconds(criterion: Path, group: str, n: int):
    """criterion's mean for one iteration of `group/n`, in seconds, when it was measured."""
    for name in (group.replace("/", "_"), group):
        path = criterion / name / str(n) / "new" / "estimates.json"
        if path.exists():
            return json.loads(path.read_text())["mean"]["point_estimate"] * 1e-9
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = load(Path(sys.argv[1]))
    criterion = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    checked = data["knn_bounds"]
    found = crown_pass(data, subdomain_bounds(data, checked.shape[0]))
    # knn's bounds charge rounding, so they are below these by a little, never above by more
    # than rounding.
    gap = found - checked
    print(f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, load {os.getloadavg()}")
    print(f"root bounds: numpy {np.array2string(found[0], precision=6)}")
    print(f"numpy − knn over {checked.shape[0]} subdomains: min {gap.min():.3e}, max {gap.max():.3e}")
    print("| subdomains | knn `crown/pass` (criterion mean) | numpy (best of {}) | knn / numpy |".format(repeats))
    print("| --- | --- | --- | --- |")
    for n in COUNTS:
        bounds = subdomain_bounds(data, n)
        number = max(1, 64 // n)
        best = min(timeit.repeat(lambda: crown_pass(data, bounds), number=number, repeat=repeats)) / number
        knn = knn_seconds(criterion, "crown/pass", n) if criterion else None
        ratio = f"{knn / best:.2f}" if knn else "—"
        knn_text = f"{knn * 1e3:.2f} ms" if knn else "—"
        print(f"| {n} | {knn_text} | {best * 1e3:.2f} ms | {ratio} |")


if __name__ == "__main__":
    main()
