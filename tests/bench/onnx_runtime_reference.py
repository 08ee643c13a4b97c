#!/usr/bin/env python3
"""ONNX Runtime's CPU inference time for bench_onnx_inference, one run per request.

Tooling, not product: bench_onnx_inference starts this script (with the python of
tests/differential/.venv-torch or .venv-ort) and sends one line per round; each line is answered
with the milliseconds one InferenceSession.run took, so that ours and ORT's rounds interleave on the
same machine state. The session uses ORT's defaults (all graph optimisations, intra-op threads = the
cores).

    onnx_runtime_reference.py MODEL.onnx INPUTS.npz
"""
import sys
import time

import numpy as np
import onnxruntime as ort

session = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
inputs = dict(np.load(sys.argv[2]))
session.run(None, inputs)  # warm-up
print("ready onnxruntime %s" % ort.__version__, flush=True)
for _ in sys.stdin:
    start = time.perf_counter()
    session.run(None, inputs)
    print("%.4f" % ((time.perf_counter() - start) * 1000.0), flush=True)
