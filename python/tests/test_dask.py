"""knn.dask on a LocalCluster of two single-threaded worker processes: a network over a Dask
array equals the single-process run bit for bit, and an instance list gives the answers of
`knn verify --instances`."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

import knn
from conftest import cli, repo, same_bits

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402

import knn.dask  # noqa: E402

ACAS = "data/acasxu/ACASXU_experimental_v2a_1_1.nnet"


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            yield client


def test_a_network_over_a_dask_array_equals_the_single_process_run(client):
    # The rows are made on the workers (no 10 MiB graph), and gathered here for the reference.
    darr = da.random.default_rng(18).uniform(-1.0, 1.0, size=(1 << 18, 5), chunks=(1 << 15, 5)).persist()
    expected = knn.load(repo(ACAS)).run(darr.compute())
    got = knn.dask.run(repo(ACAS), darr).compute()
    assert same_bits(got, expected)


def test_classes_and_column_chunks(client):
    x = np.load(repo("examples/inputs.npy"))
    darr = da.from_array(x, chunks=(2, 1))  # columns split too: rechunked to whole rows
    got = knn.dask.run(repo("examples/mlp.knn"), darr)
    assert got.shape == (x.shape[0],)
    assert same_bits(got.compute(), knn.load(repo("examples/mlp.knn")).run(x))


def test_bad_arrays_are_refused_before_anything_runs(client):
    with pytest.raises(knn.UsageError, match="dimensions"):
        knn.dask.run(repo(ACAS), da.zeros((4, 5, 1)))
    with pytest.raises(knn.UsageError, match="dask.array"):
        knn.dask.run(repo(ACAS), np.zeros((4, 5)))
    with pytest.raises(knn.UsageError, match="rows of 4 elements"):
        knn.dask.run(repo(ACAS), da.zeros((4, 4)))


def test_an_instance_list_gives_the_commands_answers(client, tmp_path):
    lines = [
        "ACASXU_experimental_v2a_1_1.nnet,vnnlib/prop_1.vnnlib,60",
        "ACASXU_experimental_v2a_1_7.nnet,vnnlib/prop_3.vnnlib,60",
        "ACASXU_experimental_v2a_1_9.nnet,vnnlib/prop_7.vnnlib,60",
        "ACASXU_experimental_v2a_1_1.nnet,vnnlib/prop_2.vnnlib,60",
        "ACASXU_experimental_v2a_2_1.nnet,vnnlib/prop_3.vnnlib,60",
    ]
    listing = tmp_path / "instances.csv"
    listing.write_text("# network,property,timeout\n" + "\n".join(lines) + "\n")
    frame = knn.dask.verify_instances(client, str(listing), root=repo("data/acasxu"))
    assert list(frame.columns) == ["network", "property", "answer", "seconds", "detail"]
    out = tmp_path / "results.csv"
    cli("verify", "--instances", str(listing), "--root", repo("data/acasxu"), "-o", str(out), "--quiet")
    command = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [(r["network"], r["property"], r["answer"]) for r in command] == list(
        zip(frame["network"], frame["property"], frame["answer"]))
    assert set(frame["answer"]) <= {"holds", "violated"}


def test_an_instance_that_cannot_run_is_an_error_row(client, tmp_path):
    listing = tmp_path / "instances.csv"
    listing.write_text("missing.nnet,prop.vnnlib,5\n")
    frame = knn.dask.verify_instances(client, str(listing))
    assert frame["answer"].tolist() == ["error"] and "missing.nnet: cannot read" in frame["detail"][0]
    bad = tmp_path / "bad.csv"
    bad.write_text("a.nnet,b.vnnlib\n")
    with pytest.raises(knn.UsageError, match="bad.csv:1: expected network,property,timeout"):
        knn.dask.verify_instances(client, str(bad))


def test_an_instance_list_reads_its_bounds_as_bounds_says(client, tmp_path):
    # y = (x0, -x0) with X_0 pinned to 0.1 (test_bounds.py works the answers out): no binary64
    # number is 0.1, so as written the region is empty; read as nearest, X_0 is the float 0.1,
    # where Y_0 = 0.1000000000000000055… >= 0.1.
    (tmp_path / "identity.knn").write_text("let W = initTensor(2, 1)[1.0, -1.0] in\nlet y = linear(W, x) in y\n")
    (tmp_path / "pinned.vnnlib").write_text(
        "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n"
        "(assert (>= X_0 0.1))\n(assert (<= X_0 0.1))\n(assert (>= Y_0 0.1))\n")
    listing = tmp_path / "instances.csv"
    listing.write_text("identity.knn,pinned.vnnlib,30\n")
    assert knn.dask.verify_instances(client, str(listing))["answer"].tolist() == ["unknown:empty-region"]
    nearest = knn.dask.verify_instances(client, str(listing), bounds="nearest")
    assert nearest["answer"].tolist() == ["violated"]
    with pytest.raises(ValueError, match='bounds="exact": expected "as-written" or "nearest"'):
        knn.dask.verify_instances(client, str(listing), bounds="exact")
