#!/usr/bin/env python3
"""Probe MXNet 1.9.1's dtype inference for every registered operator.

Developer tool (not run by the test suite).  Writes
resources/mxnet/mxnet-1.9.1-op-dtypes.json.  Run it with the mxnet 1.9.1 venv:

    tests/differential/.venv-mxnet191/bin/python tests/differential/probe_dtype_inference.py

Needs g++ (any version that accepts -std=c++17): it compiles
tests/differential/probe_finfertype_shim.cc against the wheel's libmxnet.so and
shipped headers, and calls each operator's FInferType exactly as
ReducePrecision (src/nnvm/low_precision_pass.cc) does.  Graph-level facts come
from MXSymbolInferTypePartial (the same mxnet::exec::InferType that
MXReducePrecisionSymbol runs after the pass).

Probing runs in a worker subprocess; if an operator crashes the worker, the op
gets a probe_error and the worker is restarted with the remaining ops.
"""

import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "resources", "mxnet", "mxnet-1.9.1-op-dtypes.json")
SHIM_SRC = os.path.join(HERE, "probe_finfertype_shim.cc")

DTYPE_NAMES = {-1: None, 0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32",
               5: "int8", 6: "int64", 7: "bool", 8: "int16", 9: "uint16", 10: "uint32",
               11: "uint64", 12: "bfloat16"}
F32, F16, BF16 = 0, 2, 12
PASS_TYPES = [("float16", F16), ("bfloat16", BF16), ("float32", F32)]

# ---------------------------------------------------------------------------
# Attribute filling.  Type inference does not look at shapes, so values only
# have to parse and pass parameter validation.
# ---------------------------------------------------------------------------

# (op, param) -> value, or op -> {param: value} overrides applied on top of the
# generic values.  Only what is needed to instantiate ops / to get a
# representative configuration.
OP_OVERRIDES = {
    "Pad": {"pad_width": "(0,0,0,0,1,1,1,1)", "mode": "constant"},
    "clip": {"a_min": "0", "a_max": "1"},
    "_npi_clip": {"a_min": "0", "a_max": "1"},
    "_contrib_BilinearResize2D": {"mode": "like"},  # 2-input form (data, like)
    "_npi_choice": {"a": "3", "size": "(2,)"},
    "Custom": {"op_type": "ampprobe_custom"},
    "RNN": {"mode": "lstm"},
    "Pooling": {"kernel": "(1,1)"},
    "Pooling_v1": {"kernel": "(1,1)"},
    "_contrib_quantized_pooling": {"kernel": "(1,1)"},
    "_contrib_quantized_rnn": {"mode": "lstm"},
    "slice_axis": {"axis": "0", "begin": "0", "end": "1"},
    "_eye": {"N": "2"},
    "_npi_eye": {"N": "2"},
    "_random_randint": {"low": "0", "high": "5"},
    "_npi_random_randint": {"low": "0", "high": "5"},
}
VARIADIC_COUNT = 3
# Extra attribute configurations probed for ops whose inputs/outputs change
# with an attribute; reported under "variants" (each a full sub-record).
VARIANTS = {
    "SequenceMask": [{"use_sequence_length": "True"}],
    "SequenceLast": [{"use_sequence_length": "True"}],
    "SequenceReverse": [{"use_sequence_length": "True"}],
    "_contrib_BilinearResize2D": [{"mode": "size"}],
    "amp_multicast": [{"cast_narrow": "True"}],
    "LeakyReLU": [{"act_type": "prelu"}],
    "softmax": [{"use_length": "True"}],
    "RNN": [{"use_sequence_length": "True"}],
    "CTCLoss": [{"use_data_lengths": "True", "use_label_lengths": "True"}],
    "topk": [{"ret_typ": "both"}, {"ret_typ": "value"}, {"ret_typ": "mask"}],
}  # inputs for ops whose input count is set by key_var_num_args


def _int_for(name):
    if name in ("axis", "begin", "low", "top", "bot", "left", "right", "x", "y"):
        return "0"
    if name in ("num_layers",):
        return "1"
    return "2"


