#!/usr/bin/env python3
"""Writes the bundled example models with real MXNet 1.9.1 (not needed to build or run AMP Studio).

    python3 -m venv /tmp/mxvenv && /tmp/mxvenv/bin/pip install numpy==1.23.5 mxnet==1.9.1
    /tmp/mxvenv/bin/python resources/examples/generate_examples.py

Outputs, next to this script:
  proposal-example1-symbol.json  the AMP proposal's first graph: cos, sin, exp, sqrt of data, summed
                                 left to right
  proposal-example2-symbol.json  the proposal's second graph: (exp + sin) + cos, then add_n with
                                 data2, data3
  small-cnn-symbol.json          a LeNet-like CNN for 1x28x28 inputs (Fashion-MNIST), and its
  small-cnn-0000.params          Xavier-initialised parameters (fixed seed), as Module.save_checkpoint
                                 writes them

Node names are given explicitly, so the files do not depend on MXNet's NameManager counters; they match
proposalExample1() / proposalExample2() in tests/engine/test_amp_conversion.cpp node for node. Running the
script twice writes identical bytes.
"""
import os

import mxnet as mx
import numpy as np

assert mx.__version__ == "1.9.1", "the examples are MXNet 1.9.1 files; found MXNet " + mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20190601


def out(name):
    return os.path.join(HERE, name)


def proposal_example1():
    data = mx.sym.var("data")
    c = mx.sym.cos(data, name="cos0")
    s = mx.sym.sin(data, name="sin0")
    p0 = mx.sym.elemwise_add(c, s, name="_plus0")  # what `c + s` writes: op elemwise_add, name _plus0
    e = mx.sym.exp(data, name="exp0")
    p1 = mx.sym.elemwise_add(p0, e, name="_plus1")
    q = mx.sym.sqrt(data, name="sqrt0")
    return mx.sym.elemwise_add(p1, q, name="_plus2")


def proposal_example2():
    data = mx.sym.var("data")
    e = mx.sym.exp(data, name="exp0")
    s = mx.sym.sin(data, name="sin0")
    p0 = mx.sym.elemwise_add(e, s, name="_plus0")
    c = mx.sym.cos(data, name="cos0")
    p1 = mx.sym.elemwise_add(p0, c, name="_plus1")
    return mx.sym.add_n(p1, mx.sym.var("data2"), mx.sym.var("data3"), name="add_n0")


def small_cnn():
    # LeNet (LeCun et al. 1998) as MXNet's image-classification example builds it, with BatchNorm.
    x = mx.sym.var("data")
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=20, name="conv1")
    x = mx.sym.BatchNorm(x, name="bn1")
    x = mx.sym.Activation(x, act_type="relu", name="relu1")
    x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool1")
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=50, name="conv2")
    x = mx.sym.BatchNorm(x, name="bn2")
    x = mx.sym.Activation(x, act_type="relu", name="relu2")
    x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool2")
    x = mx.sym.Flatten(x, name="flatten")
    x = mx.sym.FullyConnected(x, num_hidden=500, name="fc1")
    x = mx.sym.Activation(x, act_type="relu", name="relu3")
    x = mx.sym.FullyConnected(x, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def main():
    proposal_example1().save(out("proposal-example1-symbol.json"))
    proposal_example2().save(out("proposal-example2-symbol.json"))

    mx.random.seed(SEED)
    np.random.seed(SEED)
    mod = mx.mod.Module(small_cnn(), data_names=["data"], label_names=["softmax_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", (1, 1, 28, 28))], label_shapes=[("softmax_label", (1,))],
             for_training=False)
    # Xavier for weights; the initializer gives biases and beta 0, gamma and moving_var 1, moving_mean 0.
    mod.init_params(initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    mod.save_checkpoint(out("small-cnn"), 0)  # small-cnn-symbol.json + small-cnn-0000.params (arg:/aux:)

    for name in ["proposal-example1-symbol.json", "proposal-example2-symbol.json", "small-cnn-symbol.json",
                 "small-cnn-0000.params"]:
        print("%-32s %9d bytes" % (name, os.path.getsize(out(name))))


if __name__ == "__main__":
    main()
