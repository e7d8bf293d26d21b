"""Why does the MaxSim reranker prefer general introductions? Principled variants, on the DEVELOPMENT half.

The default RERANKER scores a (question, passage) pair as the mean over ALL query tokens ([CLS], [SEP], stop
words and punctuation included) of the best cosine with ANY passage token ([CLS]/[SEP] included). Candidate
reasons for the bias, each a variant scored here on the same fused top 40 of part 05's pipeline:

| variant | query tokens that count | passage | weight of a query token |
|---|---|---|---|
| uniform (before issue 22) | all | title + text, all tokens | 1 |
| no [CLS]/[SEP] (query) | all but [CLS], [SEP] | title + text | 1 |
| no specials (both sides) | all but [CLS], [SEP] | title + text without [CLS], [SEP] | 1 |
| content query tokens | no [CLS]/[SEP], no stop-word or punctuation pieces | title + text | 1 |
| content, no title | as above | text only | 1 |
| shipped: IDF-weighted | no [CLS]/[SEP] | title + text | IDF of the word piece over the corpus chunks |
| IDF-weighted content tokens | no [CLS]/[SEP], no stop words | title + text | IDF |
| length-normalised | all | title + text | 1, minus 0.02 * log2(passage tokens) |

Token states come from the model's own towers (the query states are re-normalised: the shipped query tower
weights them), so the "shipped" row reproduces PREDICTION's scores (checked, printed). The IDF variants were
chosen on the development half; `--split held-out` is the report. The diagnosis table shows, for the paraphrase
questions, how long the chosen top passage is against the best-graded one, and how much of the score margin
between them the [CLS]/[SEP] and stop-word query tokens contribute.

    .venv/bin/python benchmarks/bench_reranker_variants.py [--split dev|held-out]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from workshop import config  # noqa: E402
from workshop.data import load_golden_queries  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.evaluation import bootstrap, metrics  # noqa: E402
from workshop.evaluation.split import DEV, SPLITS, of_split  # noqa: E402

CLS, SEP = 101, 102


class Towers:
    """Token ids and L2-normalised token states of texts, from the loaded reranker's own towers."""

    def __init__(self, model):
        model.predict({"FIRST_INPUT": ["warm up"], "SECOND_INPUT": ["warm up"]})   # builds the late path
        self.late = model._late
        self._cache: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}

    def ids(self, text: str) -> np.ndarray:
        tower = self.late.plan.passage
        return self.late._stages[id(tower)].run([tower.inputs[0]], {tower.text: np.array([text], dtype=object)})[0][0]

    def encode(self, side: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        key = (side, text)
        if key not in self._cache:
            # Both sides through the passage tower: the same encoder and truncation as the query tower, without
            # the query tower's weights (which zero [CLS]/[SEP]), so every variant sees the unit states.
            tower = self.late.plan.passage
            ids = self.ids(text)
            self._cache[key] = (ids, self.late.states(tower, [text])[0].astype(np.float64))
        return self._cache[key]


def piece_weights(vocab: list[str], stopwords: frozenset[str], idf: dict[int, float]) -> dict[str, np.ndarray]:
    """Per word-piece weights of the query tokens for each variant (index = token id)."""
    n = len(vocab)
    special = np.zeros(n, dtype=bool)
    special[[CLS, SEP]] = True
    stop = np.array([v.lstrip("#") in stopwords or not any(ch.isalnum() for ch in v) for v in vocab])
    stop[[CLS, SEP]] = True
    idf_w = np.array([idf.get(i, max(idf.values())) for i in range(n)])
    return {"no_special": (~special).astype(float), "content": (~stop).astype(float),
            "idf": np.where(special, 0.0, idf_w)}


def maxsim(q_states, q_w, d_states, d_keep=None) -> float:
    sim = q_states @ d_states.T
    if d_keep is not None:
        sim = np.where(d_keep[None, :], sim, -1e4)
    best = sim.max(axis=1)
    return float((best * q_w).sum() / q_w.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=SPLITS, default=DEV)
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    with tempfile.TemporaryDirectory() as tmp:
        if config.oracle_dsn() is None:
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(copy_embedded_database(Path(tmp) / "workshop.db"))
        from workshop.db import connect
        from workshop.evaluation import strategies
        from workshop.models import ensure_reranker_model, load_model, reranker_metadata
        from workshop.models.bert_source import read_bert_folder
        from workshop.models.embedding_model import minilm_folder
        from workshop.models.maxsim_reranker import query_token_weights
        from workshop.pipeline import routing, security
        from workshop.pipeline.manager import reranker_label
        from workshop.pipeline.query import understand_query
        from workshop.pipeline.search import CANDIDATES, fetch_dicts, pipeline_sql, plan_binds
        from workshop.retrieval.keywords import DEFAULT_STOPWORDS
        from workshop.setup import banner
        conn = connect()
        strategies.prepare_knowledge_base(conn)
        queries = [q for q in of_split(load_golden_queries(version=2), args.split)
                   if metrics.relevant_ids(q["relevance"])]
        model = load_model("RERANKER", ensure_reranker_model().read_bytes(), reranker_metadata())
        towers = Towers(model)
        vocab = (minilm_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines()
        idf_table = query_token_weights(read_bert_folder(minilm_folder()))   # the shipped model's table
        weights = piece_weights(vocab, DEFAULT_STOPWORDS, dict(enumerate(idf_table.astype(float))))

        def variant_scores(question: str, titled: str, plain: str) -> dict[str, float]:
            q_ids, q = towers.encode("q", question)
            d_ids, d = towers.encode("d", titled)
            p_ids, p = towers.encode("d", plain)
            ones = np.ones(len(q_ids))
            d_keep = (d_ids != CLS) & (d_ids != SEP)
            content = weights["content"][q_ids]
            content = content if content.sum() else weights["no_special"][q_ids]
            base = maxsim(q, ones, d)
            return {"uniform (before issue 22)": base,
                    "no [CLS]/[SEP] (query)": maxsim(q, weights["no_special"][q_ids], d),
                    "no specials (both sides)": maxsim(q, weights["no_special"][q_ids], d, d_keep),
                    "content query tokens": maxsim(q, content, d),
                    "content, no title": maxsim(q, content, p),
                    "shipped: IDF-weighted": maxsim(q, weights["idf"][q_ids], d),
                    "IDF-weighted content tokens": maxsim(q, weights["idf"][q_ids] * (content > 0), d),
                    "length-normalised": base - 0.02 * math.log2(len(d_ids))}

        runs: dict[str, dict[str, list[str]]] = {}
        diagnosis = []
        check = []
        for q in queries:
            security.set_tenant(conn, q["tenant"])
            user = q.get("user_id") or strategies.EVAL_USER
            plan = routing.route_collections(conn, understand_query(q["query"]), user_id=user)
            collection_list, binds = plan_binds(plan, user, CANDIDATES)
            with conn.cursor() as cur:
                cur.execute(pipeline_sql(config.embedding_model_name(), config.reranker_model_name(),
                                         collection_list), binds)
                rows = fetch_dicts(cur)
            per = {r["id"]: variant_scores(q["query"], f"{r['title']}. {r['content']}", r["content"]) for r in rows}
            check += [abs(per[r["id"]]["shipped: IDF-weighted"] - r["rerank_score"]) for r in rows]
            for name in next(iter(per.values())) if per else ():
                runs.setdefault(name, {})[q["query_id"]] = sorted(per, key=lambda i: (-per[i][name], i))[:20]
            if q["intent"] == "paraphrase" and rows:
                top = runs["uniform (before issue 22)"][q["query_id"]][0]
                best = max(per, key=lambda i: (q["relevance"].get(i, 0), -list(per).index(i)))
                if q["relevance"].get(top, 0) < q["relevance"].get(best, 0):
                    q_ids, qs = towers.encode("q", q["query"])
                    by_id = {r["id"]: r for r in rows}
                    margins = {}
                    for cid in (top, best):
                        d_ids, d = towers.encode("d", f"{by_id[cid]['title']}. {by_id[cid]['content']}")
                        margins[cid] = ((qs @ d.T).max(axis=1), len(d_ids), int(by_id[cid]["chunk_index"]))
                    gap = (margins[top][0] - margins[best][0]) / len(q_ids)
                    special = np.isin(q_ids, [CLS, SEP])
                    stop = weights["content"][q_ids] == 0
                    diagnosis.append({"query_id": q["query_id"], "top (grade)": f"{top} ({q['relevance'].get(top, 0)})",
                                      "best graded": f"{best} ({q['relevance'].get(best, 0)})",
                                      "top tokens": margins[top][1], "best tokens": margins[best][1],
                                      "top chunk_index": margins[top][2], "best chunk_index": margins[best][2],
                                      "margin": gap.sum(), "from [CLS]/[SEP]": gap[special].sum(),
                                      "from stop words": gap[stop & ~special].sum(),
                                      "from content words": gap[~stop].sum()})
        rows_out = []
        base = None
        for name, ranked in runs.items():
            scores = {q["query_id"]: metrics.ndcg_at_k(ranked[q["query_id"]], q["relevance"], 10) for q in queries}
            per_intent = pd.Series({q["intent"]: 0.0 for q in queries})
            frame = pd.DataFrame([{"intent": q["intent"], "ndcg": scores[q["query_id"]]} for q in queries])
            per_intent = frame.groupby("intent")["ndcg"].mean()
            values = np.array([scores[q["query_id"]] for q in queries])
            base = values if base is None else base
            ci = bootstrap.paired_bootstrap(base, values)
            rows_out.append({"variant": name, "ndcg@10": values.mean(),
                             "vs uniform [95% CI]": f"{ci['diff']:+.3f} [{ci['ci_low']:+.3f}, {ci['ci_high']:+.3f}]",
                             **per_intent.to_dict()})
        print(f"engine:    {banner(conn)} (embedded: {config.oracle_dsn() is None})")
        print(f"embedding: {config.embedding_model_name()}")
        print(f"reranker:  {reranker_label(conn)} (the variants rescore its token states)")
        print(f"golden:    version 2, {args.split} half: {len(queries)} answerable questions; candidates: part 05's "
              f"fused top {CANDIDATES}")
        print(f"check:     shipped variant vs PREDICTION, max |diff| {max(check):.2e}")
        print(f"machine:   {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}\n")
        print("NDCG@10 of the fused top 40 reordered by each variant (per intent to the right)")
        print(pd.DataFrame(rows_out).set_index("variant").round(3).to_string())
        if diagnosis:
            print("\nparaphrases whose top passage (uniform weights) grades below the best candidate: where the margin comes from"
                  " (mean over query tokens of max-cosine differences)")
            print(pd.DataFrame(diagnosis).set_index("query_id").round(3).to_string())
        conn.close()


if __name__ == "__main__":
    main()