def generic_value(op, name, typ):
    t = typ.replace(", required", "").replace(",required", "").strip()
    if t.startswith("{"):
        opts = re.findall(r"'([^']*)'", t)
        if "float32" in opts:
            return "float32"
        opts = [o for o in opts if o != "None"]
        return opts[0] if opts else "None"
    if t.startswith("tuple of <Shape"):
        return "((1,1),)"
    if t.startswith("Shape"):
        return "(1,1)"
    if t.startswith("tuple of <float"):
        return "(1.0,)"
    if t.startswith("tuple of"):
        return "(0,)"
    if t.startswith("int") or t.startswith("long"):
        return _int_for(name)
    if t.startswith("float") or t.startswith("double"):
        return "1.0"
    if t.startswith("boolean"):
        return "False"
    if t.startswith("string"):
        return "x"
    return "1"


# ---------------------------------------------------------------------------
# Worker
# ---------------------------------------------------------------------------

def short_err(msg):
    msg = str(msg)
    for cut in ("\nStack trace", "\n\nStack trace", "Stack trace:"):
        if cut in msg:
            msg = msg.split(cut)[0]
    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]
    msg = " ".join(lines)
    msg = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", msg)
    msg = re.sub(r"(/[^ ]*?/|\.\./)(src|include)/", r"\2/", msg)
    msg = msg.replace("MXNetError: ", "")
    msg = msg.replace("Traceback (most recent call last): ", "")
    msg = re.sub(r'File "([^"]+)", line (\d+) ', r"\1:\2: ", msg)
    return msg[:240]


