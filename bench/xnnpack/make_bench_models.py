#!/usr/bin/python3
"""Writes the XNNPACK benchmark's large models as .pt2 archives, with the zoo's
torch 1.13 exporter (test/models/gen_zoo.py), into OUT/<name>/:

  resnet18          ResNet-18 (torchvision's layout, 11.7 M parameters), 1x3x224x224
  mobilenet_v2      MobileNet-V2 (torchvision's layout, 3.5 M parameters), 1x3x224x224
  heavy_ten_calls   a step of two Linear(1024, 1024) + ReLU (8 MiB of weights)
                    called ten times on a [4, 1024] input (lower once, call many)
  heavy_two_methods prefill ([1, 32, 1024]) and decode ([1, 1, 1024]) of one
                    model: Linear(1024, 2048), ReLU, Linear(2048, 1024) (16 MiB)

Weights are random (fixed seeds); the architectures are what matters for the
run time. Needs Debian's python3-torch (torch 1.13); bench/xnnpack_bench.py
runs it when a model is missing.

Usage: /usr/bin/python3 bench/xnnpack/make_bench_models.py OUT [--only NAME ...]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import gen_zoo  # noqa: E402
from zoo_models import ZooEntry, _build, _inputs  # noqa: E402


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + (self.down(x) if self.down is not None else x))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(3, 2, 1)
        layers, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.gap(self.layers(x))
        return self.fc(torch.flatten(x, 1))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = []
        if expand != 1:
            layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
        layers += [nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
                   nn.BatchNorm2d(hidden), nn.ReLU6(),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


class MobileNetV2(nn.Module):
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()]
        cin = 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6()]
        self.features = nn.Sequential(*layers)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(1280, classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.gap(self.features(x)), 1))


class HeavyStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1024, 1024)
        self.b = nn.Linear(1024, 1024)

    def forward(self, x):
        return torch.relu(self.b(torch.relu(self.a(x)))) * 0.5


class HeavyTenCalls(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = HeavyStep()

    def forward(self, x):
        for _ in range(10):
            x = self.step(x)
        return x


class HeavyTwoMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(1024, 2048)
        self.down = nn.Linear(2048, 1024)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def entries():
    return [
        ZooEntry("resnet18", lambda: _build(ResNet18, 201, bn=True),
                 [("forward", "model", ["x"], _inputs(301, (1, 3, 224, 224)))], "ResNet-18"),
        ZooEntry("mobilenet_v2", lambda: _build(MobileNetV2, 202, bn=True),
                 [("forward", "model", ["x"], _inputs(302, (1, 3, 224, 224)))], "MobileNet-V2"),
        ZooEntry("heavy_ten_calls", lambda: _build(HeavyTenCalls, 203),
                 [("forward", "model", ["x"], _inputs(303, (4, 1024)))], "10 x 8 MiB step"),
        ZooEntry("heavy_two_methods", lambda: _build(HeavyTwoMethods, 204),
                 [("prefill", "prefill", ["x"], _inputs(304, (1, 32, 1024))),
                  ("decode", "decode", ["x"], _inputs(305, (1, 1, 1024)))],
                 "prefill/decode over 16 MiB of weights"),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for entry in entries():
        if args.only and entry.name not in args.only:
            continue
        files = gen_zoo.generate_entry(entry)
        d = os.path.join(args.out, entry.name)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%-18s %d files" % (entry.name, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
