#!/usr/bin/env python3
"""PyTorch's training throughput for the models bench_cuda trains, at matched settings.

The issue's comparison: our CUDA engine's samples/s against PyTorch on the same GPU. This script is
tooling, not part of the product or its tests: it runs only where PyTorch is installed (the GPU
machine's image has it), and scripts/gpu-check.sh runs it after bench_cuda so both figures come from
one machine state.

Matched settings (bench_cuda.cpp): the MLP 784-4096-4096-10 at batch 256 and 1024, and the small CNN
(two blocks of conv 3x3 pad 1 + BatchNorm + relu + max-pool 2, 32 and 64 channels, FC head) at
batch 256 on 28x28 inputs; softmax cross-entropy; SGD with momentum 0.9 and lr 0.01; TF32 off;
random pixels and labels already on the device (throughput does not depend on the data); amp is
autocast to float16 with a GradScaler whose scale stays fixed (growth_interval past the run), bf16
is autocast to bfloat16 without scaling. Each figure is the median over timed windows of 20 steps
after 5 warm-up steps, timed with CUDA events.

    python3 tests/bench/pytorch_reference.py [--models mlp256,mlp1024,cnn] [--modes fp32,amp,bf16]
"""
import argparse
import statistics

import torch
from torch import nn


def mlp():
    return nn.Sequential(nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))


def cnn():
    layers, channels = [], 1
    for out in (32, 64):
        layers += [nn.Conv2d(channels, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU(), nn.MaxPool2d(2, 2)]
        channels = out
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


MODELS = {"mlp256": (mlp, 256, (784,)), "mlp1024": (mlp, 1024, (784,)), "cnn": (cnn, 256, (1, 28, 28))}


def throughput(name, mode, windows=5, steps=20, warmup=5):
    make, batch, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.rand((batch,) + shape, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    dtype = {"fp32": None, "amp": torch.float16, "bf16": torch.bfloat16}[mode]
    scaler = torch.amp.GradScaler("cuda", init_scale=1024.0, growth_interval=1 << 30, enabled=mode == "amp")

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    for _ in range(warmup):
        step()
    rates = []
    for _ in range(windows):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(steps):
            step()
        end.record()
        end.synchronize()
        rates.append(batch * steps / (start.elapsed_time(end) * 1e-3))
    return statistics.median(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp256,mlp1024,cnn")
    parser.add_argument("--modes", default="fp32,amp,bf16")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    print(f"# pytorch {torch.__version__} on {torch.cuda.get_device_name()}; medians of 5 windows of 20 steps")
    print(f"# {'model':<8} {'mode':<6} {'samples/s':>12} {'vs_fp32':>8}")
    for name in args.models.split(","):
        fp32 = None
        for mode in args.modes.split(","):
            rate = throughput(name, mode)
            fp32 = rate if mode == "fp32" else fp32
            ratio = f"{rate / fp32:.2f}x" if fp32 else "-"
            print(f"  {name:<8} {mode:<6} {rate:12.0f} {ratio:>8}")


if __name__ == "__main__":
    main()