class Worker:
    def __init__(self, shim_path):
        import mxnet as mx  # noqa: F401  (loads libmxnet.so first)
        from mxnet import base
        self.mx = mx
        self.base = base
        self.LIB = base._LIB
        self.shim = ctypes.CDLL(shim_path)
        self.shim.ampprobe_op_name.restype = ctypes.c_char_p
        for f in ("ampprobe_has_finfertype", "ampprobe_is_backward"):
            getattr(self.shim, f).argtypes = [ctypes.c_void_p]
        for f in ("ampprobe_num_inputs", "ampprobe_num_outputs"):
            getattr(self.shim, f).argtypes = [ctypes.c_void_p]
        self.shim.ampprobe_call_infertype.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int,
            ctypes.c_char_p, ctypes.c_int]
        self._register_custom()
        self.stage_out = None

    def _register_custom(self):
        mx = self.mx

        class _ProbeOp(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0])

            def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
                pass

        @mx.operator.register("ampprobe_custom")
        class _ProbeProp(mx.operator.CustomOpProp):  # default infer_type
            def __init__(self):
                super().__init__(need_top_grad=True)

            def list_arguments(self):
                return ["data", "other"]

            def list_outputs(self):
                return ["output"]

            def infer_shape(self, in_shape):
                return in_shape, [in_shape[0]], []

            def create_operator(self, ctx, shapes, dtypes):
                return _ProbeOp()

    # -- registry helpers --------------------------------------------------
    def op_handle(self, name):
        h = ctypes.c_void_p()
        self.base.check_call(self.LIB.NNGetOpHandle(self.base.c_str(name), ctypes.byref(h)))
        return h

    def arg_info(self, h):
        b = self.base
        nm, doc, kv, rt = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        na = b.mx_uint()
        an = ctypes.POINTER(ctypes.c_char_p)()
        at = ctypes.POINTER(ctypes.c_char_p)()
        ad = ctypes.POINTER(ctypes.c_char_p)()
        b.check_call(self.LIB.MXSymbolGetAtomicSymbolInfo(
            h, ctypes.byref(nm), ctypes.byref(doc), ctypes.byref(na), ctypes.byref(an),
            ctypes.byref(at), ctypes.byref(ad), ctypes.byref(kv), ctypes.byref(rt)))
        args = [(b.py_str(an[i]), b.py_str(at[i])) for i in range(na.value)]
        return args, (b.py_str(kv.value) if kv.value else "")

    def make_symbol(self, h, attrs):
        b, mx = self.base, self.mx
        keys = sorted(attrs)
        vals = [attrs[k] for k in keys]
        sh = b.SymbolHandle()
        b.check_call(self.LIB.MXSymbolCreateAtomicSymbol(
            h, b.mx_uint(len(keys)), b.c_str_array(keys), b.c_str_array(vals), ctypes.byref(sh)))
        s = mx.sym.Symbol(sh)
        n_req = self.shim.ampprobe_num_inputs(s.handle)
        try:
            s2 = s.__copy__()
            s2._compose(name="op")
            if n_req < 0 or len(s2.list_inputs()) == n_req:
                return s2
        except Exception:  # variadic ops need explicit inputs
            pass
        if n_req < 0 or n_req > 64:
            raise RuntimeError("cannot determine input count (get_num_inputs=%d)" % n_req)
        s3 = s.__copy__()
        s3._compose(*[mx.sym.var("op_in%d" % i) for i in range(n_req)], name="op")
        return s3

    # -- pass-style FInferType call ---------------------------------------
    def stage(self, what):
        if self.stage_out is not None:
            self.stage_out.write(json.dumps({"stage": what}) + "\n")
            self.stage_out.flush()

    def call_infertype(self, s, n_in, n_out, first, rest=-1):
        self.stage("FInferType call (pass-style, in[0]=%s)" % DTYPE_NAMES[first])
        cap = max(n_in, n_out, 1) + 16
        it = (ctypes.c_int * cap)(*([-1] * cap))
        ot = (ctypes.c_int * cap)(*([-1] * cap))
        it[0] = first
        for i in range(1, n_in):
            it[i] = rest
        ni, no = ctypes.c_int(n_in), ctypes.c_int(n_out)
        err = ctypes.create_string_buffer(8192)
        r = self.shim.ampprobe_call_infertype(s.handle, ctypes.byref(ni), it, ctypes.byref(no),
                                              ot, cap, err, 8192)
        if r == -2:
            return None
        res = {"ok": r == 1,
               "in": [DTYPE_NAMES.get(it[i], it[i]) for i in range(min(ni.value, cap))],
               "out": [DTYPE_NAMES.get(ot[i], ot[i]) for i in range(min(no.value, cap))]}
        if r == -1:
            res["error"] = short_err(err.value.decode("utf-8", "replace"))
        return res

    # -- graph-level InferType (MXSymbolInferTypePartial) --------------------
    def graph_infer(self, s, in_names, assign):
        """assign: {input index: dtype code}. Returns (in_codes, out_codes) or str error."""
        b = self.base
        self.stage("graph InferType")
        keys = [in_names[i] for i in sorted(assign)]
        vals = [assign[i] for i in sorted(assign)]
        sizes = [b.mx_uint() for _ in range(3)]
        datas = [ctypes.POINTER(ctypes.c_int)() for _ in range(3)]
        complete = ctypes.c_int()
        try:
            b.check_call(self.LIB.MXSymbolInferTypePartial(
                s.handle, b.mx_uint(len(keys)), b.c_str_array(keys),
                (ctypes.c_int * max(len(vals), 1))(*vals),
                ctypes.byref(sizes[0]), ctypes.byref(datas[0]),
                ctypes.byref(sizes[1]), ctypes.byref(datas[1]),
                ctypes.byref(sizes[2]), ctypes.byref(datas[2]), ctypes.byref(complete)))
        except Exception as e:  # MXNetError
            return short_err(e)
        arg = [datas[0][i] for i in range(sizes[0].value)]
        out = [datas[1][i] for i in range(sizes[1].value)]
        aux = [datas[2][i] for i in range(sizes[2].value)]
        by_name = dict(zip(s.list_arguments(), arg))
        by_name.update(zip(s.list_auxiliary_states(), aux))
        return [by_name.get(n, -1) for n in in_names], out

    # -- one op ------------------------------------------------------------
    def probe(self, name):
        h = self.op_handle(name)
        rec = {"finfer_type": bool(self.shim.ampprobe_has_finfertype(h))}
        if name.startswith("_backward_"):
            rec["skipped"] = "backward op"
            return rec
        args, kv = self.arg_info(h)
        attrs = {}
        for an, at in args:
            if "required" in at:
                attrs[an] = generic_value(name, an, at)
        arg_names = {an for an, _ in args}
        if kv and kv in arg_names:
            attrs[kv] = str(VARIADIC_COUNT)
        attrs.update(OP_OVERRIDES.get(name, {}))
        # Some parameters are required without saying so in their type string
        # (e.g. _linspace's num); fill them from the creation error.
        self.stage("create with attrs (fill required parameters)")
        for _ in range(6):
            try:
                self.make_symbol(h, attrs)
                break
            except Exception as e:
                m = re.search(r"Required parameter (\w+) of (.+?) is not presented", str(e))
                if not m or m.group(1) in attrs:
                    break
                attrs[m.group(1)] = generic_value(name, m.group(1), m.group(2))
        rec.update(self.probe_config(h, name, attrs, rec["finfer_type"], args))
        variants = []
        for extra in VARIANTS.get(name, []):
            a = dict(attrs)
            a.update(extra)
            variants.append(self.probe_config(h, name, a, rec["finfer_type"], args))
        if variants:
            rec["variants"] = variants
        return rec

    def probe_config(self, h, name, attrs, finfer, args):
        rec = {"attrs_probed": attrs}
        self.stage("create/compose")
        try:
            s = self.make_symbol(h, attrs)
        except Exception as e:
            rec["probe_error"] = "create: " + short_err(e)
            return rec
        in_names = s.list_inputs()
        n_in = len(in_names)
        self.stage("num_outputs")
        n_out = self.shim.ampprobe_num_outputs(s.handle)
        rec["num_inputs_probed"] = n_in
        rec["num_outputs_probed"] = n_out
        if n_out < 0:
            rec["probe_error"] = "num_outputs failed"
            return rec
        if finfer and n_in > 0:
            rec["from_first_input"] = {tn: self.call_infertype(s, n_in, n_out, tc)
                                      for tn, tc in PASS_TYPES}
            # Graph-level InferType calls FInferType on nodes whose inputs are not typed yet; some
            # ops throw then (Dropout: "input type to dropout is not specified"), and the throw
            # fails the whole inference.
            rec["all_unknown"] = self.call_infertype(s, n_in, n_out, -1)
            if n_in > 1:
                rec["first_unknown"] = self.call_infertype(s, n_in, n_out, -1, rest=0)
        rec["mixed"] = self.mixed(h, name, s, in_names, args, attrs)
        return rec

    def mixed(self, h, name, s, in_names, args, attrs):
        n_in = len(in_names)
        res = {}
        obs = []  # (ins, outs) of accepted, non-coerced graph calls

        def run(assign):
            r = self.graph_infer(s, in_names, assign)
            if isinstance(r, str):
                return "err", r
            ins, outs = r
            if any(ins[i] != d for i, d in assign.items()):
                return "coerced", r
            obs.append(r)
            return "ok", r

        if n_in == 0:
            st, r = run({})
            if st == "err":
                res["error"] = r
        else:
            acc = []
            first_err = None
            data_only = {}
            for tn, tc in PASS_TYPES:
                st, r = run({0: tc})
                if st == "ok":
                    acc.append(tn)
                    data_only[tc] = r
                elif st == "err" and first_err is None:
                    first_err = r
            res["in0_accepts"] = acc
            if first_err and not acc:
                res["error"] = first_err
            labels = ["ref"]
            for i in range(1, n_in):
                combos = {}
                for d0 in (F16, F32):
                    for di in (F16, F32):
                        combos[(d0, di)] = run({0: d0, i: di})[0]
                lab = classify_input(combos)
                if lab == "rejects":
                    # a non-float dtype required for input i (e.g. batch_take's int32 indices)?
                    xs = {r[0][i] for d0, r in data_only.items() if d0 in (F16, F32)}
                    if len(xs) == 1 and next(iter(xs)) not in (-1, F16, F32):
                        x = next(iter(xs))
                        if any(run({0: d0, i: x})[0] == "ok" for d0 in (F16, F32)):
                            lab = _dn(x)
                labels.append(lab)
            res["inputs"] = labels
        # outputs
        n_vis = len(s.list_outputs())
        attr_follow = self.attr_follow(h, name, attrs, in_names, n_vis)
        outs_lab = []
        for o in range(n_vis):
            lab = classify_output(o, obs)
            if attr_follow.get(o):
                p = attr_follow[o]
                if lab in DTYPE_NAMES.values() or lab == "unknown":
                    lab = "attr:" + p
                else:
                    lab = lab + "|attr:" + p
            outs_lab.append(lab)
        res["outputs"] = outs_lab
        return res

    def attr_follow(self, h, name, attrs, in_names, n_vis):
        """Output indices whose dtype follows a dtype-valued enum attribute."""
        args, _ = self.arg_info(h)
        found = {}
        for an, at in args:
            if not at.startswith("{"):
                continue
            opts = re.findall(r"'([^']*)'", at)
            cand = [d for d in ("float64", "float16", "int32", "uint8", "int8") if d in opts]
            if len(cand) < 2:
                continue
            seen = []
            for val in cand[:2]:
                a = dict(attrs)
                a[an] = val
                try:
                    s = self.make_symbol(h, a)
                except Exception:
                    seen.append(None)
                    continue
                names = s.list_inputs()
                r = self.graph_infer(s, names, {0: F32} if names else {})
                if isinstance(r, str):
                    r = self.graph_infer(s, names, {})
                seen.append((val, r[1]) if not isinstance(r, str) else None)
            if any(x is None for x in seen):
                continue
            for o in range(n_vis):
                if all(o < len(outs) and DTYPE_NAMES.get(outs[o]) == val for val, outs in seen):
                    found.setdefault(o, an)
        return found


