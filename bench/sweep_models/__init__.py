"""The models of bench/model_sweep.py: torchvision, timm and Hugging Face, random init.

Each entry is a `Model`: an id ("tv/resnet18", "timm/convnext_pico", "hf/llama",
"hf/llama-kv") and a build() that returns a `Built`: the module to export (eval
mode), its calls (positional and keyword tensors of each call; a program with state,
a static KV cache, has several calls whose state carries over) and how to export it.
Nothing is downloaded: every model is made from its architecture with random
weights (seeded), at small input sizes so that the whole sweep runs on two cores.
"""
import dataclasses
import typing


@dataclasses.dataclass
class Built:
    module: typing.Any
    calls: list  # [(args tuple, kwargs dict)], tensors only
    strict: bool = False  # torch.export.export(strict=...)
    note: str = ""


@dataclasses.dataclass
class Model:
    id: str
    build: typing.Callable[[], Built]
    params_hint: int = 0  # millions, where known before building (big models skipped)


class OutputsAsTuple:
    """Wraps a module so that it returns the tensors of its output as a flat tuple
    (Hugging Face ModelOutput, torchvision's dicts): the same graph, outputs in order."""

    @staticmethod
    def wrap(inner):
        import torch
        from sweep.compare import tensor_leaves

        class Flat(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, *args, **kwargs):
                return tuple(tensor_leaves(self.inner(*args, **kwargs)))

        return Flat().eval()


def all_models():
    from . import hf_models, timm_models, torchvision_models
    return torchvision_models.models() + timm_models.models() + hf_models.models()
