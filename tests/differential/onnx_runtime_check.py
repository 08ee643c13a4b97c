#!/usr/bin/env python3
"""Runs ampstudio-cli's ONNX conversions in ONNX Runtime against the float32 originals.

Developer tool (not CI; the product never needs Python). For every .onnx model found under --models
and every --dtypes entry it runs `ampstudio-cli convert MODEL --target-dtype D --output DIR/converted`
(which must write DIR/converted.onnx), loads the original and the converted model in ONNX Runtime
(CPUExecutionProvider), feeds both the same inputs (the model's test_data_set_0/input_*.pb where the
folder has them, as the ONNX node tests do, else seeded random values) and compares every output.

Each (model, dtype) gets one category (see CATEGORIES). A summary table, the worst errors and the
messages of every converted model ORT rejected are printed; --json FILE writes everything.

Models are evaluated in worker processes (this script with --worker) so that ORT crashing or hanging
on one model is recorded against that model and the run goes on.

Set up the venv once with `tests/differential/setup_venvs.sh ort`; run with any python3 (the script
re-executes itself under tests/differential/.venv-ort when the current python lacks onnxruntime):

    tests/differential/onnx_runtime_check.py --limit 50
    tests/differential/onnx_runtime_check.py --fake-convert           # self-test, no CLI needed
    tests/differential/onnx_runtime_check.py --fake-convert corrupt   # every converted model rejected
"""

import argparse
import collections
import ctypes
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VENV_PYTHON = os.path.join(HERE, ".venv-ort", "bin", "python")
DEFAULT_MODELS = "/usr/share/libonnx-testdata"

# In the order they are decided: the first that applies is a (model, dtype)'s category.
CATEGORIES = [
    ("tool-crash", "the CLI was killed by a signal or timed out (or the fake converter raised)"),
    ("cli-refused", "the CLI exited non-zero (first line of its stderr kept)"),
    ("cli-no-output", "the CLI exited 0 but wrote no PREFIX.onnx"),
    ("ort-refused-original", "ORT cannot load or run the float32 original: not ours"),
    ("inputs-unsupported", "this script cannot make or feed the inputs (map types, sequences with bfloat16 ...)"),
    ("interface-changed", "the converted model's input or output names differ from the original's"),
    ("ort-refused-converted", "ORT rejects or fails on the converted model: a converter bug"),
    ("shape-mismatch", "an output's shape (or sequence length, or presence) differs"),
    ("ran-with-nonfinite", "an output has inf/nan where the original's is finite"),
    ("converted+ran", "ran; errors recorded"),
]
CATEGORY_NAMES = [name for name, _ in CATEGORIES]
# Categories that make the script exit 1.
FAILING = {"tool-crash", "ort-refused-converted", "shape-mismatch", "interface-changed"}

# onnx.TensorProto.DataType values used below (kept numeric so the driver needs no onnx import).
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = 1, 2, 3, 4, 5, 6, 7, 8, 9
FLOAT16, DOUBLE, UINT32, UINT64, BFLOAT16 = 10, 11, 12, 13, 16
FLOAT_TYPES = {FLOAT, FLOAT16, DOUBLE, BFLOAT16}
TARGET_ELEM = {"float16": FLOAT16, "bfloat16": BFLOAT16}
# Ops whose outputs differ from run to run: their models' errors mean nothing (shapes still do).
RANDOM_OPS = {"Bernoulli", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
              "Multinomial"}


# ----------------------------------------------------------------------------------------------
# Worker side: conversion, ORT, comparison. Imports onnx, onnxruntime and numpy.
# ----------------------------------------------------------------------------------------------

def first_line(text, limit=300):
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""


def ort_message(error):
    """An exception's text without ORT's 'Load model from /tmp/... failed:' (paths of temp files)."""
    text = re.sub(r"Load model from \S+ failed:", "load failed: ", str(error))
    return "%s: %s" % (type(error).__name__, text)


def signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "signal %d" % num


