#!/usr/bin/env python3
"""Random MXNet symbol graphs for the AMP differential tester (differential.py).

Pure Python (no MXNet needed): writes symbol JSON in MXNet 1.x's format (nodes in topological order,
"attrs", arg_nodes, node_row_ptr, heads) that MXNet 1.6.0 and 1.9.1 both load with
mx.sym.load_json and can type. Shapes are never needed: only dtypes matter to the AMP pass.

What the graphs contain, on purpose:
- ops of every kind of MXNet 1.9.1's float16 lists: target (FullyConnected, Convolution,
  Deconvolution, RNN), FP32 (softmax, exp, norm, topk, LayerNorm, moments ...), widest (elemwise_*,
  broadcast_*, Concat, add_n, stack, dot, where ...), conditional FP32 (Activation / LeakyReLU with
  matching and non-matching act_type, or none given), neutral (relu, Pooling, Flatten, BatchNorm,
  Reshape, transpose, SliceChannel, Embedding, slice_like, _contrib_AdaptiveAvgPooling2D ...) and ops in
  no list (_np_cumsum, _contrib_round_ste ...);
- multi-output ops (SliceChannel / split, _split_v2, BatchNorm and LayerNorm with output_mean_var,
  topk ret_typ=both, moments) whose several outputs are consumed;
- weight variables (FullyConnected's weight and bias, BatchNorm's gamma/beta/moving stats, RNN's
  parameters and state ...), sometimes shared by two ops, and free variables shared by several consumers;
- entries consumed by several nodes of different kinds, several graph heads (sinks and extra
  intermediate entries, rarely a variable or the same entry twice), and per graph a random list of
  excluded_sym_names (ops, rarely a variable).

Usage as a script (writes N graphs as JSON files plus a manifest):
    python3 random_dags.py --count 5 --size 30 --seed 1 --out /tmp/dags
"""

import argparse
import json
import os
import random

MXNET_VERSION = 10901

# Total outputs (node_row_ptr) and visible outputs per op, where not 1/1.
# Attribute-dependent ones are computed in _outputs().
_FIXED_OUTPUTS = {
    # op: (total, visible)
    "BatchNorm": (3, 1),
    "LayerNorm": (3, 1),
    "GroupNorm": (3, 1),
    "InstanceNorm": (3, 1),
    "L2Normalization": (2, 1),
    "LRN": (2, 1),
    "Dropout": (2, 1),
    "Pooling": (2, 1),  # max Pooling in an MKLDNN build (the 1.9.1 release); MXNet ignores it on load
    "sort": (2, 1),
    "moments": (2, 2),
}


def _outputs(op, attrs):
    """(total outputs, visible outputs) of an op with these attributes."""
    if op in ("SliceChannel", "split"):
        n = int(attrs["num_outputs"])
        return n, n
    if op == "_split_v2":
        n = int(attrs["sections"])
        return n, n
    if op == "topk":
        # ret_typ=value keeps the indices as a hidden second output
        t = attrs.get("ret_typ", "indices")
        return {"both": (2, 2), "value": (2, 1)}.get(t, (1, 1))
    if op in ("BatchNorm", "LayerNorm") and attrs.get("output_mean_var") == "True":
        return 3, 3
    if op == "Pooling":
        # MKLDNN builds: 2 outputs for max pooling (workspace), 1 otherwise.
        return (2, 1) if attrs.get("pool_type", "max") == "max" else (1, 1)
    return _FIXED_OUTPUTS.get(op, (1, 1))


def _b(rng, p=0.5):
    return "True" if rng.random() < p else "False"


# Each spec: (op, kind, weight, builder). builder(rng) -> (attrs, n_data_inputs, [param suffixes]).
# kind is the op's place in MXNet 1.9.1's float16 lists (for the generator's balance only).
def _fc(rng):
    no_bias = _b(rng, 0.3)
    attrs = {"num_hidden": str(rng.choice([4, 8, 16])), "no_bias": no_bias}
    if rng.random() < 0.3:
        attrs["flatten"] = _b(rng)
    return attrs, 1, ["weight"] + ([] if no_bias == "True" else ["bias"])


