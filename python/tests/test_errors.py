"""Every kind of failure raises its exception, with the place, the kind, whose fault it is and
the exit code the `knn` command gives for the same input."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import knn
from conftest import cli, repo


def test_a_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(knn.FileError) as caught:
        knn.load(str(tmp_path / "none.knn"))
    error = caught.value
    assert isinstance(error, OSError) and isinstance(error, knn.KnnError)
    assert (error.kind, error.fault, error.exit_code) == ("io", "caller", 1)
    assert "none.knn" in error.message


def test_a_malformed_network_is_an_import_error(tmp_path):
    bad = tmp_path / "bad.nnet"
    bad.write_text("// a header and nothing else\n")
    with pytest.raises(knn.NetworkImportError) as caught:
        knn.load(str(bad))
    assert (caught.value.kind, caught.value.exit_code) == ("import", 1)
    assert cli("run", str(bad), check_codes=(1,)).returncode == caught.value.exit_code


def test_a_syntax_error_is_a_parse_error_at_its_place(tmp_path):
    path = tmp_path / "bad.knn"
    path.write_text("let x = 1.0 in\nlet in x")
    with pytest.raises(knn.ParseError) as caught:
        knn.load(str(path))
    error = caught.value
    assert (error.file, error.line, error.column) == (str(path), 2, 5)
    assert (error.kind, error.fault, error.exit_code) == ("parse", "program", 2)
    assert str(error).startswith(f"{path}:2:5: ")
    assert "let in x" in error.rendered  # the source line under the message
    assert f"{path}:2:5: unexpected `in`" in cli("run", str(path), check_codes=(2,)).stderr


def test_an_unbound_name_is_a_static_error():
    with pytest.raises(knn.StaticError) as caught:
        knn.run_source("let y = 1.0 in\nz + y", name="unbound.knn")
    error = caught.value
    assert (error.file, error.line, error.column, error.exit_code) == ("unbound.knn", 2, 1, 2)
    assert "`z` is not bound" in error.message


def test_a_run_time_error_is_in_the_report_and_raised_on_demand():
    report = knn.run_source("let t = initTensor(2) in\nt[5]", name="oob.knn")
    assert report.status == "error" and report.exit_code == 3 and report.value is None
    error = report.error
    assert isinstance(error, knn.ProgramError)
    assert (error.error_id, error.file, error.line, error.column) == ("index-out-of-bounds", "oob.knn", 2, 1)
    with pytest.raises(knn.ProgramError):
        report.raise_for_status()


def test_krun_aborts_under_the_published_rules():
    source = "let t = initTensor(2) in let t = initTensor(3) in t[0]"
    report = knn.run_source(source, semantics="published")
    assert report.status == "error" and isinstance(report.error, knn.AbortError)
    assert report.error.kind == "aborted" and "duplicate keys" in report.error.message


def test_a_step_bound_is_a_limit():
    report = knn.run_source("let t = initTensor(4) in t", max_steps=3)
    assert report.status == "limit" and isinstance(report.error, knn.LimitError)
    assert (report.error.fault, report.error.exit_code) == ("limit", 4)
    assert "stopped after 3 steps" in report.error.message


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"engine": "big-step", "trace": True}, "needs the small-step engine"),
        ({"engine": "turbo"}, 'engine="turbo"'),
        ({"semantics": "ancient"}, 'semantics="ancient"'),
        ({"inputs": {"x": 1.0}}, "is a scalar"),
        ({"inputs": {"x": [[1.0, 2.0], [3.0]]}}, "inhomogeneous"),
        ({"inputs": [1.0]}, "expected a dict"),
        ({"inputs": {1: [1.0]}}, "the names must be strings"),
    ],
)
def test_bad_options_are_usage_errors(kwargs, message):
    with pytest.raises(knn.UsageError, match=message):
        knn.run_source("1.0", **kwargs)


def test_extreme_programs_never_crash_the_interpreter():
    # Deep nesting is parsed without recursion; a tensor beyond the memory budget is a limit.
    assert knn.run_source("(" * 100000 + "1.0" + ")" * 100000).value == 1.0
    report = knn.run_source("let t = initTensor(100000, 100000, 100000) in t")
    assert report.status == "limit" and isinstance(report.error, knn.LimitError)
    assert knn.run_source("1.0 + 2.0").value == 3.0


def test_real_sizes_on_a_thread_with_two_mebibytes_of_stack(tmp_path):
    # A thread nobody sized: nothing in knn recurses on the depth of a program. A chain of
    # 200,000 lets and the mnist_fc 256x6 network (1,976 lets before tensor literals, 400,000
    # parameters) load, run and verify on it.
    source = "let s0 = x[0] in " + "".join(f"let s{k} = s{k - 1} + 0.5 in " for k in range(1, 200000))
    source += "let y = initTensor(2) in let y[0] = s199999 in let y[1] = x[0] in y"
    path = tmp_path / "deep.knn"
    path.write_text(source)
    results = {}

    def work():
        deep = knn.load(str(path))
        results["deep"] = deep.run(np.array([[1.0]]))
        net = knn.load(repo("data/mnist_fc/onnx/mnist-net_256x6.onnx"))
        results["mnist"] = net.run(np.full((2, 784), 0.5))
        results["verify"] = net.verify(box=([0.5] * 784, [0.5] * 784), claim="argmax-stable", timeout=30)

    old = threading.stack_size(2 * 1024 * 1024)
    try:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old)
    assert results["deep"].tolist() == [[1.0 + 0.5 * 199999, 1.0]]
    assert results["mnist"].shape == (2, 10)
    assert results["verify"].answer == "holds"
