"""Parity of the model files with onnxruntime 1.15.1 + onnxruntime-extensions 0.10.1 (Oracle's documented runtime).

Those versions do not install next to the project's pins, so this script runs in two halves:
the project's interpreter computes the expected outputs (one call per row, Oracle's call shape) and a
tokenizer-only probe graph, then re-runs this file with `--oracle-python` (a scratch virtualenv holding
only onnxruntime==1.15.1, onnxruntime-extensions==0.10.1 and numpy<2), which scores the same inputs
with the same bytes and compares. It also tokenizes every BMP character (inside "x?y") and every corpus
text with both runtimes' BertTokenizer and lists the characters whose token ids differ.

    python3.11 -m venv /tmp/ort115 && /tmp/ort115/bin/pip install onnxruntime==1.15.1 \\
        onnxruntime-extensions==0.10.1 "numpy<2"
    .venv/bin/python benchmarks/check_oracle_runtime.py --oracle-python /tmp/ort115/bin/python
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import numpy as np

CHARS = [chr(c) for c in range(0x20, 0x10000) if not 0xD800 <= c <= 0xDFFF]


def probe_texts() -> list[str]:
    return [f"x{c}y" for c in CHARS]


def _session(path_or_bytes, ort, get_library_path):
    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    options.intra_op_num_threads = 2
    options.log_severity_level = 3
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def run_all(work: Path) -> dict:
    """Both halves call this: every output, one call per row, with whatever onnxruntime is imported."""
    import onnxruntime as ort
    from onnxruntime_extensions import get_library_path
    spec = json.loads((work / "inputs.json").read_text())
    out: dict = {"versions": [ort.__version__, __import__("onnxruntime_extensions").__version__]}
    tok = _session(work / "tokenizer_probe.onnx", ort, get_library_path)
    out["probe_ids"] = [tok.run(None, {"text": np.array([t], dtype=object)})[0].tolist() for t in probe_texts()]
    out["text_ids"] = [tok.run(None, {"text": np.array([t], dtype=object)})[0].tolist() for t in spec["texts"]]
    if spec.get("tokenizer_only"):
        return out
    emb = _session(spec["embedding"], ort, get_library_path)
    out["embeddings"] = [emb.run(["embedding"], {"input": np.array([t], dtype=object)})[0].tolist()
                         for t in spec["texts"]]
    for name in ("reranker", "cosine_reranker"):
        rr = _session(spec[name], ort, get_library_path)
        out[name] = [float(rr.run(["output"], {"first_input": np.array([q], dtype=object),
                                               "second_input": np.array([d], dtype=object)})[0])
                     for q, d in spec["pairs"]]
    return out


def tokenizer_probe(embedding_path: Path) -> bytes:
    """A graph holding only the embedding model's own BertTokenizer node: text [1] -> token ids."""
    import onnx
    from onnx import TensorProto, helper
    model = onnx.load(str(embedding_path))
    node = next(n for n in model.graph.node if n.op_type == "BertTokenizer")
    probe = helper.make_node("BertTokenizer", ["text"], ["ids", "types", "mask", "offsets"], domain=node.domain,
                             name="probe")
    probe.attribute.extend(node.attribute)
    graph = helper.make_graph([probe], "tokenizer_probe", [helper.make_tensor_value_info("text", TensorProto.STRING, [1])],
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=list(model.opset_import), ir_version=model.ir_version).SerializeToString()


def prepare(work: Path, tokenizer_only: bool = False) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from workshop.data import load_chunks, load_golden_queries, load_papers
    from workshop.models import ensure_cosine_reranker_model, ensure_embedding_model, ensure_reranker_model
    chunks = load_chunks()
    texts = [c["text"] for c in chunks] + [f"{p['title']}. {p['abstract']}" for p in load_papers()]
    texts += ["", "Café crème brûlée — naïve façade résumé", "3 × 4 = 12", "x " * 600]
    queries = [q["query"] for q in load_golden_queries()]
    by_id = {c["chunk_id"]: c for c in chunks}
    pairs = []
    for q in load_golden_queries():
        for cid in list(q["relevance"])[:3]:
            c = by_id[cid]
            pairs += [(q["query"], c["text"]), (q["query"], f"{c['title']}. {c['text']}")]
    pairs += [(q, d) for q in queries[:2] for d in texts[-4:]]
    embedding = ensure_embedding_model()
    (work / "tokenizer_probe.onnx").write_bytes(tokenizer_probe(embedding))
    (work / "inputs.json").write_text(json.dumps({
        "texts": texts, "pairs": pairs, "embedding": str(embedding), "reranker": str(ensure_reranker_model()),
        "cosine_reranker": str(ensure_cosine_reranker_model()), "tokenizer_only": tokenizer_only}))