def _conv(rng):
    no_bias = _b(rng, 0.3)
    k = rng.choice([1, 3])
    attrs = {"kernel": "(%d, %d)" % (k, k), "num_filter": str(rng.choice([4, 8])), "no_bias": no_bias}
    if k == 3 and rng.random() < 0.5:
        attrs["pad"] = "(1, 1)"
    return attrs, 1, ["weight"] + ([] if no_bias == "True" else ["bias"])


def _deconv(rng):
    no_bias = _b(rng, 0.5)
    attrs = {"kernel": "(2, 2)", "num_filter": "4", "no_bias": no_bias}
    return attrs, 1, ["weight"] + ([] if no_bias == "True" else ["bias"])


def _rnn(rng):
    mode = rng.choice(["rnn_tanh", "rnn_relu", "gru", "lstm"])
    attrs = {"mode": mode, "num_layers": "1", "state_size": str(rng.choice([4, 8]))}
    return attrs, 1, ["parameters", "state"] + (["state_cell"] if mode == "lstm" else [])


def _none(rng):
    return {}, 1, []


def _unary(attrs_fn=None):
    def build(rng):
        return (attrs_fn(rng) if attrs_fn else {}), 1, []
    return build


def _binary(rng):
    return {}, 2, []


def _nary(key, extra=None):
    def build(rng):
        n = rng.choice([2, 2, 3, 4])
        attrs = {key: str(n)}
        if extra:
            attrs.update(extra(rng))
        return attrs, n, []
    return build


def _norm_gamma_beta(extra=None):
    def build(rng):
        attrs = extra(rng) if extra else {}
        return attrs, 1, ["gamma", "beta"]
    return build


def _batchnorm(rng):
    attrs = {}
    if rng.random() < 0.5:
        attrs["fix_gamma"] = _b(rng)
    if rng.random() < 0.35:
        attrs["output_mean_var"] = "True"
    if rng.random() < 0.2:
        attrs["eps"] = "1e-05"
    return attrs, 1, ["gamma", "beta", "moving_mean", "moving_var"]


def _layernorm(rng):
    attrs = {}
    if rng.random() < 0.3:
        attrs["output_mean_var"] = "True"
    return attrs, 1, ["gamma", "beta"]


def _activation(matching):
    def build(rng):
        if matching:
            t = "softrelu"
        else:
            t = rng.choice(["relu", "sigmoid", "tanh", "softsign"])
        return {"act_type": t}, 1, []
    return build


def _leaky(rng):
    r = rng.random()
    if r < 0.4:
        return {"act_type": rng.choice(["elu", "selu"])}, 1, []  # matches the conditional list
    if r < 0.6:
        return {"act_type": "leaky", "slope": "0.1"}, 1, []
    if r < 0.8:
        return {}, 1, []  # act_type not given: 'leaky' by default, never matches
    return {"act_type": "prelu"}, 1, ["gamma"]


def _pooling(rng):
    t = rng.choice(["max", "max", "avg"])
    attrs = {"kernel": "(2, 2)", "pool_type": t}
    if rng.random() < 0.3:
        attrs["global_pool"] = "True"
    if rng.random() < 0.3:
        attrs["stride"] = "(2, 2)"
    return attrs, 1, []


def _slicechannel(rng):
    n = rng.choice([2, 2, 3])
    attrs = {"num_outputs": str(n), "axis": "1"}
    if rng.random() < 0.2:
        attrs["squeeze_axis"] = "True"
    return attrs, 1, []


def _split_v2(rng):
    return {"axis": "1", "indices": "[]", "sections": str(rng.choice([2, 3])), "squeeze_axis": "False"}, 1, []


def _topk(rng):
    t = rng.choice(["value", "indices", "both", "both"])
    return {"k": "2", "axis": "1", "ret_typ": t}, 1, []


def _embedding(rng):
    return {"input_dim": "10", "output_dim": "4"}, 1, ["weight"]


