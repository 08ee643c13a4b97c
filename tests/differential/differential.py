#!/usr/bin/env python3
"""Differential tester: AMP Studio's conversion pass against real MXNet (developer tool, not CI).

For random MXNet symbol graphs (random_dags.py) and, with --models, real models, it converts each
graph with
  - MXNet 1.9.1 (mx.contrib.amp.convert_symbol; typed mode's reference), float16 and bfloat16,
  - MXNet 1.6.0 (classic mode's reference), float16 only (1.6.0 has no bfloat16),
  - ampstudio-cli convert --mode typed|classic (classic runs get --lists with MXNet 1.6.0's own
    default lists, exported from 1.6.0 into amp-lists-mxnet-1.6.0-float16.json),
with and without cast_optional_params, then
  - compares the structure (node count; per node in order: name, op, inputs, the dtype and
    num_outputs attributes; heads) and reports the first difference,
  - checks that every ampstudio output passes MXNet 1.9.1's type inference with float32 for the data
    inputs and, with cast_optional_params, the target dtype for the parameters the report lists in
    stored_in_target_dtype (everything else unconstrained, as MXNet's own pass does afterwards), and
    again as bound (inputs still unknown then float32),
  - records whether MXNet itself failed (convert_symbol raised) and its error's first line, and whether
    a result MXNet returned passes the same checks (with its own __dtype__ marks),
  - compares the parameters MXNet would store in the target dtype (__dtype__) with the report's,
and prints a summary table. With --write-fixtures it shrinks each kind of disagreement (greedy delta
debugging) into a small fixture folder for the C++ tests.

MXNet runs in the two venvs made by setup_venvs.sh, each as one long-lived worker process
(mxnet_convert.py) that answers jobs over a pipe; this driver needs only python3.

Examples (from the repository root):
  python3 tests/differential/differential.py --count 20 --sizes 30
  python3 tests/differential/differential.py --count 500 --sizes 30,200 --models
  python3 tests/differential/differential.py --count 100 --runs typed-float16 --write-fixtures \\
      tests/engine/fixtures/mxnet_differential
"""

import argparse
import collections
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import random_dags  # noqa: E402

LISTS_160 = os.path.join(HERE, "amp-lists-mxnet-1.6.0-float16.json")
CODE_DTYPE = {"0": "float32", "1": "float64", "2": "float16", "12": "bfloat16"}
FIXTURE_LISTS_NAME = "amp-lists-mxnet-1.6.0-float16.json"
ALL_RUNS = ["typed-float16", "typed-bfloat16", "classic-float16"]


# ----------------------------------------------------------------------------------------------
# MXNet workers