def compare(work: Path, ours: dict, oracle: dict, args_tokenizer_only: bool = False) -> None:
    spec = json.loads((work / "inputs.json").read_text())
    print(f"# project runtime: onnxruntime {ours['versions'][0]} + extensions {ours['versions'][1]}; "
          f"Oracle's documented runtime: onnxruntime {oracle['versions'][0]} + extensions {oracle['versions'][1]}\n")
    differing = [c for c, a, b in zip(CHARS, ours["probe_ids"], oracle["probe_ids"]) if a != b]
    print(f"BMP characters tokenized differently inside 'x?y' (of {len(CHARS)}): {len(differing)}")
    groups: dict[tuple[str, str], list[str]] = {}
    for c in differing:
        script = unicodedata.name(c, "UNNAMED ?").split()[0]
        groups.setdefault((unicodedata.category(c), script), []).append(c)
    print("| category | script (first word of the name) | characters | examples: ours -> Oracle's runtime |")
    print("|---|---|---:|---|")
    for (cat, script), chars in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        examples = []
        for c in chars[:3]:
            i = CHARS.index(c)
            examples.append(f"U+{ord(c):04X} {ours['probe_ids'][i][1:-1]} -> {oracle['probe_ids'][i][1:-1]}")
        print(f"| {cat} | {script} | {len(chars)} | {'; '.join(examples)} |")
    latin1 = [c for c in differing if ord(c) < 0x100]
    print(f"Latin-1 characters among them: {[f'U+{ord(c):04X} {c}' for c in latin1]}")
    if args_tokenizer_only:
        return
    bad_texts = [i for i, (a, b) in enumerate(zip(ours["text_ids"], oracle["text_ids"])) if a != b]
    print(f"corpus/probe texts tokenized differently: {len(bad_texts)} of {len(spec['texts'])}")
    for i in bad_texts:
        chars = sorted({c for c in spec["texts"][i] if c in set(differing)})
        print(f"  text {i}: {spec['texts'][i][:70]!r}... characters {chars}")
    same = [i for i in range(len(spec["texts"])) if i not in bad_texts]
    e_ours, e_oracle = np.array(ours["embeddings"]), np.array(oracle["embeddings"])
    print(f"\n| model | rows | max abs difference (same tokens) | max abs difference (all rows) |")
    print("|---|---:|---:|---:|")
    print(f"| embedding (VECTOR_EMBEDDING) | {len(spec['texts'])} | {np.abs(e_ours[same] - e_oracle[same]).max():.1e} "
          f"| {np.abs(e_ours - e_oracle).max():.1e} |")
    pair_ok = [i for i, (q, d) in enumerate(spec["pairs"]) if not (set(q + d) & set(differing))]
    for name, label in (("reranker", "RERANKER (MaxSim)"), ("cosine_reranker", "cosine baseline")):
        a, b = np.array(ours[name]), np.array(oracle[name])
        print(f"| {label} (PREDICTION) | {len(a)} | {np.abs(a[pair_ok] - b[pair_ok]).max():.1e} | "
              f"{np.abs(a - b).max():.1e} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--oracle-python", help="interpreter of the onnxruntime 1.15.1 virtualenv")
    parser.add_argument("--tokenizer-only", action="store_true", help="compare token ids only (fast)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        work = Path(args.worker)
        (work / "oracle.json").write_text(json.dumps(run_all(work)))
        return
    if not args.oracle_python:
        parser.error("--oracle-python is required (see the docstring for the virtualenv)")
    with tempfile.TemporaryDirectory(prefix="ort115_parity_") as tmp:
        work = Path(tmp)
        prepare(work, args.tokenizer_only)
        ours = run_all(work)
        subprocess.run([args.oracle_python, __file__, "--worker", str(work)], check=True)
        compare(work, ours, json.loads((work / "oracle.json").read_text()), args.tokenizer_only)


if __name__ == "__main__":
    main()