def _dn(c):
    return DTYPE_NAMES.get(c, c)


def classify_input(combos):
    ok = {k for k, v in combos.items() if v == "ok"}
    coerced = {k for k, v in combos.items() if v == "coerced"}
    same = {(F16, F16), (F32, F32)}
    if ok == set(combos):
        return "free"
    if coerced and ok <= same and ok | coerced == set(combos):
        return "coerced"
    if ok == same:
        return "same"
    if ok == {(F16, F32), (F32, F32)}:
        return "float32"
    if ok == {(F16, F16), (F32, F16)}:
        return "float16"
    if ok == {(F32, F32)} and not coerced:
        return "float32"  # data itself only accepts float32
    if not ok and not coerced:
        return "rejects"
    short = {F16: "f16", F32: "f32"}
    parts = ["%s+%s%s" % (short[a], short[b], "" if combos[(a, b)] == "ok" else "(coerced)")
             for (a, b) in sorted(ok | coerced)]
    return "combos:" + ",".join(parts)


def classify_output(o, obs):
    rows = [(ins, outs[o]) for ins, outs in obs if o < len(outs) and outs[o] != -1]
    if not rows:
        return "unknown"
    d0s = {ins[0] for ins, _ in rows if ins}
    vals = {v for _, v in rows}
    if len(d0s) >= 2 and all(ins and v == ins[0] for ins, v in rows):
        return "same"
    if len(vals) == 1:
        return _dn(next(iter(vals)))
    n_in = max(len(ins) for ins, _ in rows)
    full = [(ins, v) for ins, v in rows if ins and all(x != -1 for x in ins)]
    if full:
        rank = {2: 1, 12: 1, 0: 2, 1: 3}
        if all(all(x in rank for x in ins) for ins, _ in full):
            if all(rank[v] == max(rank[x] for x in ins) for ins, v in full) and \
                    any(len({rank[x] for x in ins}) > 1 for ins, _ in full):
                return "widest"
            if all(rank[v] == min(rank[x] for x in ins) for ins, v in full) and \
                    any(len({rank[x] for x in ins}) > 1 for ins, _ in full):
                return "narrowest"
    for k in range(1, n_in):
        if all(k < len(ins) and ins[k] == v for ins, v in rows):
            return "input:%d" % k
    if all(ins and v == ins[0] for ins, v in rows):
        return "same"
    return "varies"