class Worker:
    """One mxnet_convert.py process under a venv's python; request() answers one job. A crashed
    worker (MXNet aborting) answers {"ok": false, "crashed": true} and is restarted."""

    def __init__(self, python, label):
        self.python = python
        self.label = label
        self.proc = None
        self.crashes = 0

    def start(self):
        self.proc = subprocess.Popen([self.python, os.path.join(HERE, "mxnet_convert.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def request(self, job):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.crashes += 1
            code = self.proc.wait()
            self.proc = None
            return {"ok": False, "crashed": True, "error": "%s worker died (exit %s)" % (self.label, code)}
        return json.loads(line)

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


# ----------------------------------------------------------------------------------------------
# One conversion case

class Case:
    """A graph plus options: mode, target dtype, excluded names, data names, cast_optional_params."""

    def __init__(self, name, symbol, data_names, excluded, mode, dtype, cop, size_label):
        self.name = name
        self.symbol = symbol            # dict
        self.data_names = list(data_names)
        self.excluded = list(excluded)
        self.mode = mode
        self.dtype = dtype
        self.cop = cop
        self.size_label = size_label

    def with_graph(self, symbol, excluded=None):
        names = {n["name"] for n in symbol["nodes"] if n["op"] == "null"}
        data = [n for n in self.data_names if n in names] or self.data_names
        return Case(self.name, symbol, data,
                    self.excluded if excluded is None else excluded,
                    self.mode, self.dtype, self.cop, self.size_label)

    @property
    def config(self):
        return (self.mode, self.dtype, self.size_label, self.cop)

    def options(self):
        return {"mode": self.mode, "target_dtype": self.dtype, "excluded_sym_names": self.excluded,
                "data_names": self.data_names, "cast_optional_params": self.cop,
                "lists": "mxnet-1.6.0-float16" if self.mode == "classic" else "mxnet-1.9.1-%s" % self.dtype}


class Tester:
    def __init__(self, args):
        self.args = args
        self.w191 = Worker(args.python191, "mxnet-1.9.1")
        self.w160 = Worker(args.python160, "mxnet-1.6.0")
        self.tmp = tempfile.mkdtemp(prefix="ampdiff-")
        self.timing = collections.Counter()

    def close(self):
        self.w191.close()
        self.w160.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- the three parts of a case ------------------------------------------------------------

    def mxnet(self, case, text):
        worker = self.w160 if case.mode == "classic" else self.w191
        t = time.time()
        a = worker.request({"op": "convert", "symbol": text, "target_dtype": case.dtype,
                            "excluded_sym_names": case.excluded, "data_names": case.data_names,
                            "cast_optional_params": case.cop})
        self.timing["mxnet"] += time.time() - t
        return a

    def ampstudio(self, case, text):
        src = os.path.join(self.tmp, "case-symbol.json")
        prefix = os.path.join(self.tmp, "out")
        out, report = prefix + "-symbol.json", os.path.join(self.tmp, "out-report.json")
        for p in (out, report):
            if os.path.exists(p):
                os.remove(p)
        with open(src, "w") as f:
            f.write(text)
        cmd = [self.args.cli, "convert", src, "--no-params", "--output", prefix, "--mode", case.mode,
               "--target-dtype", case.dtype, "--excluded-sym-names", ",".join(case.excluded),
               "--data-names", ",".join(case.data_names), "--report", report]
        if case.mode == "classic":
            cmd += ["--lists", LISTS_160]
        if case.cop:
            cmd.append("--cast-optional-params")
        t = time.time()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
            rc, err = p.returncode, p.stderr.strip().replace(src, "source-symbol.json")
        except subprocess.TimeoutExpired:
            rc, err = "timeout", "ampstudio-cli ran past 60 s"
        self.timing["ampstudio"] += time.time() - t
        res = {"rc": rc, "stderr": err, "cmd": cmd}
        if rc == 0:
            try:
                with open(out) as f:
                    res["json"] = f.read()
                with open(report) as f:
                    res["report"] = json.load(f)
            except (OSError, ValueError) as e:
                res["rc"] = "no-output"
                res["stderr"] = "exit 0 but %s" % e
        return res

    def validate(self, case, amp, bind=False, worker=None):
        """MXNet 1.9.1 type inference on ampstudio's output: data float32, the parameters stored in the
        target dtype (cast_optional_params) in it, everything else left to inference. bind: then every
        input still unknown float32 and inference again, as binding the model does."""
        types = {n: "float32" for n in case.data_names}
        for n in amp["report"].get("stored_in_target_dtype", []):
            types[n] = case.dtype
        t = time.time()
        a = (worker or self.w191).request({"op": "infer", "symbol": amp["json"], "types": types, "bind": bind})
        self.timing["validate"] += time.time() - t
        return a

    def run(self, case):
        """Runs one case. Returns a result dict with 'category' (see classify)."""
        text = random_dags.dumps(case.symbol)
        mx = self.mxnet(case, text)
        amp = self.ampstudio(case, text)
        res = {"mx": mx, "amp": amp}
        if mx.get("ok"):
            # MXNet's own output, typed as convert_symbol types it afterwards (data names only).
            # convert_symbol can succeed with an output this rejects: its post-pass InferType does
            # not catch every conflict its stale dtype beliefs create (e.g. a neutral op wired to
            # the raw float32 entry feeding a float16 Convolution).
            t = time.time()
            worker = self.w160 if case.mode == "classic" else self.w191
            res["mx_valid"] = worker.request({"op": "infer", "symbol": mx["json"],
                                              "types": {n: "float32" for n in case.data_names}})
            if res["mx_valid"].get("ok"):
                # ... and bound: MXNet's own __dtype__ marks for the parameters, the rest float32
                types = {n: "float32" for n in case.data_names}
                for n in json.loads(mx["json"])["nodes"]:
                    code = (n.get("attrs") or {}).get("__dtype__")
                    if n["op"] == "null" and code is not None and code != "-1" and n["name"] not in types:
                        types[n["name"]] = CODE_DTYPE.get(code, "float32")
                res["mx_bind"] = worker.request({"op": "infer", "symbol": mx["json"], "types": types, "bind": True})
            else:
                res["mx_bind"] = res["mx_valid"]
            self.timing["validate"] += time.time() - t
        if amp["rc"] == 0:
            res["valid"] = self.validate(case, amp)
            res["bind"] = self.validate(case, amp, bind=True) if res["valid"].get("ok") else res["valid"]
            if case.mode == "classic":
                # Classic's reference is 1.6.0, whose type inference differs for some ops (e.g.
                # broadcast_like wants both inputs alike in 1.6.0, not in 1.9.1).
                res["valid160"] = self.validate(case, amp, worker=self.w160)
        if mx.get("ok") and amp["rc"] == 0:
            res["diff"] = compare(json.loads(mx["json"]), json.loads(amp["json"]))
            if res["diff"] is None:
                res["aux"] = compare_aux(json.loads(mx["json"]), json.loads(amp["json"]), case, amp["report"])
            res["params"] = compare_params(json.loads(mx["json"]), json.loads(amp["json"]), case, amp["report"])
        res["category"], res["signature"], res["detail"] = classify(case, res)
        return res


# ----------------------------------------------------------------------------------------------
# Comparison and classification

def _entries(lst):
    return [(e[0], e[1]) for e in lst]


def _node_desc(g, i):
    if i >= len(g["nodes"]):
        return "(none)"
    n = g["nodes"][i]
    return "%s (%s)" % (n["name"], n["op"])


def _cast_attrs(n):
    a = n.get("attrs", n.get("attr", n.get("param", {}))) or {}
    return {k: a[k] for k in ("dtype", "num_outputs") if k in a}


def compare(mx, am):
    """Structural difference between MXNet's and ampstudio's converted graphs, or None.
    Returns {"kind", "where", "text"} for the first difference, plus the sets of amp nodes found in
    only one of the two (named as MXNet names them) to describe it."""
    mn, an = mx["nodes"], am["nodes"]
    mxc = {n["name"]: n for n in mn if n["op"] in ("amp_cast", "amp_multicast")}
    amc = {n["name"]: n for n in an if n["op"] in ("amp_cast", "amp_multicast")}
    only_mx = sorted(set(mxc) - set(amc))
    only_am = sorted(set(amc) - set(mxc))
    first = None
    for i in range(min(len(mn), len(an))):
        a, b = mn[i], an[i]
        if a["name"] != b["name"] or a["op"] != b["op"]:
            first = ("node", i, "node %d: MXNet %s, ampstudio %s" % (i, _node_desc(mx, i), _node_desc(am, i)))
        elif _entries(a["inputs"]) != _entries(b["inputs"]):
            def ins(g, n):
                return "[" + ", ".join("%s:%d" % (g["nodes"][e[0]]["name"], e[1]) if e[0] < len(g["nodes"]) else "?"
                                       for e in n["inputs"]) + "]"
            first = ("inputs", i, "node %d %s: inputs MXNet %s, ampstudio %s" % (
                i, _node_desc(mx, i), ins(mx, a), ins(am, b)))
        elif _cast_attrs(a) != _cast_attrs(b):
            first = ("attrs", i, "node %d %s: MXNet %s, ampstudio %s" % (i, _node_desc(mx, i), _cast_attrs(a), _cast_attrs(b)))
        if first:
            break
    if first is None and len(mn) != len(an):
        i = min(len(mn), len(an))
        first = ("count", i, "node count MXNet %d, ampstudio %d (first extra: MXNet %s, ampstudio %s)" % (
            len(mn), len(an), _node_desc(mx, i), _node_desc(am, i)))
    if first is None and _entries(mx["heads"]) != _entries(am["heads"]):
        first = ("heads", -1, "heads MXNet %s, ampstudio %s" % (_entries(mx["heads"]), _entries(am["heads"])))
    if first is None:
        return None
    kind, where, text = first
    if only_mx or only_am:
        if only_mx and not only_am:
            kind = "cast-only-in-mxnet"
        elif only_am and not only_mx:
            kind = "cast-only-in-ampstudio"
        else:
            kind = "casts-differ"
    else:
        # Same amp nodes by name: a difference in their wiring, attributes or order.
        same_set = sorted(n["name"] for n in mn) == sorted(n["name"] for n in an)
        kind = {"node": "order" if same_set else "nodes-differ", "inputs": "wiring", "attrs": "cast-attrs",
                "count": "node-count", "heads": "heads"}[kind]
    # The op whose output the first differing amp node reads (for amp nodes in both: the op of the
    # node where the difference is), to tell kinds apart.
    if only_mx or only_am:
        # the differing amp node whose source comes first (MXNet's order): the root, usually
        pos = {n["name"]: i for i, n in enumerate(mn)}

        def rank(g, name):
            nd = next(x for x in g["nodes"] if x["name"] == name)
            src = g["nodes"][nd["inputs"][0][0]]["name"] if nd["inputs"] else name
            return pos.get(src, len(mn))
        g, name = min([(mx, x) for x in only_mx] + [(am, x) for x in only_am], key=lambda t: rank(*t))
        nd = next(x for x in g["nodes"] if x["name"] == name)
        src = g["nodes"][nd["inputs"][0][0]] if nd["inputs"] else nd
        consumers = sorted({x["op"] for x in g["nodes"] if any(g["nodes"][e[0]] is nd for e in x["inputs"])})
        about = "%s on %s -> %s" % (nd["op"], src["op"] if src["op"] != "null" else "variable", ",".join(consumers) or "head")
    else:
        i = where if where >= 0 else 0
        about = mn[i]["op"] if i < len(mn) else "?"
    return {"kind": kind, "about": about, "where": where, "text": text, "only_mxnet": only_mx[:8],
            "only_ampstudio": only_am[:8], "n_only_mxnet": len(only_mx), "n_only_ampstudio": len(only_am)}


def compare_aux(mx, am, case, report):
    """Differences outside the structure: node_row_ptr, arg_nodes, other attributes, and (with
    cast_optional_params) the parameters stored in the target dtype: MXNet marks them with
    __dtype__ on the variable, ampstudio lists them in the report."""
    out = []
    if mx.get("node_row_ptr") != am.get("node_row_ptr") and len(mx["nodes"]) == len(am["nodes"]):
        a, b = mx.get("node_row_ptr") or [], am.get("node_row_ptr") or []
        for i in range(min(len(a), len(b)) - 1):
            # MXNet 1.6.0's pip build has no MKLDNN: its max Pooling has 1 output, not 2 (the
            # reference file's note); that is the build, not the conversion.
            if case.mode == "classic" and mx["nodes"][i]["op"] == "Pooling":
                continue
            if a[i + 1] - a[i] != b[i + 1] - b[i]:
                out.append("node_row_ptr: %s has %d outputs in MXNet, %d in ampstudio" % (
                    _node_desc(mx, i), a[i + 1] - a[i], b[i + 1] - b[i]))
                break
        else:
            if case.mode != "classic":
                out.append("node_row_ptr differs")
    if mx.get("arg_nodes") != am.get("arg_nodes"):
        out.append("arg_nodes differ")
    if len(mx["nodes"]) == len(am["nodes"]):
        for i, (a, b) in enumerate(zip(mx["nodes"], am["nodes"])):
            aa = {k: v for k, v in (a.get("attrs") or {}).items() if k != "__dtype__"}
            bb = {k: v for k, v in (b.get("attrs") or {}).items() if k != "__dtype__"}
            if aa != bb:
                out.append("attrs of %s: MXNet %s, ampstudio %s" % (a["name"], aa, bb))
                break
    return out


def compare_params(mx, am, case, report):
    """The parameters' dtypes. MXNet marks every model parameter with __dtype__ (its inferred dtype
    after the pass; with cast_optional_params also what AMPInferUnknown decides) and convert_model
    casts the arrays to it; ampstudio writes the same marks and lists those in the target dtype in
    the report's stored_in_target_dtype (which must agree with its marks)."""
    out = []
    code = {"float16": "2", "bfloat16": "12"}[case.dtype]

    def marks(g):
        return {n["name"]: (n.get("attrs") or {}).get("__dtype__") for n in g["nodes"] if n["op"] == "null"}
    mx_marks, am_marks = marks(mx), marks(am)
    mx_stored = sorted(k for k, v in mx_marks.items() if v == code)
    am_stored = sorted(k for k, v in am_marks.items() if v == code)
    if mx_stored != am_stored:
        out.append("stored in %s: MXNet (__dtype__) only %s, ampstudio (__dtype__) only %s" % (
            case.dtype, sorted(set(mx_stored) - set(am_stored))[:6], sorted(set(am_stored) - set(mx_stored))[:6]))
    elif mx_marks != am_marks:
        diff = sorted(k for k in set(mx_marks) | set(am_marks) if mx_marks.get(k) != am_marks.get(k))
        out.append("__dtype__ marks differ: %s" % ", ".join(
            "%s MXNet %s ampstudio %s" % (k, mx_marks.get(k), am_marks.get(k)) for k in diff[:4]))
    if sorted(report.get("stored_in_target_dtype", [])) != am_stored:
        out.append("ampstudio's report lists %s in %s, its __dtype__ marks %s" % (
            sorted(report.get("stored_in_target_dtype", []))[:6], case.dtype, am_stored[:6]))
    return out


_NORM = [
    (re.compile(r"\[\d\d:\d\d:\d\d\] "), ""),
    (re.compile(r"\S*/src/"), "src/"),
    (re.compile(r"(in operator |in node |operator )\S+"), r"\1X"),
    (re.compile(r"\.cc:\d+"), ".cc"),
    (re.compile(r"\.h:\d+"), ".h"),
    (re.compile(r"input \d+"), "input N"),
    (re.compile(r"at \d+-th input"), "at N-th input"),
    (re.compile(r"\bnode name: \S+"), "node name: X"),
]


_TAGS = [("Incompatible attr", "incompatible-attr"), ("Non-uniform data type in Concat", "concat-non-uniform"),
         ("Unsupported data type", "unsupported-dtype"), ("must have specified type", "untyped-input"),
         ("is not specified", "untyped-input"), ("dtype_param", "param-dtype"),
         ("requires uniform type", "uniform-type"), ("Type inconsistent", "type-inconsistent"),
         ("not found", "not-found")]


def error_tag(msg):
    """A short name for an MXNet error, for fixture names and buckets."""
    for needle, tag in _TAGS:
        if needle in (msg or ""):
            return tag
    m = re.search(r"Check failed: (.*)", msg or "")
    return slug(m.group(1) if m else (msg or "unknown"))[:32]


def normalize_error(msg):
    line = (msg or "").splitlines()[0] if msg else ""
    for rx, rep in _NORM:
        line = rx.sub(rep, line)
    return line.replace("MXNetError: ", "")[:200]


def classify(case, res):
    """(category, signature for shrinking, detail text). Categories:
    equal            MXNet succeeded, same structure, ampstudio's output valid
    structure        MXNet succeeded, ampstudio's output differs structurally
    invalid          MXNet succeeded, ampstudio's output fails MXNet 1.9.1 type inference
    mxnet-failed     MXNet's convert_symbol raised (ampstudio's outcome in the signature)
    mxnet-invalid    MXNet's convert_symbol returned a graph that fails its own type inference with
                     the data names float32, or binding (its __dtype__ marks for the parameters,
                     the rest float32) (ampstudio's outcome and whether the structures are equal in
                     the signature)
    refused          MXNet succeeded, ampstudio exited 2
    error            ampstudio crashed / other exit code / no output, or an MXNet worker crash
    params           structure equal and valid, but the parameters stored in the target dtype
                     (cast_optional_params) differ: MXNet's __dtype__ marks vs the report's list
    aux              structure equal and valid, but node_row_ptr, arg_nodes or other attributes
                     differ (reported, not a fixture)"""
    mx, amp = res["mx"], res["amp"]
    if mx.get("crashed") or mx.get("stage") == "load":
        return "error", ("error", "mxnet-" + ("crash" if mx.get("crashed") else "load")), mx.get("error", "")
    if amp["rc"] not in (0, 2):
        return "error", ("error", "ampstudio-rc-%s" % amp["rc"]), "ampstudio exit %s: %s" % (amp["rc"], amp["stderr"][:300])
    if amp["rc"] == 0:
        amp_state = "valid" if res["valid"].get("ok") else "invalid"
    else:
        amp_state = "refused"
    if not mx.get("ok"):
        norm = normalize_error(mx.get("error"))
        detail = "MXNet failed: %s; ampstudio %s" % ((mx.get("error") or "").splitlines()[0][:300], amp_state)
        if amp_state == "invalid":
            detail += ": " + (res["valid"].get("error") or "").splitlines()[0][:300]
        elif amp_state == "refused":
            detail += ": " + amp["stderr"].splitlines()[-1][:300]
        if "valid160" in res:
            # classic: what MXNet 1.6.0's own type inference says of ampstudio's output
            ok160 = res["valid160"].get("ok")
            amp_state += "-1.6.0-%s" % ("valid" if ok160 else "invalid")
            detail += "; in MXNet 1.6.0 %s" % ("valid" if ok160 else "invalid: " + (
                res["valid160"].get("error") or "").splitlines()[0][:200])
        return "mxnet-failed", ("mxnet-failed", norm, amp_state), detail
    diff = res.get("diff")
    if not res["mx_valid"].get("ok") or not res["mx_bind"].get("ok"):
        how = "infer_type" if not res["mx_valid"].get("ok") else "binding"
        err = (res["mx_valid"] if how == "infer_type" else res["mx_bind"]).get("error") or ""
        detail = "MXNet's output fails %s: %s; ampstudio %s" % (
            how, err.splitlines()[0][:300] if err else "?", amp_state)
        if amp_state != "refused":
            detail += ", structure " + (diff_text(diff) if diff else "equal")
        if amp_state == "refused":
            detail += ": " + amp["stderr"].splitlines()[-1][:300]
        return "mxnet-invalid", ("mxnet-invalid", normalize_error(err), amp_state,
                                 "differs" if diff else ("equal" if amp_state != "refused" else "n/a")), detail
    if amp_state == "refused":
        return "refused", ("refused",), "ampstudio refused (exit 2): " + amp["stderr"].splitlines()[-1][:300]
    if diff:
        return "structure", ("structure", diff["kind"], diff["about"]), diff_text(diff)
    if amp_state == "invalid":
        norm = normalize_error(res["valid"].get("error"))
        return "invalid", ("invalid", norm), "ampstudio output invalid: " + (res["valid"].get("error") or "")[:300]
    if res.get("params"):
        p = res["params"][0]
        kind = "mxnet-only" if "ampstudio (__dtype__) only []" in p else (
            "ampstudio-only" if "MXNet (__dtype__) only []" in p else
            "marks" if p.startswith("__dtype__") else "report" if p.startswith("ampstudio's report") else "both")
        return "params", ("params", kind), p
    if res.get("aux"):
        return "aux", ("aux", res["aux"][0].split(":")[0]), "; ".join(res["aux"])
    return "equal", ("equal",), ""


def fixture_bucket(case, res):
    """Which fixture bucket a disagreement fills (None: no fixture). Buckets ignore
    cast_optional_params, so a cop run adds fixtures only for what plain runs did not show."""
    if res["category"] in ("equal", "aux"):
        return None
    return (case.mode, case.dtype, kind_tag(res))


def kind_tag(res):
    """A short name for the kind of a case's outcome (its category and the coarse part of its
    signature), for the summary and fixture names."""
    cat = res["category"]
    sig = res["signature"]
    if cat == "equal":
        return "equal"
    if cat == "aux":
        return slug("aux-" + re.sub(r"\b\w+\d+(_\w+)? \(", "(", res["detail"].split(";")[0]))
    if cat == "mxnet-failed":
        tag = "mxnet-failed-%s-amp-%s" % (error_tag(sig[1]), sig[2].replace("-1.6.0-", "-160-"))
    elif cat == "mxnet-invalid":
        tag = "mxnet-invalid-%s-amp-%s-structure-%s" % (error_tag(sig[1]), sig[2], sig[3])
    elif cat == "invalid":
        tag = "amp-invalid-%s" % error_tag(sig[1])
    elif cat == "structure":
        tag = "structure-%s-%s" % (sig[1], sig[2].split(" -> ")[0].replace("amp_", "").replace(" on ", "-"))
    elif cat == "params":
        tag = "params-%s" % sig[1]
    else:
        tag = "-".join(str(x) for x in sig)
    return slug(tag)


def diff_text(diff):
    t = "%s (%s): %s" % (diff["kind"], diff["about"], diff["text"])
    if diff["n_only_mxnet"]:
        t += "; only in MXNet (%d): %s" % (diff["n_only_mxnet"], ", ".join(diff["only_mxnet"]))
    if diff["n_only_ampstudio"]:
        t += "; only in ampstudio (%d): %s" % (diff["n_only_ampstudio"], ", ".join(diff["only_ampstudio"]))
    return t


# ----------------------------------------------------------------------------------------------
# Shrinking (greedy delta debugging on the source graph)

def _reindex(symbol, keep_ids, remap_entry=None):
    """Keeps the nodes keep_ids (old ids, topological order), applying remap_entry to every input
    entry and head first; drops what no head reaches."""
    nodes = symbol["nodes"]

    def fix(e):
        return remap_entry(e) if remap_entry else (e[0], e[1])
    heads = [fix(h) for h in symbol["heads"]]
    # reachability from heads over the remapped inputs
    reach, stack = set(), [h[0] for h in heads]
    while stack:
        i = stack.pop()
        if i in reach:
            continue
        reach.add(i)
        for e in nodes[i]["inputs"]:
            stack.append(fix(e)[0])
    order = [i for i in range(len(nodes)) if i in reach and i in keep_ids]
    if len(order) != len(reach):
        return None
    new_nodes = []
    for i in order:
        n = dict(nodes[i])
        n["inputs"] = [list(fix(e)) + [0] for e in nodes[i]["inputs"]]
        new_nodes.append(n)
    totals = [random_dags.node_outputs(n)[0] for n in new_nodes]
    return random_dags.build_symbol(new_nodes, totals, order, heads)


def shrink_candidates(case):
    """Smaller variants of the case's graph, most promising first (lazily)."""
    sym = case.symbol
    nodes = sym["nodes"]
    n = len(nodes)
    all_ids = set(range(n))
    # 1. drop heads
    if len(sym["heads"]) > 1:
        for k in range(len(sym["heads"])):
            s = dict(sym)
            s["heads"] = sym["heads"][:k] + sym["heads"][k + 1:]
            r = _reindex(s, all_ids)
            if r:
                yield case.with_graph(r)
    # 2. keep only one head
    if len(sym["heads"]) > 1:
        for h in sym["heads"]:
            s = dict(sym)
            s["heads"] = [h]
            r = _reindex(s, all_ids)
            if r:
                yield case.with_graph(r)
    # 3. bypass an op: its consumers read its input 0 (then another input) instead
    for i in reversed(range(n)):
        if nodes[i]["op"] == "null" or not nodes[i]["inputs"]:
            continue
        seen = set()
        for e_in in nodes[i]["inputs"]:
            src = tuple(e_in[:2])
            if src in seen:
                continue
            seen.add(src)

            def remap(e, i=i, src=src):
                return src if e[0] == i else (e[0], e[1])
            r = _reindex(sym, all_ids - {i}, remap)
            if r:
                yield case.with_graph(r)
    # 4. fewer inputs of variadic ops
    for i in reversed(range(n)):
        a = nodes[i].get("attrs") or {}
        if nodes[i]["op"] in ("Concat", "concat", "add_n", "ElementWiseSum", "stack") and int(a.get("num_args", 0)) > 2:
            s = json.loads(json.dumps(sym))
            s["nodes"][i]["inputs"] = s["nodes"][i]["inputs"][:-1]
            s["nodes"][i]["attrs"]["num_args"] = str(int(a["num_args"]) - 1)
            r = _reindex(s, all_ids)
            if r:
                yield case.with_graph(r)
    # 5. fewer excluded names
    for k in range(len(case.excluded)):
        yield case.with_graph(sym, case.excluded[:k] + case.excluded[k + 1:])
    # 6. drop excluded names that are no longer in the graph
    names = {nd["name"] for nd in nodes}
    kept = [x for x in case.excluded if x in names]
    if len(kept) != len(case.excluded):
        yield case.with_graph(sym, kept)


def graph_size(case):
    return (len(case.symbol["nodes"]), len(case.excluded), len(random_dags.dumps(case.symbol)))


def shrink(tester, case, signature, budget):
    """Greedy: take the first smaller candidate that keeps the signature, repeat until none does."""
    best = case
    evals = 0
    improved = True
    while improved and evals < budget:
        improved = False
        for cand in shrink_candidates(best):
            if graph_size(cand) >= graph_size(best):
                continue
            evals += 1
            r = tester.run(cand)
            if r["signature"] == signature:
                best = cand
                improved = True
                break
            if evals >= budget:
                break
    # Names of excluded nodes that the shrinking removed from the graph are not needed.
    return best, evals


# ----------------------------------------------------------------------------------------------
# Fixtures and kept cases

def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:64]


def write_case_dir(path, case, res, full):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "source-symbol.json"), "w") as f:
        f.write(random_dags.dumps(case.symbol) + "\n")
    with open(os.path.join(path, "options.json"), "w") as f:
        json.dump(case.options(), f, indent=2)
        f.write("\n")
    mx = res["mx"]
    if mx.get("ok"):
        with open(os.path.join(path, "mxnet-symbol.json"), "w") as f:
            f.write(mx["json"].rstrip("\n") + "\n")
    else:
        with open(os.path.join(path, "mxnet-error.txt"), "w") as f:
            # without MXNet's log timestamps, so that a refresh changes only what changed
            f.write(re.sub(r"\[\d\d:\d\d:\d\d\] ", "", (mx.get("error") or "").strip()) + "\n")
    expected = fixture_expectation(case, res)
    with open(os.path.join(path, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")
    golden = os.path.join(path, "ampstudio-symbol.json")
    if expected["ampstudio"] == "valid":
        # Verified by MXNet 1.9.1 just now: the C++ test compares ampstudio's output with it.
        with open(golden, "w") as f:
            f.write(res["amp"]["json"].rstrip("\n") + "\n")
    elif os.path.exists(golden) and not full:
        os.remove(golden)
    if full:  # --keep: everything needed to look at it
        amp = res["amp"]
        if amp.get("json"):
            with open(os.path.join(path, "ampstudio-symbol.json"), "w") as f:
                f.write(amp["json"])
            with open(os.path.join(path, "ampstudio-report.json"), "w") as f:
                json.dump(amp["report"], f, indent=1)
        with open(os.path.join(path, "result.txt"), "w") as f:
            f.write("category: %s\n%s\n\nampstudio: %s\nexit %s\n%s\n" % (
                res["category"], res["detail"], " ".join(amp["cmd"]), amp["rc"], amp["stderr"]))
            if res.get("valid"):
                f.write("\nvalidity (MXNet 1.9.1 infer_type): %s\n" % json.dumps(res["valid"]))
            if res.get("aux"):
                f.write("\nother differences: %s\n" % "; ".join(res["aux"]))


def fixture_expectation(case, res):
    """What the C++ fixture test (tests/engine/test_mxnet_fixtures.cpp) expects of ampstudio on a
    fixture, as MXNet judged it when the fixture was written:
    mxnet      "ok" (its output passes its own infer_type and binds), "invalid" (it returned an
               output that does not), "failed" (convert_symbol raised)
    ampstudio  "equal" (valid, and the same graph as MXNet's, __dtype__ marks included), "valid"
               (passes MXNet 1.9.1's infer_type with its own __dtype__ marks and binds, but is not
               MXNet's graph: ampstudio-symbol.json holds it), "refused" (exit 2), "invalid"
               (exit 0 with an output MXNet 1.9.1 rejects: a defect the C++ test reports)"""
    mx, amp = res["mx"], res["amp"]
    if not mx.get("ok"):
        mxnet = "failed"
    elif res["mx_valid"].get("ok") and res["mx_bind"].get("ok"):
        mxnet = "ok"
    else:
        mxnet = "invalid"
    if amp["rc"] == 2:
        ampstudio = "refused"
    elif amp["rc"] != 0 or not (res.get("valid", {}).get("ok") and res.get("bind", {}).get("ok")):
        ampstudio = "invalid"
    elif mxnet == "ok" and res.get("diff") is None and not res.get("params"):
        ampstudio = "equal"
    else:
        ampstudio = "valid"
    detail = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", res["detail"])[:400]  # no log timestamps
    out = {"mxnet": mxnet, "ampstudio": ampstudio, "category": res["category"], "detail": detail}
    if "valid160" in res:
        out["ampstudio_valid_in_mxnet_1_6_0"] = bool(res["valid160"].get("ok"))
    return out


def load_fixture_case(path):
    """A fixture folder back into a Case (options.json + source-symbol.json)."""
    with open(os.path.join(path, "options.json")) as f:
        o = json.load(f)
    with open(os.path.join(path, "source-symbol.json")) as f:
        symbol = json.load(f)
    return Case(os.path.basename(path), symbol, o["data_names"], o["excluded_sym_names"], o["mode"],
                o["target_dtype"], o["cast_optional_params"], "fixture")


def refresh_fixtures(tester, d):
    """Re-runs every fixture in `d` with today's MXNet workers and ampstudio-cli and rewrites MXNet's
    result and the expectations (expected.json, ampstudio-symbol.json)."""
    counts = collections.Counter()
    details = {}
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not os.path.isfile(os.path.join(path, "options.json")):
            continue
        case = load_fixture_case(path)
        res = tester.run(case)
        for stale in ("mxnet-symbol.json", "mxnet-error.txt"):
            if os.path.exists(os.path.join(path, stale)):
                os.remove(os.path.join(path, stale))
        write_case_dir(path, case, res, full=False)
        e = fixture_expectation(case, res)
        counts[(e["mxnet"], e["ampstudio"])] += 1
        details[name] = res["detail"] or "equal"
        print("%-90s mxnet %-7s ampstudio %s" % (name, e["mxnet"], e["ampstudio"]))
    write_fixture_index(d, details)
    print("\n".join("%4d  mxnet %s, ampstudio %s" % (n, k[0], k[1]) for k, n in sorted(counts.items())))
    return counts


# ----------------------------------------------------------------------------------------------
# Driver

def export_lists_160(tester):
    a = tester.w160.request({"op": "lists"})
    if not a.get("ok"):
        sys.exit("could not export MXNet 1.6.0's lists: %s" % a.get("error"))
    text = json.dumps(a["lists"], indent=2) + "\n"
    old = open(LISTS_160).read() if os.path.exists(LISTS_160) else None
    if old != text:
        with open(LISTS_160, "w") as f:
            f.write(text)
        print("wrote %s" % os.path.relpath(LISTS_160, ROOT))
    return text


def model_graphs(dirs):
    out = []
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*-symbol.json"))):
            with open(path) as f:
                sym = json.load(f)
            data = [n["name"] for n in sym["nodes"] if n["op"] == "null" and n["name"].startswith("data")]
            out.append({"name": os.path.basename(path)[:-len("-symbol.json")], "symbol": sym,
                        "data_names": data or ["data"], "excluded_sym_names": [], "size": "model"})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20, help="random graphs per size (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random graphs (default 1)")
    ap.add_argument("--sizes", default="30,200", help="ops per random graph, comma-separated (default 30,200)")
    ap.add_argument("--runs", default=",".join(ALL_RUNS),
                    help="mode-dtype runs (default %s)" % ",".join(ALL_RUNS))
    ap.add_argument("--cast-optional-params", dest="cop", default="both", choices=["no", "yes", "both"],
                    help="cast_optional_params off, on or both (default both)")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build-cpu", "app", "ampstudio-cli"))
    ap.add_argument("--python191", default=os.path.join(HERE, ".venv-mxnet191", "bin", "python"))
    ap.add_argument("--python160", default=os.path.join(HERE, ".venv-mxnet160", "bin", "python"))
    ap.add_argument("--models", nargs="*", metavar="DIR",
                    help="also convert the *-symbol.json models in these folders (default: "
                         "../shared/testdata/mxnet and resources/examples)")
    ap.add_argument("--keep", metavar="DIR", help="write every disagreeing case (unshrunk) here")
    ap.add_argument("--write-fixtures", metavar="DIR",
                    help="shrink disagreements into fixture folders here (a few per kind)")
    ap.add_argument("--refresh-fixtures", metavar="DIR",
                    help="re-run the fixtures in DIR, rewrite MXNet's results and expected.json, and stop")
    ap.add_argument("--fixtures-per-kind", type=int, default=2,
                    help="fixtures per (run, kind of disagreement) (default 2)")
    ap.add_argument("--shrink-budget", type=int, default=1500, help="evaluations per shrink (default 1500)")
    ap.add_argument("--json", metavar="FILE", help="write per-case results (category, detail) as JSON")
    ap.add_argument("--kinds-shown", type=int, default=12, help="kinds of disagreement printed per run (default 12)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()

    if not os.access(args.cli, os.X_OK):
        sys.exit("ampstudio-cli not found or not executable: %s (build it, or give --cli)" % args.cli)
    for py in (args.python191, args.python160):
        if not os.access(py, os.X_OK):
            sys.exit("%s missing: run tests/differential/setup_venvs.sh" % py)
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    for r in runs:
        if r not in ALL_RUNS:
            sys.exit("unknown run %s (known: %s; MXNet 1.6.0 has no bfloat16)" % (r, ", ".join(ALL_RUNS)))
    cops = {"no": [False], "yes": [True], "both": [False, True]}[args.cop]
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()] if args.count > 0 else []

    tester = Tester(args)
    t0 = time.time()
    lists_text = export_lists_160(tester)
    if args.refresh_fixtures:
        counts = refresh_fixtures(tester, args.refresh_fixtures)
        tester.close()
        sys.exit(1 if any(k[1] == "invalid" for k in counts) else 0)

    graphs = []
    for size in sizes:
        for i in range(args.count):
            g = random_dags.generate("%d-%d" % (args.seed, i), size)
            g["name"] = "dag-seed%d-n%d-%d" % (args.seed, size, i)
            g["size"] = str(size)
            graphs.append(g)
    if args.models is not None:
        dirs = args.models or [os.path.join(ROOT, "..", "shared", "testdata", "mxnet"),
                               os.path.join(ROOT, "resources", "examples")]
        graphs += model_graphs(dirs)

    stats = collections.OrderedDict()
    examples = collections.OrderedDict()   # (run, category, signature) -> (case, res)
    sig_counts = collections.Counter()
    bind_counts = collections.Counter()
    results = []
    bad_sources = []
    fixtures_written = collections.Counter()
    fixture_sigs = set()
    fixture_graphs = set()
    fixture_details = {}
    t_gen = time.time() - t0

    for gi, g in enumerate(graphs):
        text = random_dags.dumps(g["symbol"])
        # The source itself must type from the data names alone (a generator check).
        src_ok = tester.w191.request({"op": "infer", "symbol": text,
                                      "types": {n: "float32" for n in g["data_names"]}})
        if not src_ok.get("ok"):
            bad_sources.append((g["name"], src_ok.get("error")))
            continue
        for run in runs:
            mode, dtype = run.split("-")
            for cop in cops:
                case = Case(g["name"], g["symbol"], g["data_names"], g["excluded_sym_names"], mode, dtype, cop,
                            g["size"])
                res = tester.run(case)
                key = case.config
                st = stats.setdefault(key, collections.Counter())
                st["graphs"] += 1
                cat = res["category"]
                st[cat] += 1
                if res["mx"].get("ok"):
                    st["mx_ok"] += 1
                    if not res["mx_valid"].get("ok") or not res["mx_bind"].get("ok"):
                        st["mx_invalid"] += 1
                        if res["amp"]["rc"] == 0 and res["valid"].get("ok"):
                            st["valid_where_mx_invalid"] += 1
                    if not res.get("diff"):
                        st["struct_equal"] += 1
                if res["amp"]["rc"] == 0:
                    if res["valid"].get("ok"):
                        st["valid"] += 1
                        if cat == "mxnet-failed":
                            st["valid_where_mx_failed"] += 1
                    st["amp_ok"] += 1
                if res["amp"]["rc"] == 2:
                    st["refused_all"] += 1
                if res.get("aux"):
                    st["aux_diff"] += 1
                if res.get("params"):
                    st["params_diff"] += 1
                if res.get("valid160", {}).get("ok"):
                    st["valid160"] += 1
                if res["amp"]["rc"] == 0 and res["bind"].get("ok"):
                    st["bind_valid"] += 1
                if res["amp"]["rc"] == 0 and res["valid"].get("ok") and not res["bind"].get("ok"):
                    ssig = (run + ("+cop" if cop else ""), "bind-invalid", normalize_error(res["bind"].get("error")))
                    bind_counts[ssig] += 1
                    if ssig not in examples:
                        examples[ssig] = (case, dict(res, detail="valid, but not bound (unknown inputs "
                                                     "float32): " + (res["bind"].get("error") or "")[:300]))
                sig = (run + ("+cop" if cop else ""), cat, kind_tag(res))
                sig_counts[sig] += 1
                if cat != "equal" and sig not in examples:
                    examples[sig] = (case, res)
                results.append({"graph": g["name"], "run": run, "cast_optional_params": cop, "size": g["size"],
                                "category": cat, "detail": res["detail"]})
                if cat != "equal" and args.keep:
                    d = os.path.join(args.keep, "%s-%s%s-%s" % (g["name"], run, "-cop" if cop else "", cat))
                    write_case_dir(d, case, res, full=True)
                bucket = fixture_bucket(case, res)
                if args.write_fixtures and bucket and fixtures_written[bucket] < args.fixtures_per_kind \
                        and (g["name"], bucket) not in fixture_graphs:
                    fixture_graphs.add((g["name"], bucket))
                    ts = time.time()
                    small, evals = shrink(tester, case, res["signature"], args.shrink_budget)
                    sres = tester.run(small)
                    tester.timing["shrink"] += time.time() - ts
                    fp = hashlib.sha1((random_dags.dumps(small.symbol) + json.dumps(small.options())).encode()).hexdigest()
                    if fp not in fixture_sigs:
                        fixture_sigs.add(fp)
                        fixtures_written[bucket] += 1
                        name = "%s%s-%s-%s" % (run, "-cop" if cop else "", bucket[-1], fp[:6])
                        write_case_dir(os.path.join(args.write_fixtures, name), small, sres, full=False)
                        fixture_details[name] = sres["detail"]
                        examples[sig + ("fixture",)] = (small, sres)
                        if not args.quiet:
                            print("  fixture %s: %d nodes (from %d, %d evaluations)" % (
                                name, len(small.symbol["nodes"]), len(case.symbol["nodes"]), evals), flush=True)
        if not args.quiet and (gi + 1) % 50 == 0:
            print("%d/%d graphs, %.0f s" % (gi + 1, len(graphs), time.time() - t0), flush=True)

    if args.write_fixtures:
        os.makedirs(args.write_fixtures, exist_ok=True)
        with open(os.path.join(args.write_fixtures, FIXTURE_LISTS_NAME), "w") as f:
            f.write(lists_text)
        write_fixture_index(args.write_fixtures, fixture_details)

    elapsed = time.time() - t0
    print_summary(stats, sig_counts, bind_counts, examples, bad_sources, tester, elapsed, t_gen, len(graphs), args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "bad_sources": bad_sources, "elapsed_s": elapsed}, f, indent=1)
    tester.close()


