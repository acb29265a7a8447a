#!/usr/bin/env python3
"""Start alpha-beta-CROWN's complete_verifier/abcrown.py with one compatibility shim.

Usage: python launch.py ABCROWN_DIR [abcrown.py arguments...]

alpha-beta-CROWN (Dec 2025) calls onnx2pytorch.ConvertModel(model, experimental=True,
quirks=...). The `quirks` keyword exists only in Verified-Intelligence's fork of onnx2pytorch,
which is installed from GitHub by its setup and cannot be had here; PyPI's onnx2pytorch (0.6.0)
lacks it. The mnist_fc networks (Flatten, Gemm, Relu) need no quirk, so this shim accepts
`quirks` when it is empty and refuses it otherwise. Nothing else of alpha-beta-CROWN is changed.
"""
import inspect
import os
import runpy
import sys

import onnx2pytorch

_Convert = onnx2pytorch.ConvertModel
if "quirks" not in inspect.signature(_Convert.__init__).parameters:

    class ConvertModel(_Convert):
        def __init__(self, onnx_model, *args, quirks=None, **kwargs):
            if quirks:
                raise NotImplementedError(
                    f"onnx2pytorch from PyPI has no quirks; asked for {quirks!r}")
            super().__init__(onnx_model, *args, **kwargs)

    onnx2pytorch.ConvertModel = ConvertModel

abcrown_dir = os.path.abspath(sys.argv[1])
verifier = os.path.join(abcrown_dir, "complete_verifier")
sys.path.insert(0, verifier)
sys.path.insert(1, abcrown_dir)
sys.argv = [os.path.join(verifier, "abcrown.py")] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