def worker_main(shim, ops_file):
    w = Worker(shim)
    w.stage_out = sys.stdout
    with open(ops_file) as f:
        ops = json.load(f)
    out = sys.stdout
    for name in ops:
        out.write(json.dumps({"start": name}) + "\n")
        out.flush()
        try:
            rec = w.probe(name)
        except Exception as e:  # keep going
            rec = {"probe_error": "probe: " + short_err(e)}
        out.write(json.dumps({"op": name, "rec": rec}) + "\n")
        out.flush()


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def build_shim(workdir):
    import importlib.util
    spec = importlib.util.find_spec("mxnet")
    mxdir = os.path.dirname(spec.origin)
    lib = os.path.join(mxdir, "libmxnet.so")
    out = os.path.join(workdir, "ampprobe_shim.so")
    cmd = [os.environ.get("CXX", "g++"), "-std=c++17", "-O1", "-shared", "-fPIC", "-w",
           "-D_GLIBCXX_USE_CXX11_ABI=0", "-I" + os.path.join(mxdir, "include"), SHIM_SRC, lib,
           "-Wl,-rpath," + mxdir, "-o", out]
    subprocess.check_call(cmd)
    return out


def list_ops(shim_path):
    """Returns (number of registry names, {canonical: [aliases]}, {canonical: has FInferType})."""
    import mxnet as mx  # noqa: F401
    from mxnet import base
    shim = ctypes.CDLL(shim_path)
    shim.ampprobe_op_name.restype = ctypes.c_char_p
    shim.ampprobe_op_name.argtypes = [ctypes.c_void_p]
    shim.ampprobe_has_finfertype.argtypes = [ctypes.c_void_p]
    n = base.mx_uint()
    arr = ctypes.POINTER(ctypes.c_char_p)()
    base.check_call(base._LIB.MXListAllOpNames(ctypes.byref(n), ctypes.byref(arr)))
    names = [base.py_str(arr[i]) for i in range(n.value)]
    canon = {}
    finfer = {}
    for name in names:
        h = ctypes.c_void_p()
        base.check_call(base._LIB.NNGetOpHandle(base.c_str(name), ctypes.byref(h)))
        cname = shim.ampprobe_op_name(h).decode()
        finfer[cname] = bool(shim.ampprobe_has_finfertype(h))
        canon.setdefault(cname, [])
        if name != cname:
            canon[cname].append(name)
    return len(names), canon, finfer