class Worker:
    def __init__(self, config):
        import numpy as np
        import onnx
        import onnxruntime as ort
        from onnx import numpy_helper
        self.np, self.onnx, self.ort, self.numpy_helper = np, onnx, ort, numpy_helper
        self.config = config
        ort.set_default_logger_severity(3)
        self.np_of_elem = {
            FLOAT: np.float32, DOUBLE: np.float64, FLOAT16: np.float16, UINT8: np.uint8,
            INT8: np.int8, UINT16: np.uint16, INT16: np.int16, INT32: np.int32, INT64: np.int64,
            UINT32: np.uint32, UINT64: np.uint64, BOOL: np.bool_, STRING: np.object_,
        }

    # -- conversion ----------------------------------------------------------------------------

    def convert(self, model, dtype, outdir):
        """Runs the CLI (or the fake converter); returns the cli record, saved as outdir/cli.json."""
        saved = os.path.join(outdir, "cli.json")
        if os.path.exists(saved):  # a resubmission after a worker crash: the conversion is done
            with open(saved) as f:
                return json.load(f)
        os.makedirs(outdir, exist_ok=True)
        prefix = os.path.join(outdir, "converted")
        record = {"category": None, "message": "", "output": None, "rc": None, "seconds": 0.0}
        start = time.monotonic()
        if self.config["fake_convert"]:
            record["command"] = "fake-convert %s" % self.config["fake_convert"]
            try:
                record["fake_notes"] = fake_convert(self.onnx, self.np, model, prefix + ".onnx", dtype,
                                                    self.config["fake_convert"],
                                                    self.config["low_precision_io"])
                record["rc"] = 0
            except Exception as e:  # the stand-in for the CLI crashing
                record["category"] = "tool-crash"
                record["message"] = "fake converter raised %s: %s" % (type(e).__name__, first_line(str(e)))
        else:
            cmd = [self.config["cli"], "convert", model, "--target-dtype", dtype, "--output", prefix]
            if self.config["low_precision_io"]:
                cmd.append("--low-precision-io")
            cmd += self.config["cli_args"]
            record["command"] = " ".join(cmd)
            try:
                proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, timeout=self.config["cli_timeout"])
                record["rc"] = proc.returncode
                stderr = proc.stderr.decode("utf-8", "replace")
                record["stderr"] = stderr[-4000:]
                if proc.returncode < 0:
                    record["category"] = "tool-crash"
                    record["message"] = "killed by %s %s" % (signal_name(-proc.returncode),
                                                             first_line(stderr))
                elif proc.returncode != 0:
                    record["category"] = "cli-refused"
                    record["message"] = "exit %d: %s" % (proc.returncode, first_line(stderr))
            except subprocess.TimeoutExpired:
                record["category"] = "tool-crash"
                record["message"] = "timed out after %d s" % self.config["cli_timeout"]
            except OSError as e:
                record["category"] = "tool-crash"
                record["message"] = "cannot run the CLI: %s" % e
        record["seconds"] = round(time.monotonic() - start, 3)
        if record["category"] is None:
            if os.path.exists(prefix + ".onnx"):
                record["output"] = prefix + ".onnx"
            else:
                others = sorted(f for f in os.listdir(outdir) if f.endswith(".onnx"))
                record["category"] = "cli-no-output"
                record["message"] = "exit 0 but no %s.onnx (folder has: %s)" % (
                    os.path.basename(prefix), ", ".join(os.listdir(outdir)) or "nothing")
                if len(others) == 1:  # keep going with it, but say so
                    record["category"] = None
                    record["output"] = os.path.join(outdir, others[0])
                    record["note"] = "output written as %s, not converted.onnx" % others[0]
        with open(saved, "w") as f:
            json.dump(record, f)
        return record

    # -- ORT -----------------------------------------------------------------------------------

    def session(self, path):
        ort = self.ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = {
            "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
            "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
            "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
            "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
        }[self.config["ort_optimization"]]
        return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    @staticmethod
    def graph_io(model_proto):
        """(inputs, outputs) of the main graph as [(name, TypeProto)], initializers left out."""
        graph = model_proto.graph
        initialized = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
        inputs = [(v.name, v.type) for v in graph.input if v.name not in initialized]
        outputs = [(v.name, v.type) for v in graph.output]
        return inputs, outputs

    def describe_type(self, tp):
        kind = tp.WhichOneof("value")
        if kind == "tensor_type":
            return self.onnx.TensorProto.DataType.Name(tp.tensor_type.elem_type).lower()
        if kind == "sequence_type":
            return "seq(%s)" % self.describe_type(tp.sequence_type.elem_type)
        if kind == "optional_type":
            return "opt(%s)" % self.describe_type(tp.optional_type.elem_type)
        return kind or "unknown"

    # -- inputs --------------------------------------------------------------------------------

    def random_tensor(self, tensor_type, rng, dims):
        """A random array for a TypeProto.Tensor, in float64/int64/bool (cast later for feeding)."""
        np = self.np
        shape = []
        if tensor_type.HasField("shape"):
            for axis, dim in enumerate(tensor_type.shape.dim):
                if dim.HasField("dim_value"):
                    shape.append(dim.dim_value)
                else:
                    # Dynamic: the same size for the same dim_param everywhere; unnamed dims by axis.
                    key = dim.dim_param or "<unnamed axis %d>" % axis
                    if key not in dims:
                        dims[key] = self.config["batch_size"] if axis == 0 else self.config["dim_size"]
                    shape.append(dims[key])
        else:
            shape = [self.config["dim_size"]]
        elem = tensor_type.elem_type
        if elem in FLOAT_TYPES:
            return rng.standard_normal(shape)
        if elem == BOOL:
            return rng.integers(0, 2, shape).astype(np.bool_)
        if elem == STRING:
            return np.array(rng.choice(["a", "b"], shape), dtype=np.object_)
        if elem in self.np_of_elem:
            return rng.integers(0, 2, shape)  # small, non-negative: valid indices into dims of 2
        raise UnsupportedIO("random input of element type %d" % elem)

    def random_value(self, tp, rng, dims):
        kind = tp.WhichOneof("value")
        if kind == "tensor_type":
            return self.random_tensor(tp.tensor_type, rng, dims)
        if kind == "sequence_type":
            return [self.random_value(tp.sequence_type.elem_type, rng, dims) for _ in range(2)]
        if kind == "optional_type":
            return self.random_value(tp.optional_type.elem_type, rng, dims)
        raise UnsupportedIO("random input of type %s" % kind)

    def read_pb(self, path, tp):
        onnx, nh = self.onnx, self.numpy_helper
        with open(path, "rb") as f:
            data = f.read()
        kind = tp.WhichOneof("value") if tp is not None else "tensor_type"
        if kind == "sequence_type":
            proto = onnx.SequenceProto()
            proto.ParseFromString(data)
            return proto.name, nh.to_list(proto)
        if kind == "optional_type":
            proto = onnx.OptionalProto()
            proto.ParseFromString(data)
            return proto.name, nh.to_optional(proto)
        if kind == "map_type":
            raise UnsupportedIO("map input")
        proto = onnx.TensorProto()
        proto.ParseFromString(data)
        declared = tp.tensor_type.elem_type if tp is not None else None
        # bfloat16 values are held as float32 here; some test sets store them as their uint16 bits.
        if proto.data_type == BFLOAT16 or (declared == BFLOAT16 and proto.data_type == UINT16):
            bits = np_bits_of_tensor(self.np, proto)
            return proto.name, bf16_bits_to_float32(self.np, bits).reshape(tuple(proto.dims))
        return proto.name, nh.to_array(proto)

    @staticmethod
    def fits(value, tp):
        """False where a tensor's shape contradicts the declared rank or fixed dims."""
        if tp is None or tp.WhichOneof("value") != "tensor_type" or not tp.tensor_type.HasField("shape"):
            return True
        shape = getattr(value, "shape", None)
        if shape is None:
            return True
        dims = tp.tensor_type.shape.dim
        return len(shape) == len(dims) and all(
            not d.HasField("dim_value") or d.dim_value == n for d, n in zip(dims, shape))

    def make_inputs(self, model_path, inputs, seed):
        """{name: value} for the original's graph inputs, and where they came from."""
        data_dir = os.path.join(os.path.dirname(model_path), "test_data_set_0")
        files = []
        if os.path.isdir(data_dir) and not self.config["random_inputs"]:
            files = sorted((f for f in os.listdir(data_dir) if re.fullmatch(r"input_\d+\.pb", f)),
                           key=lambda f: int(f[6:-3]))
        rng = self.np.random.default_rng(seed)
        dims = {}
        if files:
            values, by_name, source = {}, dict(inputs), "test_data_set_0"
            for index, f in enumerate(files):
                guess = inputs[index] if index < len(inputs) else (None, None)
                name, value = self.read_pb(os.path.join(data_dir, f), guess[1])
                if name not in by_name:
                    name = guess[0]
                if name is None:
                    raise UnsupportedIO("%s matches no graph input" % f)
                if not self.fits(value, by_name[name]):
                    # The test set contradicts the model (test_castlike_*BFLOAT16* in ONNX 1.12):
                    # that input gets random values of the declared shape instead.
                    value = self.random_value(by_name[name], rng, dims)
                    source = "test_data_set_0, random %s" % name
                values[name] = value
            return values, source
        return {name: self.random_value(tp, rng, dims) for name, tp in inputs}, "random"

    def feed_value(self, value, tp):
        """value cast to the declared type tp: numpy, list, None, or BF16(bits) for bfloat16."""
        np = self.np
        kind = tp.WhichOneof("value")
        if kind == "sequence_type":
            if not isinstance(value, list):
                raise UnsupportedIO("a sequence input given a tensor")
            return [self.feed_value(v, tp.sequence_type.elem_type) for v in value]
        if kind == "optional_type":
            return None if value is None else self.feed_value(value, tp.optional_type.elem_type)
        if kind != "tensor_type":
            raise UnsupportedIO("input of type %s" % kind)
        if value is None or isinstance(value, list):
            raise UnsupportedIO("a tensor input given a sequence or none")
        elem = tp.tensor_type.elem_type
        value = np.asarray(value)
        if elem == BFLOAT16:
            return BF16(float32_to_bf16_bits(np, value.astype(np.float32)))
        if elem not in self.np_of_elem:
            raise UnsupportedIO("input element type %d" % elem)
        return np.ascontiguousarray(value.astype(self.np_of_elem[elem]))

    # -- running -------------------------------------------------------------------------------

    def run(self, session, feeds):
        """Outputs as a list (numpy arrays, lists for sequences, None), bfloat16 read as float32."""
        ort, np = self.ort, self.np
        uses_bf16 = any(isinstance(v, BF16) for v in feeds.values()) or any(
            "bfloat16" in o.type for o in session.get_outputs())
        if not uses_bf16:
            return session.run(None, feeds)
        # ORT's numpy feeding knows no bfloat16: go through OrtValues, reading bfloat16 results
        # straight from their buffers (CPU memory).
        ort_feeds = {}
        for name, value in feeds.items():
            if isinstance(value, BF16):
                ort_feeds[name] = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(value.bits, BFLOAT16)
            elif isinstance(value, np.ndarray) and value.dtype.kind not in "OUS":
                ort_feeds[name] = ort.OrtValue.ortvalue_from_numpy(value)
            elif isinstance(value, np.ndarray):
                raise UnsupportedIO("string inputs to a model with bfloat16 I/O")
            else:
                raise UnsupportedIO("sequence or optional inputs to a model with bfloat16 I/O")
        results = []
        for out in session.run_with_ort_values(None, ort_feeds):
            if not out.is_tensor():
                raise UnsupportedIO("non-tensor output of a model with bfloat16 I/O")
            if out.element_type() == BFLOAT16:
                raw = ctypes.string_at(out.data_ptr(), out.tensor_size_in_bytes())
                bits = np.frombuffer(raw, np.uint16).reshape(out.shape())
                results.append(bf16_bits_to_float32(np, bits))
            else:
                results.append(out.numpy())
        return results

    # -- comparison ----------------------------------------------------------------------------

    def compare(self, name, a, b):
        np = self.np
        row = {"name": name, "shape_mismatch": False, "max_abs": 0.0, "max_rel": 0.0,
               "nonfinite_new": 0, "nonfinite_original": 0, "elements": 0}
        if a is None or b is None:
            row["shape_mismatch"] = (a is None) != (b is None)
            row["detail"] = "original %s, converted %s" % ("none" if a is None else "a value",
                                                           "none" if b is None else "a value")
            return row
        if isinstance(a, list) or isinstance(b, list):
            if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
                row["shape_mismatch"] = True
                row["detail"] = "sequence lengths %s vs %s" % (
                    len(a) if isinstance(a, list) else "tensor", len(b) if isinstance(b, list) else "tensor")
                return row
            for index, (x, y) in enumerate(zip(a, b)):
                part = self.compare("%s[%d]" % (name, index), x, y)
                row["shape_mismatch"] |= part["shape_mismatch"]
                for key in ("max_abs", "max_rel"):
                    row[key] = max(row[key], part[key])
                for key in ("nonfinite_new", "nonfinite_original", "elements", "strings_differ"):
                    row[key] = row.get(key, 0) + part.get(key, 0)
                if part.get("detail") and "detail" not in row:
                    row["detail"] = part["detail"]
            return row
        if isinstance(a, dict) or isinstance(b, dict):  # ZipMap's maps: the values, key by key
            if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
                row["shape_mismatch"] = True
                row["detail"] = "map keys differ"
                return row
            keys = sorted(a)
            return self.compare(name, np.array([a[k] for k in keys]), np.array([b[k] for k in keys]))
        a, b = np.asarray(a), np.asarray(b)
        row["shape"], row["dtype"], row["converted_dtype"] = list(a.shape), str(a.dtype), str(b.dtype)
        if a.shape != b.shape:
            row["shape_mismatch"] = True
            row["detail"] = "shape %s vs %s" % (list(a.shape), list(b.shape))
            return row
        row["elements"] = int(a.size)
        if a.dtype.kind in "OUS" or b.dtype.kind in "OUS":
            # Strings (Cast to STRING ...): no error to measure, only how many differ.
            row["strings_differ"] = int(np.count_nonzero(a.astype(str) != b.astype(str)))
            return row
        af, bf = a.astype(np.float64), b.astype(np.float64)
        fa, fb = np.isfinite(af), np.isfinite(bf)
        row["nonfinite_new"] = int(np.count_nonzero(fa & ~fb))
        row["nonfinite_original"] = int(np.count_nonzero(~fa))
        both = fa & fb
        if np.any(both):
            diff = np.abs(af[both] - bf[both])
            rel = diff / np.maximum(np.abs(af[both]), self.config["rel_eps"])
            worst = int(np.argmax(rel))
            row["max_abs"] = float(diff.max())
            row["max_rel"] = float(rel[worst])
            row["worst_rel_at"] = {"original": float(af[both][worst]), "converted": float(bf[both][worst])}
            row["max_abs_original"] = float(np.abs(af[both]).max())
        return row

    # -- one model -----------------------------------------------------------------------------

    def job(self, job, emit):
        model, dtypes, workdir = job["model"], job["dtypes"], job["workdir"]
        onnx = self.onnx
        clis = {}
        # Testing the driver's recovery: ONNX_RUNTIME_CHECK_FAULT=crash|hang@PHASE@SUBSTRING makes
        # this worker die or hang on entering PHASE (cli:D, original, converted:D) for matching models.
        fault = os.environ.get("ONNX_RUNTIME_CHECK_FAULT", "").split("@")

        def enter(phase):
            emit({"phase": phase})
            if len(fault) == 3 and fault[1] == phase and fault[2] in model and not (
                    phase == "original" and job.get("original_failed")):
                if fault[0] == "crash":
                    os.kill(os.getpid(), signal.SIGSEGV)
                time.sleep(3600)

        for dtype in dtypes:
            enter("cli:" + dtype)
            clis[dtype] = self.convert(model, dtype, os.path.join(workdir, dtype))
        pending = []
        for dtype in dtypes:
            if clis[dtype]["category"]:
                emit({"result": make_result(dtype, clis[dtype]["category"], clis[dtype]["message"],
                                            clis[dtype])})
            else:
                pending.append(dtype)
        if not pending:
            return
        enter("original")
        reference = None
        category, message = None, job.get("original_failed")
        if message:
            category = "ort-refused-original"
        else:
            try:
                original = onnx.load(model)
                inputs, outputs = self.graph_io(original)
                values, source = self.make_inputs(model, inputs, job["seed"])
                feeds = {name: self.feed_value(values[name], tp) for name, tp in inputs if name in values}
                try:
                    session = self.session(model)
                    ref_outputs = self.run(session, feeds)
                    del session
                except UnsupportedIO:
                    raise
                except Exception as e:
                    category, message = "ort-refused-original", ort_message(e)
                else:
                    checker = check_model(onnx, model)
                    random_ops = sorted(op_types(original.graph) & RANDOM_OPS)
                    reference = (inputs, outputs, values, source, ref_outputs, checker, random_ops)
            except UnsupportedIO as e:
                category, message = "inputs-unsupported", "original: %s" % e
            except Exception as e:
                category, message = "ort-refused-original", ort_message(e)
        if reference is None:
            for dtype in pending:
                emit({"result": make_result(dtype, category, message, clis[dtype])})
            return
        for dtype in pending:
            enter("converted:" + dtype)
            emit({"result": self.evaluate_converted(dtype, clis[dtype], reference)})

    def evaluate_converted(self, dtype, cli, reference):
        onnx = self.onnx
        inputs, outputs, values, source, ref_outputs, checker_original, random_ops = reference
        path = cli["output"]
        result = make_result(dtype, None, "", cli)
        result["inputs"] = source
        if random_ops:
            result["random_ops"] = random_ops
        try:
            converted = onnx.load(path)
        except Exception as e:
            result.update(category="ort-refused-converted",
                          message="onnx.load: " + ort_message(e))
            return result
        c_inputs, c_outputs = self.graph_io(converted)
        if checker_original is None:
            result["checker"] = check_model(onnx, path)
        changes = io_changes(self, inputs, c_inputs, "input") + io_changes(self, outputs, c_outputs, "output")
        if changes:
            result["io_changes"] = changes
        differ = []
        for what, old, new in (("inputs", inputs, c_inputs), ("outputs", outputs, c_outputs)):
            gone = [n for n, _ in old if n not in dict(new)]
            added = [n for n, _ in new if n not in dict(old)]
            if gone:
                differ.append("%s missing: %s" % (what, ", ".join(gone)))
            if added:
                differ.append("new %s: %s" % (what, ", ".join(added)))
        if differ:
            result.update(category="interface-changed", message="; ".join(differ))
            return result
        try:
            feeds = {name: self.feed_value(values[name], tp) for name, tp in c_inputs if name in values}
        except UnsupportedIO as e:
            result.update(category="inputs-unsupported", message="converted: %s" % e)
            return result
        try:
            session = self.session(path)
            out_names = [o.name for o in session.get_outputs()]
            got = dict(zip(out_names, self.run(session, feeds)))
            del session
        except UnsupportedIO as e:
            result.update(category="inputs-unsupported", message="converted: %s" % e)
            return result
        except Exception as e:
            result.update(category="ort-refused-converted", message=ort_message(e),
                          refusal=refusal_kind(str(e), result.get("checker")))
            return result
        rows = [self.compare(name, ref, got.get(name)) for (name, _), ref in zip(outputs, ref_outputs)]
        result["outputs"] = rows
        if rows:
            result["max_abs"] = max(r["max_abs"] for r in rows)
            result["max_rel"] = max(r["max_rel"] for r in rows)
        bad_shape = [r for r in rows if r["shape_mismatch"]]
        nonfinite = [r for r in rows if r["nonfinite_new"]]
        if bad_shape:
            result.update(category="shape-mismatch", message="; ".join(
                "%s: %s" % (r["name"], r.get("detail", "")) for r in bad_shape))
        elif nonfinite:
            result.update(category="ran-with-nonfinite", message="; ".join(
                "%s: %d of %d non-finite" % (r["name"], r["nonfinite_new"], r["elements"]) for r in nonfinite))
        else:
            result["category"] = "converted+ran"
        return result


