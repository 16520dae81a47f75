"""Ops legalized before the training-IR coverage work: the harness's own check."""
import torch

from op_cases import Case


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.nn.functional.silu(self.fc(x))


class Dropout(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.dropout(x, 0.5, training=True)


CASES = [
    Case("linear_silu", Linear, lambda: (torch.randn(3, 8),)),
    Case("dropout_train_refused", Dropout, lambda: (torch.randn(3, 8),),
         refused=r"dropout.*training mode"),
]