def run_workers(shim, ops, log_path):
    results = {}
    todo = list(ops)
    env = dict(os.environ, DMLC_LOG_STACK_TRACE_DEPTH="0", OMP_NUM_THREADS="1",
               MXNET_ENGINE_TYPE="NaiveEngine")
    while todo:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(todo, f)
            ops_file = f.name
        with open(log_path, "a") as log:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker",
                                  "--shim", shim, "--ops-file", ops_file],
                                 stdout=subprocess.PIPE, stderr=log, text=True, env=env)
            current = None
            stage = None
            for line in p.stdout:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "stage" in msg:
                    stage = msg["stage"]
                elif "start" in msg:
                    current = msg["start"]
                    stage = "start"
                elif "op" in msg:
                    results[msg["op"]] = msg["rec"]
                    current = None
            rc = p.wait()
        os.unlink(ops_file)
        done = set(results)
        if current is not None:
            results[current] = {"probe_error": "worker crashed (exit status %d) during %s"
                                                % (rc, stage)}
            done.add(current)
        elif rc != 0 and not [o for o in todo if o not in done]:
            pass
        rest = [o for o in todo if o not in done]
        if rest and current is None:
            raise SystemExit("worker exited (status %d) without progress" % rc)
        todo = rest
        sys.stderr.write("probed %d/%d\n" % (len(results), len(ops)))
    return results