def write_fixture_index(d, details=None):
    """README.md in the fixture folder: one row per fixture folder, with what differed (from
    details, name -> text, else the row an earlier index had)."""
    index = os.path.join(d, "README.md")
    old = {}
    if os.path.exists(index):
        for line in open(index):
            m = re.match(r"\| `([^`]+)` \|.*\| ([^|]*) \|$", line.rstrip("\n"))
            if m:
                old[m.group(1)] = m.group(2)
    details = dict(details or {})
    rows = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if not os.path.isdir(p):
            continue
        try:
            with open(os.path.join(p, "options.json")) as f:
                opts = json.load(f)
            with open(os.path.join(p, "source-symbol.json")) as f:
                nodes = len(json.load(f)["nodes"])
        except (OSError, ValueError):
            continue
        try:
            with open(os.path.join(p, "expected.json")) as f:
                e = json.load(f)
            mx, amp = e["mxnet"], e["ampstudio"]
        except (OSError, ValueError, KeyError):
            mx, amp = "?", "?"
        what = details.get(name, old.get(name, "")).replace("|", "/").replace("\n", " ")
        what = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", what)
        rows.append("| `%s` | %s %s%s | %d | %s | %s | %s |" % (
            name, opts["mode"], opts["target_dtype"], " cast_optional_params" if opts["cast_optional_params"] else "",
            nodes, mx, amp, what[:400]))
    with open(index, "w") as f:
        f.write("# MXNet differential fixtures\n\n"
                "Written by `tests/differential/differential.py --write-fixtures` (random graphs, shrunk, on which\n"
                "AMP Studio and MXNet disagreed, or MXNet itself failed) and brought up to date with\n"
                "`--refresh-fixtures`; see tests/differential/README.md. Each folder: `source-symbol.json`,\n"
                "`options.json` (mode, target_dtype, excluded_sym_names, data_names, cast_optional_params, lists:\n"
                "`mxnet-1.9.1-<dtype>` = MXNet 1.9.1's defaults, `mxnet-1.6.0-float16` = `%s` here, used with\n"
                "`--lists` for classic runs), MXNet's result: `mxnet-symbol.json` (`tojson(remove_amp_cast=False)`;\n"
                "MXNet 1.9.1 for typed, 1.6.0 for classic) or `mxnet-error.txt` when its convert_symbol raised, and\n"
                "`expected.json`: how MXNet's result fared (ok / invalid: fails its own infer_type or binding /\n"
                "failed) and what AMP Studio must do (equal: MXNet's graph, __dtype__ marks included; valid: a\n"
                "graph MXNet 1.9.1 accepts, kept in `ampstudio-symbol.json`; refused: exit 2). The C++ test\n"
                "`tests/engine/test_mxnet_fixtures.cpp` checks every folder. The last column is the tester's note.\n\n"
                "| fixture | run | source nodes | MXNet | AMP Studio | note |\n|---|---|---:|---|---|---|\n" % FIXTURE_LISTS_NAME)
        f.write("\n".join(rows) + "\n")