class UnsupportedIO(Exception):
    pass


class BF16:
    """A bfloat16 feed: the raw uint16 bits."""
    def __init__(self, bits):
        self.bits = bits


def refusal_kind(text, checker):
    """Sorts ORT's refusals of a converted model: 'no-kernel' (a valid model, onnx.checker accepts
    it, but ORT's CPU provider has no kernel for an op at that type: bfloat16 MatMul, Gemm ...),
    'invalid' (ORT or onnx.checker finds the model itself wrong), 'run' (it failed while running)."""
    if "NOT_IMPLEMENTED" in text and "Could not find an implementation" in text and not checker:
        return "no-kernel"
    if checker or "INVALID_GRAPH" in text or "INVALID_PROTOBUF" in text or "load failed" in text \
            or "Load model" in text:
        return "invalid"
    return "run"


def make_result(dtype, category, message, cli):
    result = {"dtype": dtype, "category": category, "message": message,
              "cli_seconds": cli.get("seconds"), "cli_rc": cli.get("rc")}
    if cli.get("note"):
        result["cli_note"] = cli["note"]
    if cli.get("fake_notes"):
        result["fake_notes"] = cli["fake_notes"]
    return result


def check_model(onnx, path):
    """None when onnx.checker accepts the model, else its message's first line."""
    try:
        onnx.checker.check_model(path)
        return None
    except Exception as e:
        return first_line(str(e)) or type(e).__name__