SPECS = [
    # --- target_dtype_ops (float16) ---
    ("FullyConnected", "target", 9, _fc),
    ("Convolution", "target", 6, _conv),
    ("Deconvolution", "target", 2, _deconv),
    ("RNN", "target", 1.5, _rnn),
    # --- fp32_ops ---
    ("softmax", "fp32", 2, _unary(lambda r: {"axis": "1"} if r.random() < 0.5 else {})),
    ("log_softmax", "fp32", 1, _unary()),
    ("softmin", "fp32", 0.5, _unary()),
    ("exp", "fp32", 2, _unary()),
    ("log", "fp32", 1, _unary()),
    ("square", "fp32", 0.7, _unary()),
    ("rsqrt", "fp32", 0.5, _unary()),
    ("reciprocal", "fp32", 0.5, _unary()),
    ("sum", "fp32", 1, _unary(lambda r: {"axis": "1", "keepdims": "True"} if r.random() < 0.5 else {})),
    ("mean", "fp32", 1, _unary(lambda r: {"axis": "1"})),
    ("norm", "fp32", 1, _unary()),
    ("topk", "fp32", 1.5, _topk),
    ("argsort", "fp32", 0.5, _unary(lambda r: {"axis": "1"})),
    ("moments", "fp32", 1, _unary(lambda r: {"axes": "(1,)"})),
    ("LayerNorm", "fp32", 1.5, _layernorm),
    ("InstanceNorm", "fp32", 0.5, _norm_gamma_beta()),
    ("GroupNorm", "fp32", 0.5, _norm_gamma_beta(lambda r: {"num_groups": "1"})),
    ("L2Normalization", "fp32", 0.5, _unary(lambda r: {"mode": "instance"})),
    ("LRN", "fp32", 0.5, _unary(lambda r: {"nsize": "3"})),
    ("broadcast_power", "fp32", 0.5, _binary),
    ("_power", "fp32", 0.3, _binary),
    ("smooth_l1", "fp32", 0.3, _unary(lambda r: {"scalar": "1.0"})),
    ("make_loss", "fp32", 0.3, _unary()),
    ("SoftmaxOutput", "fp32", 0.7, lambda r: ({}, 1, ["label"])),
    # --- widest_dtype_ops ---
    ("elemwise_add", "widest", 4, _binary),
    ("elemwise_sub", "widest", 1, _binary),
    ("elemwise_mul", "widest", 2, _binary),
    ("elemwise_div", "widest", 0.5, _binary),
    ("broadcast_add", "widest", 2, _binary),
    ("broadcast_mul", "widest", 1.5, _binary),
    ("broadcast_sub", "widest", 0.5, _binary),
    ("broadcast_maximum", "widest", 0.5, _binary),
    ("_maximum", "widest", 0.3, _binary),
    ("_minimum", "widest", 0.3, _binary),
    ("Concat", "widest", 2.5, _nary("num_args", lambda r: {"dim": "1"})),
    ("add_n", "widest", 2, _nary("num_args")),
    ("stack", "widest", 0.7, _nary("num_args", lambda r: {"axis": "0"})),
    ("dot", "widest", 1, _binary),
    ("batch_dot", "widest", 0.5, _binary),
    ("where", "widest", 0.5, lambda r: ({}, 3, [])),
    # --- conditional_fp32_ops ---
    ("Activation", "conditional-match", 2, _activation(True)),
    ("Activation", "conditional-other", 3, _activation(False)),
    ("LeakyReLU", "conditional", 2, _leaky),
    # --- neutral_ops ---
    ("relu", "neutral", 3, _unary()),
    ("sigmoid", "neutral", 1, _unary()),
    ("tanh", "neutral", 1, _unary()),
    ("sqrt", "neutral", 0.5, _unary()),
    ("abs", "neutral", 0.5, _unary()),
    ("negative", "neutral", 0.5, _unary()),
    ("_copy", "neutral", 0.5, _unary()),
    ("BlockGrad", "neutral", 0.3, _unary()),
    ("zeros_like", "neutral", 0.3, _unary()),
    ("clip", "neutral", 0.7, _unary(lambda r: {"a_min": "-1", "a_max": "1"})),
    ("_plus_scalar", "neutral", 0.7, _unary(lambda r: {"scalar": "1"})),
    ("_mul_scalar", "neutral", 0.7, _unary(lambda r: {"scalar": "0.5"})),
    ("expand_dims", "neutral", 0.5, _unary(lambda r: {"axis": "1"})),
    ("Flatten", "neutral", 2, _unary()),
    ("Reshape", "neutral", 1.5, _unary(lambda r: {"shape": "(0, -1)"})),
    ("transpose", "neutral", 1, _unary(lambda r: {"axes": "(1, 0)"} if r.random() < 0.5 else {})),
    ("SwapAxis", "neutral", 0.3, _unary(lambda r: {"dim1": "0", "dim2": "1"})),
    ("reverse", "neutral", 0.3, _unary(lambda r: {"axis": "1"})),
    ("tile", "neutral", 0.3, _unary(lambda r: {"reps": "(1, 2)"})),
    ("repeat", "neutral", 0.3, _unary(lambda r: {"repeats": "2"})),
    ("slice_axis", "neutral", 0.5, _unary(lambda r: {"axis": "1", "begin": "0", "end": "1"})),
    ("Pooling", "neutral", 3, _pooling),
    ("Dropout", "neutral", 1.5, _unary(lambda r: {"p": "0.5"})),
    ("BatchNorm", "neutral", 3, _batchnorm),
    ("SliceChannel", "neutral", 2.5, _slicechannel),
    ("_split_v2", "neutral", 0.7, _split_v2),
    ("Embedding", "neutral", 0.7, _embedding),
    ("slice_like", "neutral", 1, _binary),
    ("_contrib_AdaptiveAvgPooling2D", "neutral", 1, _unary(lambda r: {"output_size": "1"})),
    ("broadcast_like", "neutral", 0.5, _binary),
    ("reshape_like", "neutral", 0.5, _binary),
    ("UpSampling", "neutral", 0.5, _unary(lambda r: {"scale": "2", "sample_type": "nearest", "num_args": "1"})),
    ("_contrib_BilinearResize2D", "neutral", 0.3, _unary(lambda r: {"height": "4", "width": "4"})),
    ("sort", "neutral", 0.3, _unary(lambda r: {"axis": "1"})),
    ("argmax", "neutral", 0.3, _unary(lambda r: {"axis": "1"})),
    ("SequenceMask", "neutral", 0.3, _unary()),
    ("Cast", "neutral", 0.3, _unary(lambda r: {"dtype": "float32"})),
    # --- in no list ---
    ("_np_cumsum", "none", 0.5, _unary(lambda r: {"axis": "1"})),
    ("_contrib_round_ste", "none", 0.4, _unary()),
    ("_contrib_sign_ste", "none", 0.4, _unary()),
]

