#!/usr/bin/env python3
"""Regenerates the rule tables of docs/semantics.md (between the `rules:begin` and `rules:end`
markers) from `knn rules --output json`, for both profiles."""
import json
import os
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
subprocess.run(["cargo", "build", "-q", "--bin", "knn"], check=True, cwd=root)
target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
knn = [str(target / "debug/knn")]


def rules(semantics):
    out = subprocess.run(knn + ["rules", "--semantics", semantics, "--output", "json"], check=True,
                         capture_output=True, text=True, cwd=root).stdout
    return json.loads(out)["rules"]


def item(rule):
    name = rule["id"].upper().replace("-", "_")
    if rule["origin"] != "published":
        # `Rev-5` is in `rev05_….rs`, `Ext-1` in `ext1_….rs`; the item drops the `rev-`/`ext-` prefix.
        # A patch split in several files (`ext9_softmax.rs`, `ext9_items.rs`): the one that defines it.
        kind, number = rule["origin"].lower().split("-")
        prefix = kind + (number.zfill(2) if kind == "rev" else number)
        static = rule['id'][4:].upper().replace('-', '_')
        files = sorted(p for p in (root / "semantics/src/revisions").glob("*.rs") if p.stem.split("_")[0] == prefix)
        module = next((p.name for p in files if f"pub static {static}: Rule" in p.read_text()),
                      files[0].name if files else "?")
        return f"`revisions/{module}::{static}`"
    return published_item(rule["section"], name)


def published_item(section, name):
    rules = root / "semantics/src/rules"
    if (rules / f"{section}.rs").exists():
        return f"`rules/{section}.rs::{name}`"
    # A section split by subsection (`rules/tensor/`): the file of the section that defines it.
    for path in sorted((rules / section).glob("*.rs")):
        if f"pub static {name}: Rule" in path.read_text():
            return f"`rules/{section}/{path.name}::{name}`"
    return f"`rules/{section}/?::{name}`"


def row(rule):
    test = ("— (fires through its heating and cooling rules)" if rule["kind"] == "context"
            else f"`rule_{rule['id'].replace('-', '_')}`")
    return (f"| `{rule['id']}` | {rule['number'] or '—'} | {rule['lines']} | {rule['kind']} | "
            f"{rule['class']} | {item(rule)} | {test} |")


header = ["| ID | # | lines | kind | class | Rust item | test |", "| --- | --- | --- | --- | --- | --- | --- |"]
published = rules("published")
revised = [r for r in rules("revised") if r["origin"] != "published"]
table = (["### Published rules", ""] + header + [row(r) for r in published] + ["", "### Rules the patches add", ""]
         + header + [row(r) for r in revised])
doc = root / "docs/semantics.md"
text = doc.read_text()
begin, end = "<!-- rules:begin -->", "<!-- rules:end -->"
if begin not in text or end not in text:
    sys.exit("docs/semantics.md has no rules:begin/rules:end markers")
text = text[: text.index(begin) + len(begin)] + "\n" + "\n".join(table) + "\n" + text[text.index(end):]
doc.write_text(text)
print(f"{len(published)} published rules, {len(revised)} revised rules")
