"""Network.verify and verify_vnnlib: the answers `knn verify` gives, counterexamples that the
package's own run confirms, the VNN-COMP results text, and the GIL released while it works."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

import knn
from conftest import cli, cli_json, repo

MLP = repo("examples/mlp.knn")
FIXTURES = "cli/tests/fixtures/verify/"

# examples/mlp.knn (derivation in cli/tests/cli_verify.rs): class 0 on this box ...
CLASS_0 = ([0.9, -2.1, 0.4], [1.1, -1.9, 0.6])
# ... and this one holds (0, 1, 0), of class 1, while its centre is of class 0.
MIXED = ([0, -2, 0], [1, 1, 0.5])


def box_flag(box) -> str:
    return "x=" + ",".join(f"{lo}:{hi}" for lo, hi in zip(*box))


@pytest.mark.parametrize("box,claim", [(CLASS_0, "argmax-stable"), (CLASS_0, "argmax=0"), (MIXED, "argmax=0"),
                                       (MIXED, "argmax-stable"), (CLASS_0, "argmax!=1")])
def test_the_answer_is_the_commands(box, claim):
    net = knn.load(MLP)
    result = net.verify(box=box, claim=claim)
    command = cli_json("verify", MLP, "--box", box_flag(box), "--claim", claim, "--output", "json", "--quiet",
                       check_codes=(0, 10))
    assert result.answer == command["answer"]
    assert result.exit_code == (0 if command["answer"] == "holds" else 10)
    mine = json.loads(result.json)
    for field in ("schema_version", "answer", "class"):
        assert mine.get(field) == command.get(field), field


def test_a_counterexample_is_in_the_box_and_replays_on_the_run():
    net = knn.load(MLP)
    result = net.verify(box=MIXED, claim="argmax=0")
    assert result.answer == "violated" and not result
    c = result.counterexample
    assert np.all(np.array(MIXED[0]) <= c.input) and np.all(c.input <= np.array(MIXED[1]))
    assert net.run(c.input) == c.class_ == 1 and c.expected_class == 0
    assert result.results.startswith("sat\n((X_0 ")
    assert c.witness.startswith("((X_0 ")


def test_a_ball_around_a_point():
    net = knn.load(MLP)
    result = net.verify(around=[1.0, -2.0, 0.5], eps=0.1)
    assert result.answer == "holds" and result.class_ == 0 and bool(result)
    command = cli_json("verify", MLP, "--around", "x=[1.0, -2.0, 0.5]", "--eps", "0.1", "--output", "json")
    assert command["answer"] == "holds" and command["class"] == 0
    # The clip leaves element 1 (around -2.0) no point: nothing to verify, said so.
    clipped = net.verify(around=[1.0, -2.0, 0.5], eps=0.1, clip=(0.95, 1.0))
    assert (clipped.answer, clipped.reason, clipped.word) == ("unknown", "empty-region", "unknown:empty-region")
    assert "element 1's range" in clipped.detail


def test_vnnlib_properties_on_imported_networks(tmp_path):
    for network in ["fc_2-2-3.nnet", "fc_2-2sigmoids-3.onnx"]:
        result = knn.verify_vnnlib(repo(FIXTURES + network), repo(FIXTURES + "fc_unsat.vnnlib"))
        assert (result.answer, result.word, result.results) == ("holds", "holds", "unsat\n")
    net = knn.load(repo(FIXTURES + "fc_2-2-3.nnet"))
    violated = net.verify_vnnlib(repo(FIXTURES + "fc_sat.vnnlib"))
    assert violated.answer == "violated"
    out = tmp_path / "results.txt"
    cli("verify", repo(FIXTURES + "fc_2-2-3.nnet"), "--vnnlib", repo(FIXTURES + "fc_sat.vnnlib"),
        "--results", str(out), check_codes=(10,))
    assert out.read_text() == violated.results
    timeout = net.verify_vnnlib(repo(FIXTURES + "fc_tie.vnnlib"), timeout=0.5)
    assert (timeout.answer, timeout.reason, timeout.word, timeout.exit_code) == ("unknown", "timeout",
                                                                                 "unknown:timeout", 11)


@pytest.mark.parametrize("split", ["auto", "inputs", "relus", "refined-relus"])
def test_every_split_gives_the_same_answers(split):
    net = knn.load(repo(FIXTURES + "fc_2-2-3.nnet"))
    assert net.verify_vnnlib(repo(FIXTURES + "fc_unsat.vnnlib"), split=split).answer == "holds"
    assert net.verify_vnnlib(repo(FIXTURES + "fc_sat.vnnlib"), split=split).answer == "violated"


def test_acas_xu_instances_match_the_command():
    for network, prop in [("1_1", "prop_1"), ("1_7", "prop_3"), ("1_1", "prop_2")]:
        path = repo(f"data/acasxu/ACASXU_experimental_v2a_{network}.nnet")
        result = knn.verify_vnnlib(path, repo(f"data/acasxu/vnnlib/{prop}.vnnlib"), timeout=60)
        command = cli_json("verify", path, "--vnnlib", repo(f"data/acasxu/vnnlib/{prop}.vnnlib"), "--timeout", "60",
                           "--output", "json", "--quiet", check_codes=(0, 10, 11))
        assert result.answer == command["answer"], (network, prop)


def test_what_cannot_be_bounded_is_unknown_unsupported():
    result = knn.load(repo(FIXTURES + "element_write.knn")).verify(box=([0, 0], [1, 1]))
    assert (result.answer, result.reason, result.exit_code) == ("unknown", "unsupported", 11)
    assert "single elements" in result.detail


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({}, "say where"),
        ({"box": ([0, 0, 0], [1, 1])}, "3 lower bounds but 2 upper"),
        ({"box": ([1, 0, 0], [0, 1, 1])}, "above the upper bound"),
        ({"box": ([0, 0], [1, 1])}, "has 3 elements|3 inputs|ranges"),
        ({"box": CLASS_0, "claim": "argmin=0"}, "expected argmax=K"),
        ({"box": CLASS_0, "claim": "argmax=7"}, "class 7 does not exist"),
        ({"box": CLASS_0, "timeout": -1}, "timeout=-1"),
        ({"box": CLASS_0, "split": "halves"}, 'split="halves"'),
        ({"box": CLASS_0, "threads": 0}, "threads=0"),
        ({"around": [1.0, -2.0, 0.5]}, "needs eps="),
        ({"box": CLASS_0, "eps": 0.1}, "eps= and clip= go with around="),
        ({"box": CLASS_0, "around": [1.0, -2.0, 0.5], "eps": 0.1}, "not both"),
        ({"around": [1.0, -2.0, 0.5], "eps": -0.1}, "eps=-0.1: expected a non-negative number"),
        ({"around": [1.0, -2.0, 0.5], "eps": 0.1, "clip": (1.0, 0.0)}, r"clip=\(1.0, 0.0\): the range is empty"),
        ({"around": [1.0, float("nan"), 0.5], "eps": 0.1}, r"around\[1\] is NaN"),
        ({"around": [float("inf"), -2.0, 0.5], "eps": 0.1}, r"around\[0\] = inf: expected finite numbers"),
        ({"box": ([2**60, 0, 0], [2**61, 1, 1])}, "not exactly a float64"),
    ],
)
def test_bad_questions_are_usage_errors(kwargs, message):
    with pytest.raises(knn.UsageError, match=message):
        knn.load(MLP).verify(**kwargs)


def test_the_gil_is_released_while_the_verifier_works():
    # fc_tie.vnnlib is never decided (fixtures README): the search runs to its timeout, and
    # this thread keeps counting meanwhile.
    net = knn.load(repo(FIXTURES + "fc_2-2-3.nnet"))
    done = threading.Event()

    def work():
        net.verify_vnnlib(repo(FIXTURES + "fc_tie.vnnlib"), timeout=1.0, threads=1)
        done.set()

    worker = threading.Thread(target=work)
    started = time.perf_counter()
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - started
    assert elapsed >= 0.9, "the instance should run until its timeout"
    # Holding the GIL for the whole second would leave this loop at a handful of ticks.
    assert ticks > 100, ticks


def test_a_nan_inside_the_region_and_a_failing_run_are_counterexamples(tmp_path):
    # 1e308*x0 - 1e308*x1 is inf - inf = NaN at (2, 2): ArgMax keeps the NaN at index 0, so the
    # class there is 0, not 1 (docs/verification.md, "What a claim means at a point").
    layer = ("let W0 = initTensor(2, 2) in let W0[0, 0] = 1e+308 in let W0[0, 1] = -1e+308 in "
             "let z0 = linear(W0, x) in ")
    nan = tmp_path / "nan.knn"
    nan.write_text(layer + "let h1 = tanhTensor(z0) in let h1[1] = h1[1] + 5.0 in ArgMax(h1)")
    net = knn.load(str(nan))
    result = net.verify(box=([-2, -2], [2, 2]), claim="argmax=1")
    c = result.counterexample
    assert result.answer == "violated" and c.failure is None
    assert np.isnan(c.output[0]) and c.output[1] == 5.0
    assert net.run(c.input) == c.class_ == 0
    assert "(Y_0 NaN)" in c.witness
    # relu(NaN) has no rule: the run fails there, which breaks every claim.
    relu = tmp_path / "relu.knn"
    relu.write_text(layer + "let h1 = reluTensor(z0) in ArgMax(h1)")
    result = knn.load(str(relu)).verify(box=([-2, -2], [2, 2]), claim="argmax=0")
    c = result.counterexample
    assert result.answer == "violated" and len(c.output) == 0
    assert "cannot compute with NaN and 0.0 [invalid-operands]" in c.failure
    assert json.loads(result.json)["counterexample"]["failure"]["kind"] == "invalid-operands"


# A program for 1×4×4 images (cli/tests/verify_images.rs has the same one).
CNN = """let W = initTensor(2, 1, 2, 2)[0.5, -0.25, 0.125, 1.0, -0.75, 0.3, 0.6, -0.1] in
let B = initTensor(2)[0.1, -0.2] in
let c = conv2d(x, W, B, pads = [1, 0, 0, 1]) in
let r = reluTensor(c) in
let p = maxPool2d(r, kernel = [2, 2], strides = [2, 2]) in
let f = flatten(p) in
let L = initTensor(3, 8)[0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 0.11, -0.12, 0.13, 0.14, -0.15, 0.16,
                         0.17, 0.18, -0.19, 0.2, 0.21, -0.22, 0.23, 0.24] in
