#!/usr/bin/env python3
"""Worker for differential.py: runs under one of the MXNet venvs (1.9.1 or 1.6.0) and answers jobs,
one JSON object per line on stdin, one JSON answer per line on stdout, in order, until EOF.
Importing MXNet takes a second, so one process answers a whole batch.

Jobs:
  {"op": "convert", "symbol": "<symbol JSON text>", "target_dtype": "float16",
   "excluded_sym_names": [...], "data_names": [...], "cast_optional_params": false}
     -> {"ok": true, "json": "<tojson(remove_amp_cast=False)>", "source_json": "<the input as MXNet saves it>"}
     or {"ok": false, "error": "<first lines of MXNet's message>"}
  {"op": "infer", "symbol": "<symbol JSON text>", "types": {"data": "float32", ...}, "bind": false}
     -> {"ok": true, "complete": bool, "unknown": [names of inputs left untyped],
         "outputs": ["float32", ...]} or {"ok": false, "error": "..."}
     (MXSymbolInferTypePartial with the given input dtypes, everything else unconstrained: what
     MXNet's own convert_symbol does after its pass with the data names' dtypes)
  {"op": "lists"} -> the default AMP lists of this MXNet (float16), in the schema of
     ../shared/reference/amp-lists-mxnet-1.9.1-float16.json
  {"op": "version"} -> {"ok": true, "version": "1.9.1"}

The answer stream is the original stdout; anything MXNet itself prints goes to stderr.
"""

import ctypes
import json
import os
import sys
import traceback

# Keep MXNet's and numpy's own prints out of the answer stream.
_answers = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

import warnings  # noqa: E402
warnings.filterwarnings("ignore")

import mxnet as mx  # noqa: E402
from mxnet.base import _LIB, check_call, c_str_array, c_array_buf, mx_uint  # noqa: E402
from array import array  # noqa: E402

VERSION = mx.__version__
NEW = tuple(int(x) for x in VERSION.split(".")[:2]) >= (1, 9)

# mshadow type flags
DTYPE_CODE = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
              "int64": 6, "bool": 7, "int16": 8, "uint16": 9, "uint32": 10, "uint64": 11, "bfloat16": 12}
CODE_DTYPE = {v: k for k, v in DTYPE_CODE.items()}


def first_lines(message, n=4):
    """The informative first lines of an MXNet error (no stack frames)."""
    out = []
    for line in str(message).splitlines():
        s = line.strip()
        if not s or s.startswith("[bt]") or s.startswith("Stack trace") or s.startswith("File \"") \
                or s.startswith("Traceback") or s.startswith("  File") or s.startswith("at "):
            continue
        out.append(s)
        if len(out) >= n:
            break
    return "\n".join(out) if out else str(message).strip()[:500]


def tojson(sym):
    return sym.tojson(remove_amp_cast=False) if NEW else sym.tojson()


def do_convert(job):
    from mxnet.contrib import amp
    try:
        sym = mx.sym.load_json(job["symbol"])
        source_json = tojson(sym)
    except Exception as e:
        return {"ok": False, "stage": "load", "error": first_lines(e)}
    kwargs = dict(target_dtype=job.get("target_dtype", "float16"),
                  excluded_sym_names=list(job.get("excluded_sym_names", [])),
                  data_names=list(job.get("data_names", ["data"])),
                  cast_optional_params=bool(job.get("cast_optional_params", False)))
    try:
        out = amp.convert_symbol(sym, **kwargs)
    except Exception as e:  # MXNetError, AssertionError, ValueError
        return {"ok": False, "stage": "convert", "error": first_lines(e), "error_type": type(e).__name__,
                "source_json": source_json}
    return {"ok": True, "json": tojson(out), "source_json": source_json}


def _infer_partial(sym, types):
    keys = list(types.keys())
    codes = [DTYPE_CODE[types[k]] for k in keys]
    arg_size, out_size, aux_size = mx_uint(), mx_uint(), mx_uint()
    arg_data = ctypes.POINTER(ctypes.c_int)()
    out_data = ctypes.POINTER(ctypes.c_int)()
    aux_data = ctypes.POINTER(ctypes.c_int)()
    complete = ctypes.c_int()
    check_call(_LIB.MXSymbolInferTypePartial(
        sym.handle, mx_uint(len(keys)), c_str_array(keys),
        c_array_buf(ctypes.c_int, array("i", codes)),
        ctypes.byref(arg_size), ctypes.byref(arg_data),
        ctypes.byref(out_size), ctypes.byref(out_data),
        ctypes.byref(aux_size), ctypes.byref(aux_data),
        ctypes.byref(complete)))
    args = sym.list_arguments()
    auxs = sym.list_auxiliary_states()
    inputs = {args[i]: arg_data[i] for i in range(arg_size.value)}
    inputs.update({auxs[i]: aux_data[i] for i in range(aux_size.value)})
    outputs = [CODE_DTYPE.get(out_data[i], str(out_data[i])) for i in range(out_size.value)]
    return inputs, outputs, bool(complete.value)


def do_infer(job):
    """Type inference with the given input dtypes, the rest unconstrained. With "bind": then every
    input still unknown float32 and inference again, as binding the graph with float32 arrays for the
    parameters nobody typed does."""
    sym = mx.sym.load_json(job["symbol"])
    types = dict(job.get("types", {}))
    try:
        inputs, outputs, complete = _infer_partial(sym, types)
        if job.get("bind"):
            for name, code in inputs.items():
                if code == -1:
                    types[name] = "float32"
            inputs, outputs, complete = _infer_partial(sym, types)
    except Exception as e:
        return {"ok": False, "error": first_lines(e)}
    unknown = [n for n, code in inputs.items() if code == -1]
    return {"ok": True, "complete": complete, "unknown": unknown, "outputs": outputs}


def do_lists(job):
    from mxnet.contrib import amp
    lists = amp.lists.symbol_fp16 if NEW else amp.lists.symbol
    if NEW:
        target, fp32, neutral = amp.list_lp16_ops("float16"), amp.list_fp32_ops("float16"), \
            amp.list_lp16_fp32_ops("float16")
        widest, cond = amp.list_widest_type_cast("float16"), amp.list_conditional_fp32_ops("float16")
    else:
        target, fp32, neutral = amp.list_fp16_ops(), amp.list_fp32_ops(), amp.list_fp16_fp32_ops()
        widest, cond = lists.WIDEST_TYPE_CASTS, amp.list_conditional_fp32_ops()
    return {"ok": True, "lists": {
        "source": "apache/mxnet %s python/mxnet/contrib/amp/lists/%s.py, exported by "
                  "tests/differential/mxnet_convert.py" % (VERSION, "symbol_fp16" if NEW else "symbol"),
        "license": "Apache-2.0",
        "target_dtype": "float16",
        "target_dtype_ops": list(target),
        "fp32_ops": list(fp32),
        "neutral_ops": list(neutral),
        "widest_dtype_ops": list(widest),
        "conditional_fp32_ops": [{"op": c[0], "param": c[1], "values": list(c[2])} for c in cond],
        "loss_output_ops": list(lists.LOSS_OUTPUT_FUNCTIONS),
    }}


HANDLERS = {"convert": do_convert, "infer": do_infer, "lists": do_lists,
            "version": lambda job: {"ok": True, "version": VERSION}}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            job = json.loads(line)
            answer = HANDLERS[job["op"]](job)
        except Exception as e:  # a bad job must not end the batch
            answer = {"ok": False, "error": first_lines(e), "internal": traceback.format_exc(limit=3)}
        _answers.write(json.dumps(answer) + "\n")
        _answers.flush()


if __name__ == "__main__":
    main()
