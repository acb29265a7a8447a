"""knn.report: the page of a benchmark run, the same bytes as `knn report` writes, read by an
HTML5 parser."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest

import knn
from conftest import cli

KNN_CSV = """network,property,answer,seconds,proved_share
nets/a.nnet,props/p1.vnnlib,holds,0.500,1.0000
nets/b.nnet,props/p1.vnnlib,violated,0.020,0.0000
nets/c.nnet,props/p2.vnnlib,unknown:timeout,10.000,0.4000
"""

# Another tool in the VNN-COMP format: a contradicts knn (sat where knn proved it holds).
OTHER_CSV = """bench,./x/a.onnx,./x/p1.vnnlib,1.1,sat,1.0
bench,./x/b.onnx,./x/p1.vnnlib,1.1,sat,2.0
bench,./x/c.onnx,./x/p2.vnnlib,1.1,unsat,4.0
"""

SVG = "{http://www.w3.org/2000/svg}"
HTML = "{http://www.w3.org/1999/xhtml}"


def files(tmp_path: Path) -> tuple[str, str]:
    results, other = tmp_path / "results.csv", tmp_path / "other.csv"
    results.write_text(KNN_CSV)
    other.write_text(OTHER_CSV)
    return str(results), str(other)


def test_the_page_is_the_commands_and_shows_every_instance(tmp_path):
    results, other = files(tmp_path)
    page = knn.report(results, tmp_path / "py", compare={"other": other})
    assert page == str(tmp_path / "py" / "index.html")
    cli("report", results, "--compare", f"other={other}", "-o", str(tmp_path / "cli"))
    text = Path(page).read_text()
    assert text == (tmp_path / "cli" / "index.html").read_text()

    parser = html5lib.HTMLParser(strict=True)
    document = parser.parse(text)
    rows = [
        tr
        for table in document.iter(f"{HTML}table")
        if "instances" in table.get("class", "")
        for tr in table.iter(f"{HTML}tr")
        if tr.get("data-network")
    ]
    assert [(r.get("data-network"), r.get("data-property")) for r in rows] == [
        ("nets/a.nnet", "props/p1.vnnlib"),
        ("nets/b.nnet", "props/p1.vnnlib"),
        ("nets/c.nnet", "props/p2.vnnlib"),
    ]
    assert [r.get("class") for r in rows] == ["disagree", None, None]
    colours = [li.get("data-colour") for li in document.iter(f"{HTML}li") if li.get("data-tool")]
    points = {}
    for line in document.iter(f"{SVG}polyline"):
        points.setdefault(line.get("stroke"), []).append(len(line.get("points").split()))
    # knn decided a and b; the other tool a, b and c.
    assert 2 in points[colours[0]] and 3 in points[colours[1]]


def test_an_existing_page_is_kept_and_bad_files_raise(tmp_path):
    results, other = files(tmp_path)
    knn.report(results, tmp_path)
    with pytest.raises(knn.UsageError, match="exists; pass --force"):
        knn.report(results, tmp_path)
    knn.report(results, tmp_path, force=True)
    (tmp_path / "bad.csv").write_text("bench,a.onnx,p.vnnlib,1,maybe,2\n")
    with pytest.raises(knn.UsageError, match=r"bad.csv:1: `maybe` is not an answer"):
        knn.report(results, tmp_path / "new", compare={"x": tmp_path / "bad.csv"})
    with pytest.raises(knn.FileError):
        knn.report(tmp_path / "missing.csv", tmp_path / "new")