HEADER_FIELDS = {
    "finfer_type": "true when the op registers nnvm FInferType (Op::GetAttr<FInferType>(\"FInferType\").count(op)). Legacy MXNET_REGISTER_OP_PROPERTY ops always get one from src/nnvm/legacy_op_util.cc (OpPropInferType, which calls OperatorProperty::InferType; the base-class default CHECKs every known input is float32 and throws otherwise).",
    "from_first_input": "per T in float16/bfloat16/float32, the result of the call ReducePrecision makes: in=[-1]*num_inputs, in[0]=T, out=[-1]*num_outputs (all outputs, hidden ones included), ok=FInferType(attrs,&in,&out); in/out are the vectors after the call (null = -1 unknown). \"error\" is present when FInferType threw (ok is then false); in ReducePrecision an exception aborts the conversion, while ok=false merely records nothing. Absent when finfer_type is false or the op has no inputs.",
    "mixed": "graph-level mxnet::exec::InferType (MXSymbolInferTypePartial; the pass MXReducePrecisionSymbol re-runs it on the converted graph) on a one-node graph whose inputs are variables. in0_accepts: dtypes accepted for input 0 alone (other inputs unknown). inputs[i] for i>0, from the four combos input0/input_i in {float16,float32}^2 with the other inputs unknown: \"free\" (all accepted), \"same\" (only equal dtypes accepted), \"float32\"/\"float16\" (input i must be that dtype whatever input 0 is; also \"float32\" when input 0 itself only accepts float32), \"coerced\" (no error, but InferType silently rewrote input i's dtype, e.g. to input 0's by the SameType default for ops without FInferType, or a legacy op resetting an auxiliary state to float32), a non-float dtype name such as \"int32\" (float combos all fail, and InferType itself infers that dtype for input i), \"rejects\" (every combo failed), \"combos:...\" otherwise (the accepted input0+input_i combos; \"(coerced)\" marks one accepted only by rewriting); inputs[0] is \"ref\". outputs[k] (visible outputs only): \"same\" (= input 0's dtype), a fixed dtype, \"attr:<param>\" (follows a dtype-valued attribute), \"input:<i>\" (follows input i), \"widest\"/\"narrowest\" (of the inputs, e.g. amp_multicast), \"X|attr:<param>\" (X with attrs_probed, but follows <param> when it is set), \"unknown\" (never inferred) or \"varies\". error: InferType's message when input 0 alone was rejected for every dtype (or, for ops without inputs, the call failed).",
    "num_inputs_probed": "node->inputs.size() of the probed node (arguments + auxiliary states) for attrs_probed.",
    "num_outputs_probed": "node->num_outputs() for attrs_probed (includes hidden outputs, e.g. BatchNorm's mean/var).",
    "attrs_probed": "attributes used to create the node: every required parameter filled with a plausible value, key_var_num_args set to %d, plus per-op overrides (see OP_OVERRIDES in the script). Type inference ignores shapes, so values only need to parse." % VARIADIC_COUNT,
    "all_unknown": "the same call with every input and output unknown (-1), as graph-level InferType makes it on a node none of whose slots is typed yet: \"error\" present when FInferType threw, which fails that inference.",
    "first_unknown": "(ops with several inputs) the call with input 0 unknown and every other input float32, outputs unknown: \"error\" present when FInferType threw, i.e. it throws whenever input 0 is untyped (for one-input ops all_unknown says so).",
    "variants": "extra attribute configurations (VARIANTS in the script) probed like the main record; each has its own attrs_probed/num_inputs_probed/from_first_input/mixed.",
    "probe_error": "why the op could not be instantiated or probed; facts other than finfer_type are then missing.",
    "skipped": "\"backward op\": _backward_* ops are listed with finfer_type only (they never appear in a saved forward model and have no user-facing attributes).",
}

GRAPH_DEFAULT = ("common::SameType (src/common/exec_utils.h) -- mxnet::exec::InferType "
                 "(src/executor/infer_graph_attr_pass.cc) calls InferAttr(..., fdefault=common::SameType) and "
                 "uses finfer_type.get(op, fdefault), so an op without FInferType gets SameType: take the dtype "
                 "of the first known output, else of the first known input; if none is known return false; "
                 "otherwise overwrite EVERY input and output dtype with it. It never reports a mismatch: a known "
                 "input with a different dtype is silently rewritten (mixed.inputs says \"coerced\"), and the "
                 "producer of that input is not re-checked once it is marked finished.")


