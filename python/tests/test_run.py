"""Network.run: the bits `knn batch` writes, row for row, on the ACAS Xu and MNIST networks and
the examples; arrays in every layout and dtype the package takes; and the arrays it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import knn
from conftest import cli, repo, same_bits

NETWORKS = [
    ("data/acasxu/ACASXU_experimental_v2a_1_1.nnet", 5),
    ("data/acasxu/ACASXU_experimental_v2a_3_7.nnet", 5),
    ("data/acasxu/ACASXU_experimental_v2a_1_1.onnx", 5),
    ("data/mnist/mnist10x10.nnet", 784),
    ("data/mnist/mnist20x40.nnet", 784),
    ("data/small/fc_2-2sigmoids-3.onnx", 2),
]


def batch_by_the_command(tmp_path, network: str, x: np.ndarray, name: str = "x") -> np.ndarray:
    inputs, out = tmp_path / "inputs.npy", tmp_path / "out.npy"
    np.save(inputs, x)
    cli("batch", repo(network), "--input", f"{name}={inputs}", "-o", str(out))
    return np.load(out)


@pytest.mark.parametrize("network,width", NETWORKS)
def test_rows_get_the_bits_of_the_command(tmp_path, network, width):
    rng = np.random.default_rng(width)
    x = rng.uniform(-1.0, 1.0, size=(300, width))
    net = knn.load(repo(network))
    assert net.input_len == width
    got = net.run(x)
    expected = batch_by_the_command(tmp_path, network, x, net.input_name)
    assert same_bits(got, expected), f"{network}: the package and `knn batch` differ"
    # One row alone is that row of the batch, as a vector.
    assert same_bits(net.run(x[7]), got[7])


def test_a_program_of_classes_gives_int64_classes(tmp_path):
    net = knn.load(repo("examples/mlp.knn"))
    x = np.load(repo("examples/inputs.npy"))
    classes = net.run(x)
    assert classes.dtype == np.int64 and classes.shape == (x.shape[0],)
    assert same_bits(classes, batch_by_the_command(tmp_path, "examples/mlp.knn", x).astype(np.int64))
    # By hand (see cli/tests/cli_verify.rs): (1, -2, 0.5) is class 0, (0, 1, 0) class 1.
    assert net.run(np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 0.0]])).tolist() == [0, 1]
    assert net.run([0.0, 1.0, 0.0]) == 1


def test_every_kind_of_result_keeps_its_shape_and_dtype_even_with_no_rows(tmp_path):
    acas = knn.load(repo("data/acasxu/ACASXU_experimental_v2a_1_1.nnet"))
    none = acas.run(np.zeros((0, 5)))
    assert none.shape == (0, 5) and none.dtype == np.float64
    classes = knn.load(repo("examples/mlp.knn")).run(np.zeros((0, 3)))
    assert classes.shape == (0,) and classes.dtype == np.int64
    path = tmp_path / "sum.knn"
    path.write_text("x[0] + x[1]")
    total = knn.load(str(path))
    sums = total.run(np.array([[1.0, 2.0], [3.0, 0.5]]))
    assert sums.dtype == np.float64 and sums.tolist() == [3.0, 3.5]
    one = total.run(np.array([0.5, 0.25]))
    assert isinstance(one, float) and one == 0.75


def test_float32_strided_and_fortran_arrays_give_the_same_bits():
    net = knn.load(repo("data/acasxu/ACASXU_experimental_v2a_1_1.nnet"))
    rng = np.random.default_rng(1)
    x32 = rng.uniform(-1, 1, size=(64, 5)).astype(np.float32)
    x = x32.astype(np.float64)
    reference = net.run(x)
    assert same_bits(net.run(x32), reference)
    assert same_bits(net.run(np.asfortranarray(x)), reference)
    wide = np.zeros((64, 10))
    wide[:, ::2] = x
    assert same_bits(net.run(wide[:, ::2]), reference)  # a strided view
    assert same_bits(net.run(x[::-1]), reference[::-1])
    assert same_bits(net.run(x.tolist()), reference)  # lists go through numpy.asarray


def test_fixed_inputs_and_the_input_name(tmp_path):
    path = tmp_path / "lin.knn"
    path.write_text("let y = linear(W, x) in y")
    net = knn.load(str(path))
    w = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
    # y = W·x, summed in order: (1+2, 3+4, 0.5-1) and (2-2, 6-4, 1+1).
    y = net.run(np.array([[1.0, 1.0], [2.0, -1.0]]), inputs={"W": w})
    assert y.tolist() == [[3.0, 7.0, -0.5], [0.0, 2.0, 2.0]]
    with pytest.raises(knn.UsageError, match=r"several free inputs \(W, x\)"):
        net.run(np.ones((1, 2)))


@pytest.mark.parametrize(
    "x,message",
    [
        (np.zeros((2, 3, 5)), "3 dimensions"),
        (np.float64(1.0), "0 dimensions"),
        (np.zeros((2, 4)), "rows of 4 elements, but the network's input `x` has 5"),
        (np.zeros((2, 5), dtype=np.int64), "dtype int64: expected float64 or float32"),
        (np.array([[0.0, 0.0, np.nan, 0.0, 0.0]]), r"x\[0, 2\] is NaN"),
        # The first NaN, in a later block of the scan than the first.
        (np.where(np.arange(1500).reshape(300, 5) % 1001 == 1000, np.nan, 0.0), r"x\[200, 0\] is NaN"),
        # Rows run in groups, in parallel: the first NaN in row order, not the first found.
        (np.where(np.isin(np.arange(3500), [3001, 1403]), np.nan, 0.0).reshape(700, 5), r"x\[280, 3\] is NaN"),
        (np.array(["a", "b"]), "dtype"),
    ],
)
def test_bad_arrays_are_refused_with_a_clear_message(x, message):
    net = knn.load(repo("data/acasxu/ACASXU_experimental_v2a_1_1.nnet"))
    with pytest.raises(knn.UsageError, match=message) as caught:
        net.run(x)
    assert caught.value.kind == "usage" and caught.value.fault == "caller" and caught.value.exit_code == 1
    assert isinstance(caught.value, ValueError)


def test_a_rows_run_time_error_names_the_row_and_the_place(tmp_path):
    path = tmp_path / "index.knn"
    path.write_text("let a = x[0] in\na + x[2]")
    net = knn.load(str(path))
    assert net.run(np.array([[1.0, 2.0, 3.0]])).tolist() == [4.0]
    with pytest.raises(knn.ProgramError) as caught:
        net.run(np.array([[1.0, 2.0]]))
    error = caught.value
    assert error.kind == "runtime" and error.error_id == "index-out-of-bounds" and error.exit_code == 3
    assert (error.file, error.line) == (str(path), 2)
    assert error.message.startswith("row 0: ")


def test_threads_are_checked_and_give_the_same_bits():
    net = knn.load(repo("data/acasxu/ACASXU_experimental_v2a_1_1.nnet"))
    x = np.random.default_rng(3).uniform(-1, 1, size=(5000, 5))
    assert same_bits(net.run(x, threads=1), net.run(x, threads=2))
    with pytest.raises(knn.UsageError, match="threads=0"):
        net.run(x, threads=0)