def io_changes(worker, before, after, what):
    after = dict(after)
    changes = []
    for name, tp in before:
        if name in after:
            old, new = worker.describe_type(tp), worker.describe_type(after[name])
            if old != new:
                changes.append("%s %s: %s -> %s" % (what, name, old, new))
    return changes


def float32_to_bf16_bits(np, x):
    """Round to nearest even, as ORT's Cast does; NaN kept NaN."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), rounded).astype(np.uint16)


def bf16_bits_to_float32(np, bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def np_bits_of_tensor(np, proto):
    if proto.raw_data:
        return np.frombuffer(proto.raw_data, np.uint16).copy()
    return np.asarray(proto.int32_data, dtype=np.uint32).astype(np.uint16)


# ----------------------------------------------------------------------------------------------
# The fake converter (--fake-convert): a stand-in for the CLI, in Python with onnx only.
# ----------------------------------------------------------------------------------------------

def fake_convert(onnx, np, source, output, dtype, mode, low_precision_io):
    """copy: the model as read. round: float32 initializers stored in the target dtype with a Cast
    back to float32, and with --low-precision-io float32 graph inputs and outputs in the target
    dtype (so the error measurement and the float16/bfloat16 feeding are exercised). corrupt: the
    first node's op is renamed to one that does not exist, so ORT must reject every converted model.
    Returns notes on what was left alone."""
    from onnx import helper
    model = onnx.load(source)
    graph = model.graph
    notes = []
    if mode == "corrupt" and len(graph.node):
        graph.node[0].op_type = "AmpStudioFakeCorruption"
    elif mode == "round":
        target = TARGET_ELEM[dtype]
        opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [0])
        need = 13 if target == BFLOAT16 else 6
        if opset < need:
            notes.append("opset %d < %d: copied unchanged" % (opset, need))
        else:
            casts_in, kept = [], []
            for init in graph.initializer:
                if init.data_type != FLOAT or init.data_location == 1:
                    continue
                # IR < 4 lists every initializer among the inputs too (a default the caller may
                # override; this script never does): the stored one replaces it there.
                for value in [v for v in graph.input if v.name == init.name]:
                    graph.input.remove(value)
                if model.ir_version < 4:
                    graph.input.append(helper.make_tensor_value_info(
                        init.name + "__amp_fake_" + dtype, target, list(init.dims)))
                array = onnx.numpy_helper.to_array(init).astype(np.float32)
                stored = init.name + "__amp_fake_" + dtype
                low = onnx.TensorProto(name=stored, data_type=target, dims=list(init.dims))
                if target == FLOAT16:
                    low.raw_data = array.astype(np.float16).tobytes()
                else:
                    low.raw_data = float32_to_bf16_bits(np, array).tobytes()
                casts_in.append(helper.make_node("Cast", [stored], [init.name], to=FLOAT,
                                                 name=stored + "_cast"))
                kept.append((init, low))
            for init, low in kept:
                graph.initializer.remove(init)
                graph.initializer.append(low)
            if low_precision_io:
                initialized = {t.name for t in graph.initializer}
                output_names = [v.name for v in graph.output]
                for value in graph.input:
                    if value.name in initialized or value.name in output_names:
                        continue
                    if value.type.tensor_type.elem_type == FLOAT:
                        inner = value.name + "__amp_fake_f32"
                        rename_uses(graph, value.name, inner)
                        value.type.tensor_type.elem_type = target
                        casts_in.insert(0, helper.make_node("Cast", [value.name], [inner], to=FLOAT,
                                                            name=inner + "_cast"))
                produced = {o for n in graph.node for o in n.output}
                seen = set()
                for value in graph.output:
                    if value.name in seen or value.name not in produced:
                        continue
                    seen.add(value.name)
                    if value.type.tensor_type.elem_type == FLOAT:
                        inner = value.name + "__amp_fake_f32"
                        for node in graph.node:
                            node.output[:] = [inner if o == value.name else o for o in node.output]
                        rename_uses(graph, value.name, inner)
                        for info in graph.value_info:
                            if info.name == value.name:
                                info.name = inner
                        graph.node.append(helper.make_node("Cast", [inner], [value.name], to=target,
                                                           name=inner + "_cast"))
                        value.type.tensor_type.elem_type = target
            nodes = casts_in + list(graph.node)
            del graph.node[:]
            graph.node.extend(nodes)
    onnx.save(model, output)
    return notes


def op_types(graph):
    """Every op type in graph and its subgraphs."""
    from onnx import AttributeProto
    ops = set()
    for node in graph.node:
        ops.add(node.op_type)
        for attr in node.attribute:
            if attr.type == AttributeProto.GRAPH:
                ops |= op_types(attr.g)
            elif attr.type == AttributeProto.GRAPHS:
                for g in attr.graphs:
                    ops |= op_types(g)
    return ops


def rename_uses(graph, old, new):
    """Every node input named old, in graph and its subgraphs (which may read it from outside)."""
    from onnx import AttributeProto
    for node in graph.node:
        node.input[:] = [new if i == old else i for i in node.input]
        for attr in node.attribute:
            if attr.type == AttributeProto.GRAPH:
                rename_uses(attr.g, old, new)
            elif attr.type == AttributeProto.GRAPHS:
                for g in attr.graphs:
                    rename_uses(g, old, new)


def worker_main(config_json):
    # Die with the driver, even when stuck inside ORT (Linux: prctl PR_SET_PDEATHSIG, SIGKILL).
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:
        return
    # The protocol goes to a private copy of stdout; anything a library prints goes to stderr.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    config = json.loads(config_json)
    worker = Worker(config)

    def emit(message):
        proto.write(json.dumps(message) + "\n")
        proto.flush()

    emit({"ready": True})
    for line in sys.stdin:
        job = json.loads(line)
        try:
            worker.job(job, emit)
        except Exception:
            emit({"error": traceback.format_exc()})
        emit({"done": True})


# ----------------------------------------------------------------------------------------------
# Driver side: finding models, workers, the summary. Standard library only.
# ----------------------------------------------------------------------------------------------

def find_models(paths):
    models = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                models += [(path, os.path.join(root, f)) for f in sorted(files) if f.endswith(".onnx")]
        elif os.path.isfile(path):
            models.append((os.path.dirname(path) or ".", path))
        else:
            sys.exit("onnx_runtime_check: no such model or folder: %s" % path)
    return models


def display_name(root, path):
    rel = os.path.relpath(path, root)
    if os.path.basename(rel) == "model.onnx" and os.path.dirname(rel):
        rel = os.path.dirname(rel)
    if rel.startswith("data" + os.sep):
        rel = rel[5:]
    return rel


def default_cli():
    preferred = os.path.join(REPO, "build-cpu", "app", "ampstudio-cli")
    if os.path.isfile(preferred):
        return preferred
    found = []
    for entry in sorted(os.listdir(REPO)):
        if entry.startswith("build") and os.path.isdir(os.path.join(REPO, entry)):
            for root, _, files in os.walk(os.path.join(REPO, entry)):
                if "ampstudio-cli" in files:
                    found.append(os.path.join(root, "ampstudio-cli"))
    return found[0] if found else preferred


class WorkerProcess:
    """One `--worker` child; lines it prints arrive on a queue (None at its end)."""

    def __init__(self, config, log_path):
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, job):
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout):
        """A message, or ("exit", code) / ("timeout", None)."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return ("timeout", None)
        if line is None:
            return ("exit", self.proc.wait())
        return json.loads(line)

    def kill(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        self.log.close()


class Driver:
    def __init__(self, args, config, models, workroot):
        self.args, self.config, self.models, self.workroot = args, config, models, workroot
        self.jobs = queue.Queue()
        for index, model in enumerate(models):
            self.jobs.put((index, model))
        self.results = []
        self.lock = threading.Lock()
        self.done_models = 0
        self.started = time.monotonic()

    def phase_timeout(self, phase):
        if phase.startswith("cli:"):
            return self.args.cli_timeout + 60
        return self.args.ort_timeout

    def record(self, model, result):
        result["model"] = model["name"]
        result["path"] = model["path"]
        with self.lock:
            self.results.append(result)
            if not self.args.quiet and result["category"] != "converted+ran":
                print("  %-22s %-9s %s  %s" % (result["category"], result["dtype"], model["name"],
                                               first_line(result["message"], 160)), flush=True)

    def run_model(self, slot, index, model):
        """Runs one model to the end, restarting the slot's worker where it dies or hangs."""
        workdir = os.path.join(self.workroot, "%05d" % index)
        job = {"model": model["path"], "dtypes": list(self.args.dtypes), "workdir": workdir,
               "seed": model["seed"]}
        reported = set()
        attempts = 0
        while job["dtypes"]:
            attempts += 1
            if attempts > len(self.args.dtypes) + 2:  # each retry settles something; never loop
                for dtype in job["dtypes"]:
                    self.record(model, {"dtype": dtype, "category": "tool-crash",
                                        "message": "the worker died %d times on this model" % (attempts - 1)})
                break
            worker = slot["worker"]
            if worker is None:
                worker = slot["worker"] = WorkerProcess(self.config, slot["log"])
                message = worker.receive(120)
                if message != {"ready": True}:
                    sys.exit("onnx_runtime_check: the worker did not start (%s); see %s" % (
                        message, slot["log"]))
            worker.send(job)
            phase, failure = "start", None
            while True:
                message = worker.receive(self.phase_timeout(phase))
                if isinstance(message, tuple):
                    failure = message
                    break
                if "phase" in message:
                    phase = message["phase"]
                elif "result" in message:
                    reported.add(message["result"]["dtype"])
                    self.record(model, message["result"])
                elif "error" in message:
                    print("worker error on %s:\n%s" % (model["name"], message["error"]), file=sys.stderr)
                elif message.get("done"):
                    break
            if failure is None:
                break
            worker.kill()
            slot["worker"] = None
            how = ("timed out after %d s" % self.phase_timeout(phase) if failure[0] == "timeout"
                   else "killed by %s" % signal_name(-failure[1]) if failure[1] < 0
                   else "exited %d" % failure[1])
            remaining = [d for d in job["dtypes"] if d not in reported]
            if not remaining:
                break
            if phase.startswith("cli:") or phase == "start":
                dtype = phase[4:] if phase.startswith("cli:") else remaining[0]
                self.record(model, {"dtype": dtype, "category": "tool-crash",
                                    "message": "worker %s while converting" % how})
                remaining.remove(dtype)
            elif phase == "original":
                job["original_failed"] = "ORT %s on the original" % how
            elif phase.startswith("converted:"):
                dtype = phase[len("converted:"):]
                self.record(model, {"dtype": dtype, "category": "ort-refused-converted",
                                    "message": "ORT %s on the converted model" % how})
                remaining.remove(dtype)
            job["dtypes"] = remaining
        self.keep_or_remove(model, workdir)

    def keep_or_remove(self, model, workdir):
        if self.args.keep:
            with self.lock:
                mine = [r for r in self.results if r["path"] == model["path"]]
            for result in mine:
                source = os.path.join(workdir, result["dtype"])
                if result["category"] != "converted+ran" and os.path.isdir(source):
                    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model["name"])
                    target = os.path.join(self.args.keep, "%s-%s" % (safe, result["dtype"]))
                    shutil.rmtree(target, ignore_errors=True)
                    shutil.copytree(source, target)
                    shutil.copy(model["path"], os.path.join(target, "original.onnx"))
                    with open(os.path.join(target, "result.json"), "w") as f:
                        json.dump(result, f, indent=1)
        shutil.rmtree(workdir, ignore_errors=True)

    def slot_main(self, number):
        slot = {"worker": None, "log": os.path.join(self.workroot, "worker-%d.log" % number)}
        try:
            while True:
                try:
                    index, model = self.jobs.get_nowait()
                except queue.Empty:
                    break
                self.run_model(slot, index, model)
                with self.lock:
                    self.done_models += 1
                    done = self.done_models
                if not self.args.quiet and (done % 100 == 0 or done == len(self.models)):
                    print("[%d/%d models, %.0f s]" % (done, len(self.models), time.monotonic() - self.started),
                          flush=True)
        finally:
            if slot["worker"] is not None:
                slot["worker"].proc.stdin.close()
                slot["worker"].kill()

    def run(self):
        threads = [threading.Thread(target=self.slot_main, args=(n,)) for n in range(self.args.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        order = {m["path"]: i for i, m in enumerate(self.models)}
        self.results.sort(key=lambda r: (order[r["path"]], self.args.dtypes.index(r["dtype"])))
        return self.results


def print_summary(args, results, seconds):
    dtypes = args.dtypes
    counts = collections.Counter((r["category"], r["dtype"]) for r in results)
    width = max(len(c) for c in CATEGORY_NAMES) + 2
    print()
    print("%-*s" % (width, "category") + "".join("%10s" % d for d in dtypes))
    for name in CATEGORY_NAMES:
        print("%-*s" % (width, name) + "".join("%10d" % counts[(name, d)] for d in dtypes))
    print("%-*s" % (width, "total") + "".join(
        "%10d" % sum(1 for r in results if r["dtype"] == d) for d in dtypes))
    print("(%d models, %.0f s)" % (len({r["path"] for r in results}), seconds))

    ran = [r for r in results if r["category"] in ("converted+ran", "ran-with-nonfinite") and r.get("outputs")]
    key = "max_rel" if args.sort == "rel" else "max_abs"
    other = "max_abs" if key == "max_rel" else "max_rel"
    exact = [r for r in ran if r["category"] == "converted+ran" and not r.get("max_abs") and not r.get("max_rel")]
    if ran:
        print("\n%d of %d converted+ran runs gave outputs equal to the original's" % (
            len(exact), sum(1 for r in ran if r["category"] == "converted+ran")))
    random = [r for r in ran if r.get("random_ops") and r not in exact]
    if random:
        print("%d runs of models with random ops (%s) left out of the worst errors" % (
            len(random), ", ".join(sorted({op for r in random for op in r["random_ops"]}))))
    strings = [r for r in ran if any(o.get("strings_differ") for o in r["outputs"])]
    if strings:
        print("%d runs with string outputs that differ (not measured): %s" % (
            len(strings), ", ".join("%s %s" % (r["dtype"], r["model"]) for r in strings[:8])
            + (" ..." if len(strings) > 8 else "")))
    ran = [r for r in ran if r not in exact and r not in random]
    if ran and args.worst:
        print("\nworst %d by %s (rel = |a-b| / max(|a|, %g) over elements finite in both):" % (
            min(args.worst, len(ran)), key, args.rel_eps))
        for r in sorted(ran, key=lambda r: (r.get(key, 0), r.get(other, 0)), reverse=True)[:args.worst]:
            out = max(r["outputs"], key=lambda o: o[key])
            at = out.get("worst_rel_at")
            where = " (%.6g vs %.6g)" % (at["original"], at["converted"]) if at else ""
            print("  %-9s %-60s %s=%-10.3g %s=%-10.3g output %s%s" % (
                r["dtype"], r["model"], key, r[key], other, r[other], out["name"], where))

    for category, title in (("ort-refused-converted", "ORT rejected the converted model"),
                            ("shape-mismatch", "output shapes differ"),
                            ("interface-changed", "inputs or outputs renamed"),
                            ("tool-crash", "the converter crashed or timed out")):
        rows = [r for r in results if r["category"] == category]
        if rows:
            kinds = collections.Counter(r.get("refusal") for r in rows if r.get("refusal"))
            print("\n%s (%s): %d%s" % (category, title, len(rows), " (%s)" % ", ".join(
                "%s %d" % kv for kv in sorted(kinds.items())) if kinds else ""))
            for r in rows[:args.list_limit]:
                print("  %-9s %s: %s%s" % (r["dtype"], r["model"], "[%s] " % r["refusal"] if r.get("refusal")
                                           else "", first_line(r["message"], 240)))
            if len(rows) > args.list_limit:
                print("  ... %d more (--list-limit, or --json)" % (len(rows) - args.list_limit))

    refused = collections.Counter((r["dtype"], r["message"]) for r in results if r["category"] == "cli-refused")
    if refused:
        print("\ncli-refused reasons (most frequent first):")
        for (dtype, message), n in refused.most_common(args.list_limit):
            print("  %5d  %-9s %s" % (n, dtype, message[:200]))

    renamed = [r for r in results if r.get("cli_note")]
    if renamed:
        print("\nthe CLI wrote its output under another name (used all the same): %d" % len(renamed))
        for r in renamed[:args.list_limit]:
            print("  %-9s %s: %s" % (r["dtype"], r["model"], r["cli_note"]))

    checker = [r for r in results if r.get("checker")]
    if checker:
        print("\nonnx.checker rejects the converted model (it accepts the original): %d" % len(checker))
        for r in checker[:args.list_limit]:
            print("  %-9s %s: %s" % (r["dtype"], r["model"], r["checker"][:200]))

    if not args.low_precision_io:
        changed = [r for r in results if r.get("io_changes")]
        if changed:
            print("\ninput/output types changed without --low-precision-io: %d" % len(changed))
            for r in changed[:args.list_limit]:
                print("  %-9s %s: %s" % (r["dtype"], r["model"], "; ".join(r["io_changes"])[:200]))


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Converts ONNX models with ampstudio-cli and runs them in ONNX Runtime against "
                    "the float32 originals.",
        epilog="Categories: " + "; ".join("%s: %s" % c for c in CATEGORIES))
    parser.add_argument("--models", nargs="+", metavar="PATH",
                        help=".onnx files or folders searched recursively (default: %s)" % DEFAULT_MODELS)
    parser.add_argument("--cli", help="ampstudio-cli (default: build-cpu/app/ampstudio-cli, else the "
                                      "first build*/ that has one)")
    parser.add_argument("--cli-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for every convert (repeatable; --cli-arg=--flag)")
    parser.add_argument("--dtypes", default="float16,bfloat16", help="target dtypes (default: %(default)s)")
    parser.add_argument("--low-precision-io", action="store_true",
                        help="pass --low-precision-io to the CLI (graph inputs/outputs in the target dtype)")
    parser.add_argument("--fake-convert", nargs="?", const="copy", choices=["copy", "round", "corrupt"],
                        help="self-test: convert in Python instead of the CLI (default mode: copy)")
    parser.add_argument("--json", metavar="FILE", help="write every result here")
    parser.add_argument("--limit", type=int, help="only the first N models (sorted by path)")
    parser.add_argument("--match", metavar="REGEX", help="only models whose path matches")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    parser.add_argument("--cli-timeout", type=int, default=120, help="seconds per convert (default: %(default)s)")
    parser.add_argument("--ort-timeout", type=int, default=300,
                        help="seconds for loading and running one model in ORT (default: %(default)s)")
    parser.add_argument("--ort-optimization", default="all", choices=["disable", "basic", "extended", "all"],
                        help="ORT graph optimization level (default: %(default)s, ORT's own default)")
    parser.add_argument("--random-inputs", action="store_true", help="random inputs even where test_data_set_0 exists")
    parser.add_argument("--seed", type=int, default=0, help="mixed into every model's input seed")
    parser.add_argument("--batch-size", type=int, default=1, help="size of a dynamic first axis (default: 1)")
    parser.add_argument("--dim-size", type=int, default=2, help="size of the other dynamic axes (default: 2)")
    parser.add_argument("--rel-eps", type=float, default=1e-3,
                        help="floor of |a| in the relative error (default: %(default)g)")
    parser.add_argument("--sort", choices=["rel", "abs"], default="rel", help="worst errors by (default: rel)")
    parser.add_argument("--worst", type=int, default=15, help="how many worst errors to print")
    parser.add_argument("--list-limit", type=int, default=40, help="rows per printed list")
    parser.add_argument("--keep", metavar="DIR", help="keep every case not converted+ran here "
                                                      "(original, converted, cli.json, result.json)")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    args = parser.parse_args(argv)
    args.dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    for d in args.dtypes:
        if d not in TARGET_ELEM:
            parser.error("unknown dtype %s (float16, bfloat16)" % d)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def ensure_runtime():
    """Re-executes under the venv when this python has no onnxruntime."""
    try:
        import numpy, onnx, onnxruntime  # noqa: F401
        return
    except ImportError as e:
        missing = e
    # (No realpath: the venv's python is a link to the system's, and only the path selects the venv.)
    if os.path.exists(VENV_PYTHON) and not os.environ.get("ONNX_RUNTIME_CHECK_REEXEC"):
        os.environ["ONNX_RUNTIME_CHECK_REEXEC"] = "1"
        os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("onnx_runtime_check: %s; run tests/differential/setup_venvs.sh ort first" % missing)


def main(argv):
    if len(argv) == 2 and argv[0] == "--worker":
        worker_main(argv[1])
        return 0
    args = parse_args(argv)
    ensure_runtime()
    paths = args.models or ([DEFAULT_MODELS] if os.path.isdir(DEFAULT_MODELS) else [])
    if not paths:
        sys.exit("onnx_runtime_check: no --models and no %s (apt-get install libonnx-testdata)" % DEFAULT_MODELS)
    models = []
    for root, path in find_models(paths):
        if args.match and not re.search(args.match, path):
            continue
        name = display_name(root, path)
        models.append({"path": os.path.abspath(path), "name": name,
                       "seed": (zlib.crc32(name.encode()) ^ args.seed) & 0xFFFFFFFF})
    if args.limit is not None:
        models = models[:args.limit]
    if not models:
        sys.exit("onnx_runtime_check: no .onnx models found")
    cli = args.cli or default_cli()
    if not args.fake_convert and not os.access(cli, os.X_OK):
        sys.exit("onnx_runtime_check: no ampstudio-cli at %s (build it, give --cli, or --fake-convert)" % cli)
    config = {"cli": os.path.abspath(cli), "cli_args": args.cli_arg, "cli_timeout": args.cli_timeout,
              "low_precision_io": args.low_precision_io, "fake_convert": args.fake_convert,
              "ort_optimization": args.ort_optimization, "random_inputs": args.random_inputs,
              "batch_size": args.batch_size, "dim_size": args.dim_size, "rel_eps": args.rel_eps}
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    import onnx, onnxruntime
    print("%d models, dtypes %s, %s%s; onnx %s, onnxruntime %s" % (
        len(models), ",".join(args.dtypes),
        "fake-convert " + args.fake_convert if args.fake_convert else config["cli"],
        ", --low-precision-io" if args.low_precision_io else "", onnx.__version__, onnxruntime.__version__),
        flush=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ort-check-") as workroot:
        results = Driver(args, config, models, workroot).run()
    seconds = time.monotonic() - start
    print_summary(args, results, seconds)
    if args.json:
        counts = {d: {c: sum(1 for r in results if r["dtype"] == d and r["category"] == c)
                      for c in CATEGORY_NAMES} for d in args.dtypes}
        document = {"config": dict(config, models=paths, dtypes=args.dtypes, seed=args.seed,
                                   onnx=onnx.__version__, onnxruntime=onnxruntime.__version__),
                    "categories": dict(CATEGORIES), "counts": counts, "seconds": round(seconds, 1),
                    "results": results}
        with open(args.json, "w") as f:
            json.dump(document, f, indent=1, allow_nan=True)
            f.write("\n")
        print("\nwrote %s" % args.json)
    return 1 if any(r["category"] in FAILING for r in results) else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the run (the workers die with it)
    sys.exit(main(sys.argv[1:]))