def write_json(path, doc):
    """Sorted keys; one op (and one alias) per line for readable diffs."""
    lines = ["{"]
    keys = sorted(doc)
    for ki, k in enumerate(keys):
        comma = "," if ki + 1 < len(keys) else ""
        v = doc[k]
        if isinstance(v, dict) and k in ("ops", "aliases", "fields"):
            lines.append(" %s: {" % json.dumps(k))
            sub = sorted(v)
            for si, sk in enumerate(sub):
                c2 = "," if si + 1 < len(sub) else ""
                lines.append("  %s: %s%s" % (json.dumps(sk), json.dumps(
                    v[sk], sort_keys=True, separators=(",", ":"), ensure_ascii=False), c2))
            lines.append(" }" + comma)
        else:
            lines.append(" %s: %s%s" % (json.dumps(k), json.dumps(v, sort_keys=True, ensure_ascii=False), comma))
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def driver_main(args):
    import mxnet as mx
    workdir = tempfile.mkdtemp(prefix="ampprobe-")
    shim = build_shim(workdir)
    n_names, canon, finfer = list_ops(shim)
    ops = sorted(canon)
    if args.only:
        ops = [o for o in ops if o in set(args.only.split(","))]
    log_path = os.path.join(workdir, "worker-stderr.log")
    results = run_workers(shim, ops, log_path)
    for o in ops:  # crashed ops lost their record; finfer_type comes from the registry anyway
        results[o]["finfer_type"] = finfer[o]
    aliases = {a: c for c, al in canon.items() for a in al}
    probed = [o for o in ops if "probe_error" not in results[o] and "skipped" not in results[o]]
    errors = [o for o in ops if "probe_error" in results[o]]
    skipped = [o for o in ops if "skipped" in results[o]]
    features = sorted(f.name for f in mx.runtime.Features().values() if f.enabled)
    doc = {
        "mxnet_version": mx.__version__,
        "source": "pip wheel mxnet==%s (libmxnet.so + its registry), sources apache/mxnet 1.9.1" % mx.__version__,
        "license": "Apache-2.0 (facts derived from Apache MXNet)",
        "build": "wheel features enabled: " + ",".join(features),
        "generated_by": "tests/differential/probe_dtype_inference.py",
        "method": ("finfer_type/from_first_input: exact, by calling each op's registered FInferType through "
                   "tests/differential/probe_finfertype_shim.cc compiled against the wheel's libmxnet.so; "
                   "mixed: behavioural, graph-level MXSymbolInferTypePartial on a one-node symbol."),
        "graph_default": GRAPH_DEFAULT,
        "fields": HEADER_FIELDS,
        "counts": {"registry_names": n_names, "canonical_ops": len(ops), "aliases": len(aliases),
                   "probed": len(probed), "probe_errors": len(errors),
                   "skipped_backward": len(skipped)},
        "skipped_note": ("_backward_* ops (%d) carry finfer_type only; every other canonical op was "
                         "attempted." % len(skipped)),
        "aliases": aliases,
        "ops": {o: results[o] for o in ops},
    }
    out = args.out
    write_json(out, doc)
    sys.stderr.write("wrote %s: %d ops, %d probed, %d errors, %d skipped\n"
                     % (out, len(ops), len(probed), len(errors), len(skipped)))
    if args.keep_work:
        sys.stderr.write("shim and worker stderr log kept in %s\n" % workdir)
    else:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", help="comma-separated canonical op names (debugging)")
    ap.add_argument("--keep-work", action="store_true",
                    help="keep the temporary dir with the compiled shim and the worker's stderr log")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--shim", help=argparse.SUPPRESS)
    ap.add_argument("--ops-file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_main(args.shim, args.ops_file)
    else:
        driver_main(args)


if __name__ == "__main__":
    main()