# Aliases written now and then instead of the canonical name (MXNet saves the canonical one).
ALIASES = {"SliceChannel": "split", "Flatten": "flatten", "Concat": "concat", "add_n": "ElementWiseSum",
           "_copy": "identity", "Reshape": "reshape"}

_NAME_PREFIX = {
    "FullyConnected": "fc", "Convolution": "conv", "Deconvolution": "deconv", "BatchNorm": "bn",
    "SliceChannel": "split", "_split_v2": "splitv2", "Activation": "act", "LeakyReLU": "leaky",
    "_contrib_AdaptiveAvgPooling2D": "adaptivepool", "_contrib_BilinearResize2D": "bilinear",
    "elemwise_add": "add", "elemwise_sub": "sub", "elemwise_mul": "mul", "elemwise_div": "div",
    "broadcast_add": "badd", "broadcast_mul": "bmul", "broadcast_sub": "bsub",
    "broadcast_maximum": "bmax", "broadcast_power": "bpow", "_power": "pow", "_maximum": "maximum",
    "_minimum": "minimum", "_plus_scalar": "plusscalar", "_mul_scalar": "mulscalar", "_copy": "copy",
    "_np_cumsum": "cumsum", "_contrib_round_ste": "roundste", "_contrib_sign_ste": "signste",
    "SoftmaxOutput": "softmaxout", "L2Normalization": "l2norm", "InstanceNorm": "instnorm",
}


def _prefix(op):
    return _NAME_PREFIX.get(op, op.lower().lstrip("_"))


