"""Hugging Face families at small configs (random init, nothing downloaded).

Decoder LLMs come twice: "hf/<family>" is one forward over 8 tokens without a cache
(use_cache=False, the logits), and "hf/<family>-kv" is the export path transformers
documents for ExecuTorch: TorchExportableModuleWithStaticCache (a StaticCache whose
tensors are buffers mutated in place) exported with input_ids and cache_position,
called three times one token at a time (positions 0, 1, 2), the state carrying over.
Encoders, encoder-decoders and vision models take their usual inputs once.
"""
from . import Built, Model, OutputsAsTuple

VOCAB = 1000
SEQ = 8
CACHE_LEN = 16
DECODE_CALLS = 3
# Small but complete: every kind of layer the family has, 2 layers, width 64.
LM = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)


def _decoders():
    import transformers as t
    return {
        "llama": (t.LlamaConfig, t.LlamaForCausalLM, dict(LM)),
        "qwen2": (t.Qwen2Config, t.Qwen2ForCausalLM, dict(LM)),
        "qwen3": (t.Qwen3Config, t.Qwen3ForCausalLM, dict(LM, head_dim=16)),
        "mistral": (t.MistralConfig, t.MistralForCausalLM, dict(LM, sliding_window=None)),
        "phi3": (t.Phi3Config, t.Phi3ForCausalLM, dict(LM, pad_token_id=0)),
        "gemma": (t.GemmaConfig, t.GemmaForCausalLM, dict(LM, head_dim=16)),
        "gpt2": (t.GPT2Config, t.GPT2LMHeadModel,
                 dict(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=128)),
        "gpt_neox": (t.GPTNeoXConfig, t.GPTNeoXForCausalLM,
                     dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                          num_hidden_layers=2, num_attention_heads=4,
                          max_position_embeddings=128)),
        "opt": (t.OPTConfig, t.OPTForCausalLM,
                dict(vocab_size=VOCAB, hidden_size=64, ffn_dim=128, num_hidden_layers=2,
                     num_attention_heads=4, word_embed_proj_dim=64,
                     max_position_embeddings=128)),
    }


def _make(cfg_cls, model_cls, kw):
    import torch
    torch.manual_seed(0)
    cfg = cfg_cls(**kw)
    return model_cls(cfg).eval()


def _ids(n, seed=1):
    import torch
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, VOCAB, (1, n), generator=g)


def _decoder(family):
    def build():
        cfg_cls, model_cls, kw = _decoders()[family]
        m = _make(cfg_cls, model_cls, dict(kw, use_cache=False))
        return Built(OutputsAsTuple.wrap(m), [((), {"input_ids": _ids(SEQ)})])
    return build


def _decoder_kv(family):
    def build():
        import torch
        from transformers import GenerationConfig
        from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
        cfg_cls, model_cls, kw = _decoders()[family]
        m = _make(cfg_cls, model_cls, dict(kw, use_cache=True))
        m.generation_config = GenerationConfig(
            use_cache=True, cache_implementation="static",
            cache_config={"batch_size": 1, "max_cache_len": CACHE_LEN})
        wrapped = TorchExportableModuleWithStaticCache(m, batch_size=1, max_cache_len=CACHE_LEN)
        ids = _ids(DECODE_CALLS)
        calls = [((), {"input_ids": ids[:, k:k + 1],
                       "cache_position": torch.tensor([k], dtype=torch.long)})
                 for k in range(DECODE_CALLS)]
        return Built(wrapped, calls, strict=True, note=f"static cache {CACHE_LEN}, "
                     f"{DECODE_CALLS} one-token calls")
    return build


def _encoder(cfg_cls, model_cls, kw, inputs):
    def build():
        m = _make(cfg_cls, model_cls, kw)
        return Built(OutputsAsTuple.wrap(m), [((), inputs())])
    return build


def _others():
    import torch
    import transformers as t
    enc = dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=128, max_position_embeddings=128)
    ids = lambda: {"input_ids": _ids(SEQ)}  # noqa: E731
    g = torch.Generator().manual_seed(1)
    return {
        "bert": (t.BertConfig, t.BertModel, enc, ids),
        "roberta": (t.RobertaConfig, t.RobertaModel, dict(enc, pad_token_id=1), ids),
        "distilbert": (t.DistilBertConfig, t.DistilBertModel,
                       dict(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                            max_position_embeddings=128), ids),
        "albert": (t.AlbertConfig, t.AlbertModel, dict(enc, embedding_size=32), ids),
        "t5": (t.T5Config, t.T5ForConditionalGeneration,
               dict(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                    num_decoder_layers=2, num_heads=4, use_cache=False, decoder_start_token_id=0),
               lambda: {"input_ids": _ids(SEQ), "decoder_input_ids": _ids(4, 2)}),
        "whisper": (t.WhisperConfig, t.WhisperForConditionalGeneration,
                    dict(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
                         encoder_attention_heads=4, decoder_attention_heads=4,
                         encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
                         max_source_positions=16, max_target_positions=32, use_cache=False,
                         decoder_start_token_id=1, pad_token_id=0),
                    lambda: {"input_features": torch.randn(1, 16, 32, generator=g),
                             "decoder_input_ids": _ids(4, 2)}),
        "wav2vec2": (t.Wav2Vec2Config, t.Wav2Vec2Model,
                     dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=128, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2),
                          conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                          num_conv_pos_embedding_groups=4, do_stable_layer_norm=True),
                     lambda: {"input_values": torch.randn(1, 800, generator=g)}),
        "vit": (t.ViTConfig, t.ViTModel,
                dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, image_size=32, patch_size=8),
                lambda: {"pixel_values": torch.randn(1, 3, 32, 32, generator=g)}),
        "convnext": (t.ConvNextConfig, t.ConvNextModel,
                     dict(hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 2, 1]),
                     lambda: {"pixel_values": torch.randn(1, 3, 64, 64, generator=g)}),
        "clip": (t.CLIPConfig, t.CLIPModel,
                 dict(text_config=dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                                       num_hidden_layers=2, num_attention_heads=4,
                                       max_position_embeddings=32),
                      vision_config=dict(hidden_size=64, intermediate_size=128,
                                         num_hidden_layers=2, num_attention_heads=4,
                                         image_size=32, patch_size=8),
                      projection_dim=32),
                 lambda: {"input_ids": _ids(SEQ),
                          "pixel_values": torch.randn(1, 3, 32, 32, generator=g)}),
    }


def models():
    out = []
    for fam in ("llama", "qwen2", "qwen3", "mistral", "phi3", "gemma", "gpt2", "gpt_neox",
                "opt"):
        out.append(Model("hf/" + fam, _decoder(fam)))
        out.append(Model("hf/" + fam + "-kv", _decoder_kv(fam)))
    for fam in ("bert", "roberta", "distilbert", "albert", "t5", "whisper", "wav2vec2", "vit",
                "convnext", "clip"):
        out.append(Model("hf/" + fam, lambda fam=fam: _encoder(*_others()[fam])()))
    return out