def print_summary(stats, sig_counts, bind_counts, examples, bad_sources, tester, elapsed, t_gen, n_graphs, args):
    print()
    print("Summary (%d graphs; MXNet typed = 1.9.1, classic = 1.6.0; 'amp valid' = ampstudio's output passes "
          "MXNet 1.9.1 infer_type with data float32 and the stored parameters in the target dtype; 'bind "
          "valid' = also when every input still unknown is then float32; 'mx invalid' = MXNet succeeded but "
          "its output fails either)" % n_graphs)
    hdr = ("mode", "dtype", "size", "cop", "graphs", "mx ok", "struct eq", "mx failed", "mx invalid",
           "amp valid", "valid|mx failed", "valid|mx invalid", "refused", "errors", "params diff",
           "aux diff", "bind valid", "valid 1.6.0")
    rows = []
    tot = collections.Counter()
    for (mode, dtype, size, cop), st in stats.items():
        row = (mode, dtype, size, "yes" if cop else "no", st["graphs"], st["mx_ok"],
               "%d/%d" % (st["struct_equal"], st["mx_ok"]), st["mxnet-failed"], st["mx_invalid"],
               "%d/%d" % (st["valid"], st["amp_ok"]),
               "%d/%d" % (st["valid_where_mx_failed"], st["mxnet-failed"]),
               "%d/%d" % (st["valid_where_mx_invalid"], st["mx_invalid"]), st["refused_all"], st["error"],
               st["params_diff"], st["aux_diff"], "%d/%d" % (st["bind_valid"], st["amp_ok"]),
               "%d/%d" % (st["valid160"], st["amp_ok"]) if mode == "classic" else "")
        rows.append(row)
        tot.update(st)
    rows.append(("total", "", "", "", tot["graphs"], tot["mx_ok"], "%d/%d" % (tot["struct_equal"], tot["mx_ok"]),
                 tot["mxnet-failed"], tot["mx_invalid"], "%d/%d" % (tot["valid"], tot["amp_ok"]),
                 "%d/%d" % (tot["valid_where_mx_failed"], tot["mxnet-failed"]),
                 "%d/%d" % (tot["valid_where_mx_invalid"], tot["mx_invalid"]), tot["refused_all"], tot["error"],
                 tot["params_diff"], tot["aux_diff"], "%d/%d" % (tot["bind_valid"], tot["amp_ok"]), ""))
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    fmt = "  ".join("%%-%ds" % w if i < 4 else "%%%ds" % w for i, w in enumerate(widths))
    print(fmt % hdr)
    for r in rows:
        print(fmt % r)
    print()
    print("Kinds of disagreement per run (count, kind, first example; --json has every case)")
    by_run = collections.OrderedDict()
    for sig, n in sig_counts.items():
        if sig[1] != "equal":
            by_run.setdefault(sig[0], []).append((n, sig))
    for run in sorted(by_run):
        kinds = sorted(by_run[run], key=lambda t: (-t[0], t[1]))
        print("  %s:" % run)
        for n, sig in kinds[:args.kinds_shown]:
            case, res = examples[sig]
            print("    %5d  %s" % (n, sig[2]))
            print("           e.g. %s: %s" % (case.name, res["detail"][:300]))
            fx = examples.get(sig + ("fixture",))
            if fx:
                print("           shrunk to %d nodes: %s" % (len(fx[0].symbol["nodes"]), fx[1]["detail"][:300]))
        rest = kinds[args.kinds_shown:]
        if rest:
            print("    %5d  in %d more kinds" % (sum(t[0] for t in rest), len(rest)))
    if bind_counts:
        print("\nValid, but not when bound (inputs still unknown after inference float32):")
        for sig, n in sorted(bind_counts.items()):
            case, res = examples[sig]
            print("  %5d  %s  %s" % (n, sig[0], sig[2]))
            print("         e.g. %s: %s" % (case.name, res["detail"][:300]))
    if bad_sources:
        print("\n%d generated graphs did not type from their data names alone (generator bug), skipped:" % len(bad_sources))
        for name, err in bad_sources[:5]:
            print("  %s: %s" % (name, (err or "").splitlines()[0][:200]))
    t = tester.timing
    print("\nTime: %.1f s in all (MXNet convert %.1f s, ampstudio-cli %.1f s, validation %.1f s, shrinking %.1f s); "
          "MXNet worker crashes: %d" % (elapsed, t["mxnet"], t["ampstudio"], t["validate"], t["shrink"],
                                        tester.w191.crashes + tester.w160.crashes))


if __name__ == "__main__":
    main()
