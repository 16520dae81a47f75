"""CNN blocks whose XNNPACK lowering once went wrong (random_cnn.py found them).

Each runs on portable and --backend xnnpack, on pte-run and upstream's runtime.
"""
import torch
import torch.nn.functional as F

from op_cases import Case


class Gate(torch.nn.Module):
    """Squeeze-excite's gate: x * sigmoid(mean over H, W). With a batch of 2,
    upstream's runtime refused our blob ("propagating input shapes failed")
    while the global pooling node lacked the keep-dims flag: it then pooled
    [N, H, W, C] to [N, C], which does not broadcast against x."""

    def __init__(self, conv):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 8, 1) if conv else None

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        if self.conv is not None:
            s = self.conv(F.relu(s))
        return x * torch.sigmoid(s)


class BatchNormAlone(torch.nn.Module):
    """A batch norm with no convolution to fold into (a 1x1 depthwise node)."""

    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(6)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-1, 1)
            self.bn.running_var.uniform_(0.5, 2)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return F.relu(self.bn(x) + x)


CASES = [
    Case("gate_batch2", lambda: Gate(False), lambda: (torch.randn(2, 8, 5, 3),)),
    Case("squeeze_excite_batch2", lambda: Gate(True), lambda: (torch.randn(2, 8, 5, 3),)),
    Case("squeeze_excite_batch1", lambda: Gate(True), lambda: (torch.randn(1, 8, 5, 3),)),
    Case("batch_norm_alone_batch2", BatchNormAlone, lambda: (torch.randn(2, 6, 4, 4),)),
]