class _Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []          # dicts: op, name, attrs, inputs
        self.visible = []        # visible outputs per node
        self.total = []          # total outputs per node
        self.consumers = {}      # (nid, idx) -> count
        self.names = set()
        self.counters = {}
        self.params_by_suffix = {}  # suffix -> [nid]
        self.free_vars = []
        self.data_vars = []

    def unique(self, base):
        n = self.counters.get(base, 0)
        while "%s%d" % (base, n) in self.names:
            n += 1
        self.counters[base] = n + 1
        return "%s%d" % (base, n)

    def add(self, op, name, attrs, inputs, total=1, visible=1):
        nid = len(self.nodes)
        node = {"op": op, "name": name, "inputs": [[a, b, 0] for a, b in inputs]}
        if attrs:
            node["attrs"] = dict(attrs)
        self.nodes.append(node)
        self.names.add(name)
        self.visible.append(visible)
        self.total.append(total)
        for e in inputs:
            self.consumers[tuple(e)] = self.consumers.get(tuple(e), 0) + 1
        return nid

    def var(self, name):
        return self.add("null", name, None, [])

    def entries(self):
        return [(nid, k) for nid in range(len(self.nodes)) for k in range(self.visible[nid])]


_NEEDS_INPUT1_TYPED = {"slice_like", "broadcast_like", "reshape_like", "where"}


def _pick_input(b, recent, pos):
    """An input entry: recent entries (depth), entries that already have consumers (fan-out of
    different kinds), anything earlier, or a (shared) free variable.

    Input 0 is never a free variable: several ops' type inference (RNN, _split_v2 ...) insists that
    input 0's dtype is known in MXNet's forward sweep, so every op's input 0 descends from a data
    variable and the source graph types completely from data=float32 alone."""
    rng = b.rng
    r = rng.random()
    if r < 0.06 and pos > 0:
        if b.free_vars and rng.random() < 0.6:
            return (rng.choice(b.free_vars), 0)
        nid = b.var(b.unique("var"))
        b.free_vars.append(nid)
        return (nid, 0)
    if r < 0.10:
        return (rng.choice(b.data_vars), 0)
    ops = [e for e in b.entries() if b.nodes[e[0]]["op"] != "null"]
    if not ops:
        return (rng.choice(b.data_vars), 0)
    if r < 0.50 and recent:
        return rng.choice(recent[-4:])
    if r < 0.80:
        used = [e for e in ops if b.consumers.get(e)]
        if used:
            return rng.choice(used)
    return rng.choice(ops)


