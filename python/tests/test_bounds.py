"""The `bounds=` keyword of every verifying entry point (`knn verify --bounds`): a region's
decimal bounds read as written (the default), or each as the binary64 number nearest it.

The network is `y = (x0, -x0)`: a 2×1 `linear` with weights 1 and -1, exact at every input.
The answers below are worked out by hand from it:

- No binary64 number is 0.1: the two nearest are 0.09999999999999999167… and
  0.1000000000000000055511151231257827… (Python's `0.1`, the nearer, so also the nearest).
  `0.1 <= X_0 <= 0.1` as written holds no binary64 point: `unknown`, `empty-region`.
- Read as nearest, X_0 is exactly `0.1` (the float), so Y_0 = 0.1000000000000000055…, which is
  *above* the real 0.1: `Y_0 >= 0.1` is reached (violated, at X_0 = 0.1) and `Y_0 <= 0.1` is not
  (holds).
- With u = 2^-52, `1 + u` is the binary64 number after 1. The ball around 1 of radius 0.75·u,
  clipped to [1 + u, 2], is [1 + u, 1 + 0.75·u] as written: empty. Read as nearest, its upper
  end 1 + 0.75·u is 0.25·u from 1 + u and 0.75·u from 1, so it becomes 1 + u: the region is the
  point 1 + u, where Y_0 = 1 + u > Y_1 = -(1 + u): class 0.
"""

from __future__ import annotations

import pytest

import knn

IDENTITY = "let W = initTensor(2, 1)[1.0, -1.0] in\nlet y = linear(W, x) in y\n"
U = 2.0**-52
BALL = dict(around=[1.0], eps=0.75 * U, clip=(1.0 + U, 2.0))


def pinned(x0: str, unsafe: str) -> str:
    """A VNN-LIB property: X_0 pinned to the decimal `x0`, and the unsafe outputs `unsafe`."""
    return ("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n"
            f"(assert (>= X_0 {x0}))\n(assert (<= X_0 {x0}))\n(assert {unsafe})\n")


@pytest.fixture
def files(tmp_path):
    """The network's file, and a writer of property files beside it."""
    network = tmp_path / "identity.knn"
    network.write_text(IDENTITY)

    def prop(x0: str, unsafe: str) -> str:
        path = tmp_path / f"p{len(list(tmp_path.iterdir()))}.vnnlib"
        path.write_text(pinned(x0, unsafe))
        return str(path)

    return str(network), prop


def both_vnnlib_entry_points(network: str, prop: str, **kwargs):
    """The answers of `knn.verify_vnnlib` and `Network.verify_vnnlib`, which must agree."""
    loaded = knn.verify_vnnlib(network, prop, **kwargs)
    method = knn.load(network).verify_vnnlib(prop, **kwargs)
    assert (loaded.answer, loaded.reason) == (method.answer, method.reason)
    return loaded, method


@pytest.mark.parametrize("kwargs", [{}, {"bounds": "as-written"}])
def test_a_decimal_no_binary64_number_equals_is_an_empty_region_by_default(files, kwargs):
    network, prop = files
    for result in both_vnnlib_entry_points(network, prop("0.1", "(>= Y_0 0.1)"), **kwargs):
        assert (result.answer, result.reason, result.word, result.exit_code) == (
            "unknown", "empty-region", "unknown:empty-region", 11)
        assert "element 0's range" in result.detail


def test_read_as_nearest_the_pinned_input_is_the_float_and_is_answered(files):
    network, prop = files
    for result in both_vnnlib_entry_points(network, prop("0.1", "(>= Y_0 0.1)"), bounds="nearest"):
        assert (result.answer, result.exit_code) == ("violated", 10)
        assert result.counterexample.input.tolist() == [0.1]
        assert result.counterexample.output.tolist() == [0.1, -0.1]
    for result in both_vnnlib_entry_points(network, prop("0.1", "(<= Y_0 0.1)"), bounds="nearest"):
        assert (result.answer, result.exit_code, result.results) == ("holds", 0, "unsat\n")


def test_a_bound_that_is_a_binary64_number_reads_the_same_both_ways(files):
    network, prop = files
    path = prop("0.25", "(>= Y_0 0.25)")
    for bounds in ("as-written", "nearest"):
        result = knn.verify_vnnlib(network, path, bounds=bounds)
        assert result.answer == "violated" and result.counterexample.input.tolist() == [0.25]


def test_a_ball_whose_computed_end_is_read_as_nearest(tmp_path):
    network = tmp_path / "identity.knn"
    network.write_text(IDENTITY)
    net = knn.load(str(network))
    empty = net.verify(claim="argmax=1", **BALL)
    assert (empty.answer, empty.reason) == ("unknown", "empty-region")
    violated = net.verify(claim="argmax=1", bounds="nearest", **BALL)
    assert violated.answer == "violated"
    assert violated.counterexample.input.tolist() == [1.0 + U] and violated.counterexample.class_ == 0
    holds = net.verify(claim="argmax=0", bounds="nearest", **BALL)
    assert (holds.answer, holds.class_) == ("holds", 0)


@pytest.mark.parametrize("bounds", ["exact", "Nearest", "as_written", ""])
def test_another_value_is_a_value_error_naming_the_accepted_ones(files, bounds):
    network, prop = files
    path = prop("0.1", "(>= Y_0 0.1)")
    message = f'bounds="{bounds}": expected "as-written" or "nearest"'
    calls = [
        lambda: knn.verify_vnnlib(network, path, bounds=bounds),
        lambda: knn.load(network).verify_vnnlib(path, bounds=bounds),
        lambda: knn.load(network).verify(bounds=bounds, **BALL),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=message) as raised:
            call()
        assert isinstance(raised.value, knn.UsageError)
