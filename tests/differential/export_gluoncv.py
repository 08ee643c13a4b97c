"""Exports GluonCV model-zoo networks with random weights as MXNet symbol files (developer tool, not
CI). Used for tests/bench/fixtures/gluoncv-resnet50_v1b-symbol.json (the precision search
benchmark) and for the differential runs on SE-ResNeXt, SENet-154 and Mask R-CNN.

    tests/differential/.venv-mxnet191/bin/pip install gluoncv==0.11.0 "numpy<1.24" "scipy<1.11" \\
        "pandas<2.1" "matplotlib<3.8" "contourpy<1.2"
    tests/differential/.venv-mxnet191/bin/python tests/differential/export_gluoncv.py OUTDIR \\
        resnet50_v1b se_resnext50_32x4d senet_154 mask_rcnn_resnet18_v1b_coco

Writes OUTDIR/NAME-symbol.json (and NAME-0000.params, which the benchmark does not need).
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import mxnet as mx  # noqa: E402
from gluoncv import model_zoo  # noqa: E402


def main():
    out, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for name in names:
        kw = dict(pretrained_base=False) if "rcnn" in name else {}
        net = model_zoo.get_model(name, pretrained=False, **kw)
        net.initialize()
        net.hybridize()
        shape = (1, 3, 512, 512) if "rcnn" in name else (1, 3, 224, 224)
        net(mx.nd.zeros(shape))
        net.export(os.path.join(out, name), 0)
        print("exported", name)


if __name__ == "__main__":
    main()