def generate(seed, size, *, aliases=True):
    """One random graph. Returns {"symbol": dict (MXNet symbol JSON), "data_names": [...],
    "excluded_sym_names": [...], "name": str}."""
    rng = random.Random("%s/%s" % (seed, size))
    b = _Builder(rng)
    b.data_vars.append(b.var("data"))
    if rng.random() < 0.15:
        b.data_vars.append(b.var("data1"))
    weights = [s[2] for s in SPECS]
    recent = []
    n_ops = 0
    while n_ops < size:
        op, kind, _, build = rng.choices(SPECS, weights=weights)[0]
        attrs, n_in, params = build(rng)
        name = b.unique(_prefix(op))
        # These ops type their output only when input 1's dtype is known too (MXNet 1.9.1 gives up
        # otherwise), so input 1 must descend from data like input 0.
        typed_inputs = 2 if op in _NEEDS_INPUT1_TYPED else 1
        inputs = [_pick_input(b, recent, 0 if pos < typed_inputs else pos) for pos in range(n_in)]
        for suffix in params:
            shared = b.params_by_suffix.get(suffix, [])
            if shared and rng.random() < 0.08:
                pid = rng.choice(shared)   # e.g. tied weights: one variable, two ops
            else:
                pid = b.var("%s_%s" % (name, suffix))
                b.params_by_suffix.setdefault(suffix, []).append(pid)
            inputs.append((pid, 0))
        total, visible = _outputs(op, attrs)
        write_op = op
        if aliases and op in ALIASES and rng.random() < 0.1:
            write_op = ALIASES[op]
        nid = b.add(write_op, name, attrs, inputs, total, visible)
        n_ops += 1
        for k in range(visible):
            recent.append((nid, k))
        # Multi-output ops: make sure later ops see their other outputs too.
        if visible > 1:
            rng.shuffle(recent[-visible:])

    # Heads: every op entry nobody consumes (sinks), plus a few extra intermediate entries.
    op_entries = [e for e in b.entries() if b.nodes[e[0]]["op"] != "null"]
    heads = [e for e in op_entries if not b.consumers.get(e)]
    # A multi-output op with only some outputs consumed: its unconsumed visible outputs are heads
    # (above); a fully consumed graph still needs one head.
    if not heads:
        heads = [op_entries[-1]]
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        e = rng.choice(op_entries)
        if e not in heads:
            heads.append(e)
    if rng.random() < 0.03:
        heads.append((rng.choice(b.data_vars + b.free_vars), 0))
    if rng.random() < 0.03:
        heads.append(rng.choice(heads))
    rng.shuffle(heads)
    # Unconsumed variables (a param of an op is always consumed; data1 may not be): drop them by
    # consuming them nowhere - MXNet would drop them anyway when loading, so keep the graph closed.
    symbol = _finish(b, heads)

    # excluded_sym_names: 0..4 op names, rarely a variable name.
    op_names = [n["name"] for n in symbol["nodes"] if n["op"] != "null"]
    var_names = [n["name"] for n in symbol["nodes"] if n["op"] == "null"]
    excluded = []
    k = rng.choice([0, 0, 1, 2, 3, 4])
    if size >= 100:
        k = rng.choice([0, 1, 3, 6, 10])
    excluded += rng.sample(op_names, min(k, len(op_names)))
    if rng.random() < 0.1:
        excluded.append(rng.choice(var_names))
    if rng.random() < 0.05:
        excluded.append("no_such_node")
    data_names = [symbol["nodes"][i]["name"] for i in symbol["arg_nodes"]
                  if symbol["nodes"][i]["name"] in ("data", "data1")]
    return {"symbol": symbol, "data_names": data_names or ["data"], "excluded_sym_names": excluded,
            "name": "dag-s%s-n%d" % (seed, size)}


def _finish(b, heads):
    """Keeps the nodes reachable from the heads (in generation order) and writes the JSON dict."""
    reach = set()
    stack = [h[0] for h in heads]
    while stack:
        nid = stack.pop()
        if nid in reach:
            continue
        reach.add(nid)
        for e in b.nodes[nid]["inputs"]:
            stack.append(e[0])
    order = [nid for nid in range(len(b.nodes)) if nid in reach]
    return build_symbol([b.nodes[i] for i in order], [b.total[i] for i in order], order, heads)


def build_symbol(nodes, totals, order, heads):
    """nodes: node dicts whose inputs use old ids; order: old id of each node. Returns a symbol dict."""
    remap = {old: new for new, old in enumerate(order)}
    out_nodes = []
    for node in nodes:
        n = {"op": node["op"], "name": node["name"]}
        if node.get("attrs"):
            n["attrs"] = dict(node["attrs"])
        n["inputs"] = [[remap[e[0]], e[1], 0] for e in node["inputs"]]
        out_nodes.append(n)
    row = [0]
    for t in totals:
        row.append(row[-1] + t)
    return {
        "nodes": out_nodes,
        "arg_nodes": [i for i, n in enumerate(out_nodes) if n["op"] == "null"],
        "node_row_ptr": row,
        "heads": [[remap[h[0]], h[1], 0] for h in heads],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }


def node_outputs(node):
    """(total, visible) outputs of a node dict of a symbol JSON (variables: 1, 1)."""
    if node["op"] == "null":
        return 1, 1
    op = {v: k for k, v in ALIASES.items()}.get(node["op"], node["op"])
    return _outputs(op, node.get("attrs", {}))


def dumps(symbol):
    """Symbol JSON text in MXNet's layout (2-space indent)."""
    return json.dumps(symbol, indent=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    for i in range(args.count):
        g = generate(args.seed * 1000003 + i, args.size)
        path = os.path.join(args.out, g["name"] + "-symbol.json")
        with open(path, "w") as f:
            f.write(dumps(g["symbol"]))
        manifest.append({"symbol": path, "data_names": g["data_names"],
                         "excluded_sym_names": g["excluded_sym_names"]})
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("wrote %d graphs to %s" % (args.count, args.out))


if __name__ == "__main__":
    main()
