"""Every torchvision classification model, and its segmentation and detection models."""
from . import Built, Model, OutputsAsTuple

SIZE = 64
# Models that need another input size, or constructor arguments for a small one.
SIZES = {"inception_v3": 96, "googlenet": 64}
KWARGS = {
    "inception_v3": {"aux_logits": False, "init_weights": True},
    "googlenet": {"aux_logits": False, "init_weights": True},
    "vit_b_16": {"image_size": 64}, "vit_b_32": {"image_size": 64},
    "vit_l_16": {"image_size": 64}, "vit_l_32": {"image_size": 64},
    "vit_h_14": {"image_size": 70},
}
# maxvit_t partitions by 7 after a 32x downsampling: 224 is its smallest size.
SIZES.update({"vit_h_14": 70, "maxvit_t": 224})
# Millions of parameters of the largest ones (skipped above --max-params).
PARAMS = {"vit_h_14": 632, "regnet_y_128gf": 645, "vit_l_16": 304, "vit_l_32": 306,
          "convnext_large": 198, "regnet_y_32gf": 145, "vgg19_bn": 144, "vgg19": 144,
          "vgg16_bn": 138, "vgg16": 138, "vgg13": 133, "vgg13_bn": 133, "vgg11": 133,
          "vgg11_bn": 133, "wide_resnet101_2": 127, "efficientnet_v2_l": 118}


def _classifier(name):
    def build():
        import torch
        import torchvision
        torch.manual_seed(0)
        m = torchvision.models.get_model(name, weights=None, **KWARGS.get(name, {})).eval()
        s = SIZES.get(name, SIZE)
        torch.manual_seed(1)
        return Built(m, [((torch.randn(1, 3, s, s),), {})])
    return build


def _segmentation(name):
    def build():
        import torch
        import torchvision
        torch.manual_seed(0)
        kw = {"weights": None, "weights_backbone": None}
        if not name.startswith("lraspp"):
            kw["aux_loss"] = False
        m = torchvision.models.get_model(name, **kw).eval()
        torch.manual_seed(1)
        return Built(OutputsAsTuple.wrap(m), [((torch.randn(1, 3, SIZE, SIZE),), {})])
    return build


def _detection(name):
    def build():
        import torch
        import torchvision
        torch.manual_seed(0)
        kw = {"weights": None, "weights_backbone": None}
        if "rcnn" in name or "retinanet" in name or "fcos" in name:
            kw.update(min_size=SIZE, max_size=SIZE)
        det = torchvision.models.get_model(name, **kw).eval()

        class Detect(torch.nn.Module):
            """The documented call: a list of images in, a list of dicts out."""

            def __init__(self):
                super().__init__()
                self.det = det

            def forward(self, x):
                return self.det([x[0]])

        torch.manual_seed(1)
        return Built(OutputsAsTuple.wrap(Detect()), [((torch.rand(1, 3, SIZE, SIZE),), {})])
    return build


def models():
    import torchvision
    tvm = torchvision.models
    out = [Model("tv/" + n, _classifier(n), PARAMS.get(n, 0))
           for n in tvm.list_models(module=tvm)]
    out += [Model("tv-seg/" + n, _segmentation(n))
            for n in tvm.list_models(module=tvm.segmentation)]
    out += [Model("tv-det/" + n, _detection(n))
            for n in tvm.list_models(module=tvm.detection)]
    return out
