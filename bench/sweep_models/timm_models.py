"""timm architectures: a small member of every timm model module (family), and a second
one from the large families. Chosen once by name (the smallest variant whose name
says tiny/small/nano/...), then edited by hand to drop members far too large for this
sweep (hundreds of millions of parameters, 331-pixel NASNets) and inputs other than
one image (naflexvit's patch dictionaries)."""
from . import Built, Model

NAMES = [
    # one per timm module
    "beit_base_patch16_224", "halonet26t", "gernet_s", "cait_xxs24_224", "coat_tiny",
    "convit_tiny", "convmixer_768_32", "convnext_pico", "cpubone_nano", "crossvit_tiny_240",
    "csatv2", "cs3darknet_s", "cspnext_tiny", "davit_tiny", "deit_tiny_patch16_224",
    "densenet121", "dla34", "dpn68", "edgenext_small", "efficientformer_l1",
    "efficientformerv2_s0", "tinynet_a", "efficientvim_m1", "efficientvit_b0",
    "efficientvit_m0", "eva02_tiny_patch14_224", "fasternet_s", "fastvit_s12",
    "focalnet_tiny_lrf", "gcvit_tiny", "ghostnet_050", "hardcorenas_b", "hgnet_tiny",
    "hiera_tiny_224", "hieradet_small", "hrnet_w18_small", "iformer_s", "inception_next_atto",
    "inception_resnet_v2", "inception_v3", "inception_v4", "lcnetv2_small", "levit_128",
    "lowformer_b0", "mambaout_femto", "maxvit_pico_rw_256", "caformer_s18", "gmlp_s16_224",
    "tf_mobilenetv3_small_minimal_100", "mobilevit_xxs", "mvitv2_tiny", "nest_tiny",
    "nextvit_small", "nf_seresnet26", "pit_xs_224", "pvt_v2_b0", "qwen3_vit_88m", "rdnet_tiny",
    "regnetx_002", "repghostnet_050", "repvit_m1_0", "res2net50_26w_4s", "resnest26d",
    "resnet18", "resnetv2_18", "rexnet_100", "selecsls42", "legacy_seresnet18",
    "sequencer2d_s", "shvit_s1", "skresnet18", "starnet_s1", "swiftformer_xs",
    "swin_s3_tiny_224", "swinv2_tiny_window8_256", "swinv2_cr_tiny_224", "tiny_vit_5m_224",
    "tnt_s_patch16_224", "tresnet_m", "twins_svt_small", "vgg11_bn", "visformer_tiny",
    "vit_tiny_patch16_224", "vit_tiny_r_s16_p8_224", "vit_relpos_small_patch16_224",
    "vitamin_small_224", "volo_d1_224", "ese_vovnet19b_slim", "legacy_xception",
    "xception41", "xcit_nano_12_p8_224", "mobilenetv5_300m",
    # a second member of the large families
    "resnet10t", "resnet50d", "seresnext26d_32x4d", "ecaresnet26t", "efficientnet_b0",
    "mobilenetv2_050", "mixnet_s", "tf_efficientnetv2_b0", "mobilenetv3_large_100",
    "lcnet_050", "convnext_atto", "vit_small_patch16_224", "deit3_small_patch16_224",
    "repvgg_a0", "mobileone_s0", "resnet26t", "regnety_002", "fbnetv3_b", "poolformer_s12",
    "nf_resnet26", "edgenext_xx_small", "efficientvit_b1", "coatnet_nano_rw_224",
    "swin_tiny_patch4_window7_224", "mixer_s32_224", "resmlp_12_224", "dm_nfnet_f0",
]
SIZES = (64, 96, 128, 224, 256)


def _build(name):
    def build():
        import timm
        import torch
        torch.manual_seed(0)
        last = None
        for s in SIZES:
            # Models with a fixed image size take img_size; the others any size.
            for kw in ({"img_size": s}, {}):
                try:
                    torch.manual_seed(0)
                    m = timm.create_model(name, pretrained=False, **kw).eval()
                    torch.manual_seed(1)
                    x = torch.randn(1, 3, s, s)
                    with torch.no_grad():
                        m(x)
                    return Built(m, [((x,), {})], note=f"{s}x{s}")
                except Exception as e:  # too small for this model: a larger size
                    last = e
        raise last
    return build


def models():
    return [Model("timm/" + n, _build(n)) for n in NAMES]
