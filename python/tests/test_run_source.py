"""knn.run_source: the report of `knn run --output json` — answer, steps, observables, trace,
rule counts, configuration — on either engine and under either semantics."""

from __future__ import annotations

import json

import numpy as np
import pytest

import knn
from conftest import cli, repo

EXAMPLES = ["examples/argmax.knn", "examples/linear.knn", "examples/tanh_rank2.knn"]


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("semantics", ["revised", "published"])
def test_the_json_report_is_the_commands(example, semantics):
    source = open(repo(example)).read()
    flags = ["--semantics", semantics, "--output", "json"]
    command = cli("run", repo(example), *flags, check_codes=(0, 3, 4))
    report = knn.run_source(source, semantics=semantics, observables=True, name=repo(example))
    assert json.loads(report.json) == json.loads(command.stdout)
    assert report.exit_code == command.returncode


def test_the_report_exposes_what_the_json_has():
    source = open(repo("examples/tanh_rank2.knn")).read()
    report = knn.run_source(source, engine="small-step", trace=True, coverage=True, observables=True, config=True)
    data = json.loads(report.json)
    assert report.status == data["status"] == "done"
    assert report.engine == "small-step" and report.steps == data["steps"] == len(report.trace)
    assert report.trace == data["trace"]
    assert {rule: n for rule, n in report.coverage.items() if n} == {r: n for r, n in data["rules"].items() if n}
    # Each step applies one rule and may use side rules (function rules): at least one count a step.
    assert sum(report.coverage.values()) >= report.steps
    for name, tensor in data["observables"].items():
        array = report.observables[name]
        assert list(array.shape) == tensor["shape"] and array.ravel().tolist() == tensor["data"]
    assert report.config.startswith("<T>") or "<k>" in report.config
    assert data["result"]["kind"] == "float" and report.value == data["result"]["value"]


def test_values_of_each_kind():
    assert knn.run_source("1.5 + 2.0").value == 3.5
    assert knn.run_source("2 * 3").value == 6 and isinstance(knn.run_source("2 * 3").value, int)
    empty = knn.run_source("0", semantics="published")
    assert empty.status == "empty" and empty.value is None
    stuck = knn.run_source("max(1, 2.0)", semantics="published")
    assert stuck.status == "stuck" and stuck.stuck and stuck.exit_code == 3


def test_inputs_bind_tensors():
    report = knn.run_source("let y = linear(W, x) in y", inputs={"W": np.eye(2), "x": np.array([2.0, -3.0])})
    assert report.value.tolist() == [2.0, -3.0]
    # The same run on both engines gives the same bits.
    small = knn.run_source("let y = linear(W, x) in y", inputs={"W": np.eye(2), "x": [0.1, 0.2]},
                           engine="small-step")
    big = knn.run_source("let y = linear(W, x) in y", inputs={"W": np.eye(2), "x": [0.1, 0.2]}, engine="big-step")
    assert small.value.tobytes() == big.value.tobytes()
