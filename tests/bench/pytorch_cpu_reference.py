#!/usr/bin/env python3
"""PyTorch's CPU training step time for bench_training's models, at matched settings, on request.

Tooling, not product: bench_training starts this script (with the python of
tests/differential/.venv-torch, when there is one) and sends one line per measurement,
"MODEL MODE STEPS"; each is answered with the median milliseconds of STEPS steps after 3 warm-up
steps, so that ours and PyTorch's rounds interleave on the same machine state.

Matched settings (bench_training.cpp, tests/bench/training_models.cpp): the MLP 784-1024-1024-10 at
batch 256 and the small CNN (two blocks of conv 3x3 pad 1 + BatchNorm + relu + max-pool 2, 32 and 64
channels, FC head) at batch 64 on 28x28 inputs; softmax cross-entropy; SGD with momentum 0.9 and
lr 0.01; random pixels and labels (throughput does not depend on the data); PyTorch's default
threads (the cores). Modes: fp32 as is; amp and fp16-master are CPU autocast to float16 with a
GradScaler whose scale stays fixed at 1024 (our static:1024); bf16 and bf16-master are CPU autocast
to bfloat16 (PyTorch has no master-weight mode of its own: autocast is what its users run).

A CPU wheel is enough: tests/differential/.venv-torch may hold the CUDA one, which runs on the CPU
too.
    python3 tests/bench/pytorch_cpu_reference.py      (then lines on stdin: "mlp bf16 20")
"""
import statistics
import sys
import time

import torch
from torch import nn


def mlp():
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def cnn():
    layers, channels = [], 1
    for out in (32, 64):
        layers += [nn.Conv2d(channels, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU(), nn.MaxPool2d(2, 2)]
        channels = out
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


MODELS = {"mlp": (mlp, 256, (784,)), "cnn": (cnn, 64, (1, 28, 28))}
DTYPES = {"fp32": None, "amp": torch.float16, "fp16-master": torch.float16, "bf16": torch.bfloat16,
          "bf16-master": torch.bfloat16}


def step_ms(name, mode, steps, warmup=3):
    make, batch, shape = MODELS[name]
    torch.manual_seed(0)
    model = make()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.rand((batch,) + shape)
    y = torch.randint(0, 10, (batch,))
    dtype = DTYPES[mode]
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=1 << 30, enabled=dtype == torch.float16)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


print("ready torch %s (%d threads)" % (torch.__version__, torch.get_num_threads()), flush=True)
for line in sys.stdin:
    fields = line.split()
    try:
        print("%.4f" % step_ms(fields[0], fields[1], int(fields[2])), flush=True)
    except Exception as e:  # noqa: BLE001 (an unknown model or mode answers -1, the bench goes on)
        print("-1  # %s" % e, flush=True)