let y = linear(L, f) in y
"""
CNN_CENTRE = [0.1, 0.5, 0.9, 0.3, 0.2, 0.8, 0.4, 0.6, 0.7, 0.1, 0.3, 0.5, 0.9, 0.2, 0.6, 0.4]


@pytest.mark.parametrize("eps", [0.01, 0.3])
def test_a_program_for_images_takes_its_input_shape_as_the_command_does(tmp_path, eps):
    path = tmp_path / "cnn.knn"
    path.write_text(CNN)
    result = knn.load(str(path)).verify(around=CNN_CENTRE, eps=eps, input_shape=(1, 4, 4))
    around = "x=[" + ", ".join(map(str, CNN_CENTRE)) + "]"
    command = cli_json("verify", str(path), "--input-shape", "1,4,4", "--around", around, "--eps", str(eps),
                       "--output", "json", "--quiet", check_codes=(0, 10, 11))
    assert result.answer == command["answer"]
    assert result.answer in ("holds", "violated")
    with pytest.raises(knn.UsageError, match="has 32 elements"):
        knn.load(str(path)).verify(around=CNN_CENTRE, eps=eps, input_shape=(2, 4, 4))
    with pytest.raises(knn.UsageError, match="input_shape"):
        knn.load(str(path)).verify(around=CNN_CENTRE, eps=eps, input_shape=(0, 4, 4))
