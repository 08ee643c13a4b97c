#!/usr/bin/env python3
"""ampstudio-cli's ONNX runner against ONNX Runtime on the models people export.

Developer tool (not CI; the product never needs Python). It exports, with random weights and a fixed
seed, the models of the ONNX execution issue: torchvision's ResNet-50, MobileNetV3-Large,
EfficientNet-B0, ConvNeXt-Tiny, DeepLabV3-ResNet50 and ViT-B/16, Hugging Face BERT-base and GPT-2
(transformers, random configs of the real sizes) and a 2-layer torch.nn.LSTM, at opset 17 with
dynamic batch (and sequence) axes. For each model it then

  1. writes seeded inputs (X.npz) and runs ONNX Runtime's CPUExecutionProvider on them;
  2. runs `ampstudio-cli run MODEL --inputs X.npz --outputs Y.npz` and compares every output:
     max |ours - ort| / max |ort| must be below --tolerance (1e-4);
  3. converts the model to float16 and bfloat16 (`ampstudio-cli convert`) and runs the conversions
     (`ampstudio-cli compare`: they must run, and their error is reported).

Set up once (PyPI; about 3 GB with torch's CUDA wheels, which are not used):
    python3 -m venv tests/differential/.venv-torch
    tests/differential/.venv-torch/bin/pip install torch torchvision transformers onnx onnxruntime onnxscript numpy
Run:
    tests/differential/.venv-torch/bin/python tests/differential/onnx_execution_check.py \
        [--models resnet50,bert] [--work DIR] [--cli build-cpu/app/ampstudio-cli] [--batch 2]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def export(name, path, batch):
    """Exports `name` to `path` (opset 17, dynamic batch/sequence); returns its inputs as numpy."""
    import torch

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    image = lambda size=224: rng.random((batch, 3, size, size), dtype=np.float32)
    axes = {"input": {0: "batch"}}
    if name in ("resnet50", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny", "vit_b_16", "deeplabv3_resnet50"):
        import torchvision

        if name == "deeplabv3_resnet50":
            model = torchvision.models.segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, aux_loss=False)
            model = Unwrap(model)
            x = image(224)
        else:
            model = getattr(torchvision.models, name)(weights=None)
            if name == "vit_b_16":  # torchvision zero-initialises ViT's head: its output would be all 0
                torch.nn.init.normal_(model.heads.head.weight, std=0.02)
            x = image()
        model.eval()
        torch.onnx.export(model, (torch.from_numpy(x),), path, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, opset_version=17, dynamo=False)
        return {"input": x}
    if name in ("bert", "gpt2"):
        import transformers

        seq = 16
        if name == "bert":
            config = transformers.BertConfig()  # bert-base: 12 layers, 768 hidden
            model = transformers.BertModel(config)
        else:
            config = transformers.GPT2Config()  # gpt2 (small): 12 layers, 768 hidden
            config.use_cache = False
            model = transformers.GPT2Model(config)
        model.eval()
        ids = rng.integers(0, config.vocab_size, size=(batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        mask[0, seq - 3:] = 0  # a padded sequence: the attention mask matters
        dyn = {0: "batch", 1: "sequence"}
        torch.onnx.export(Outputs(model), (torch.from_numpy(ids), torch.from_numpy(mask)), path,
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": dyn, "attention_mask": dyn, "last_hidden_state": dyn},
                          opset_version=17, dynamo=False)
        return {"input_ids": ids, "attention_mask": mask}
    if name == "lstm":
        model = torch.nn.LSTM(input_size=32, hidden_size=64, num_layers=2, batch_first=False)
        model.eval()
        x = rng.standard_normal((10, batch, 32), dtype=np.float32)
        torch.onnx.export(model, (torch.from_numpy(x),), path, input_names=["input"], output_names=["output", "h", "c"],
                          dynamic_axes={"input": {0: "sequence", 1: "batch"}, "output": {0: "sequence", 1: "batch"}},
                          opset_version=17, dynamo=False)
        return {"input": x}
    raise SystemExit("unknown model " + name)


try:
    import torch

    class Unwrap(torch.nn.Module):
        """torchvision's segmentation models return a dict: the 'out' tensor."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    class Outputs(torch.nn.Module):
        """A transformers model's last_hidden_state only."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, ids, mask):
            return self.model(input_ids=ids, attention_mask=mask).last_hidden_state
except ImportError:  # the script's usage text still prints
    pass

MODELS = ["resnet50", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny", "deeplabv3_resnet50", "vit_b_16",
          "bert", "gpt2", "lstm"]


def relative(ours, ref):
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    diff = float(np.max(np.abs(ours.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
    return diff / scale if scale > 0 else diff


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--work", default="/tmp/ams-onnx-models")
    p.add_argument("--cli", default=os.path.join(REPO, "build-cpu", "app", "ampstudio-cli"))
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--no-convert", action="store_true", help="skip the float16 / bfloat16 conversions")
    p.add_argument("--json", help="write the results here")
    args = p.parse_args()
    import onnxruntime as ort

    os.makedirs(args.work, exist_ok=True)
    results, failed = [], 0
    for name in args.models.split(","):
        path = os.path.join(args.work, name + ".onnx")
        inputs_file = os.path.join(args.work, name + "-inputs.npz")
        row = {"model": name}
        t = time.time()
        inputs = export(name, path, args.batch)
        np.savez(inputs_file, **inputs)
        row["export_s"] = round(time.time() - t, 1)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        reference = session.run(None, inputs)
        out_file = os.path.join(args.work, name + "-ours.npz")
        run = subprocess.run([args.cli, "run", path, "--inputs", inputs_file, "--outputs", out_file],
                             capture_output=True, text=True)
        if run.returncode != 0:
            row["status"] = "run failed: " + run.stderr.strip().splitlines()[-1]
            failed += 1
        else:
            ours = np.load(out_file)
            names = [o.name for o in session.get_outputs()]
            errors = {n: relative(ours[n], r) for n, r in zip(names, reference)}
            row["max_rel_error"] = max(errors.values())
            row["status"] = "ok" if row["max_rel_error"] <= args.tolerance else "differs"
            failed += row["status"] != "ok"
        if not args.no_convert:
            for dtype in ("float16", "bfloat16"):
                prefix = os.path.join(args.work, name + "-" + dtype)
                conv = subprocess.run([args.cli, "convert", path, "--target-dtype", dtype, "--output", prefix],
                                      capture_output=True, text=True)
                if conv.returncode != 0:
                    row[dtype] = "convert failed: " + conv.stderr.strip().splitlines()[-1]
                    failed += 1
                    continue
                report = prefix + "-compare.json"
                cmp = subprocess.run([args.cli, "compare", path, prefix + ".onnx", "--inputs", inputs_file, "--report", report],
                                     capture_output=True, text=True)
                if cmp.returncode != 0:
                    row[dtype] = "compare failed: " + cmp.stderr.strip().splitlines()[-1]
                    failed += 1
                    continue
                outs = json.load(open(report))["outputs"]
                row[dtype] = "max rel %.3g, cosine %.6f" % (max(o["max_rel_error"] or 0 for o in outs),
                                                           min(o["cosine"] if o["cosine"] is not None else 0 for o in outs))
                # The converted model in ONNX Runtime too: our run of it against ORT's, relative to
                # the float32 reference's scale (ORT's CPU kernels round float16 differently in places).
                ours_file = prefix + "-ours.npz"
                mine = subprocess.run([args.cli, "run", prefix + ".onnx", "--inputs", inputs_file, "--outputs", ours_file],
                                      capture_output=True, text=True)
                try:
                    theirs = ort.InferenceSession(prefix + ".onnx", providers=["CPUExecutionProvider"]).run(None, inputs)
                except Exception as e:  # ORT has no kernel for some bfloat16 ops
                    row[dtype] += "; ORT cannot run it (%s)" % str(e).splitlines()[0][:80]
                    continue
                if mine.returncode == 0:
                    ours = np.load(ours_file)
                    names = [o.name for o in session.get_outputs()]
                    gap = max(float(np.max(np.abs(ours[n].astype(np.float64) - t.astype(np.float64)))) /
                              max(float(np.max(np.abs(r))), 1e-30) for n, t, r in zip(names, theirs, reference))
                    row[dtype] += "; ours vs ORT's run of it %.3g" % gap
        print(json.dumps(row), flush=True)
        results.append(row)
    if args.json:
        json.dump(results, open(args.json, "w"), indent=2)
    print("%d of %d models within %g of ONNX Runtime%s" % (
        sum(r.get("status") == "ok" for r in results), len(results), args.tolerance,
        "" if failed == 0 else "; %d failures" % failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
