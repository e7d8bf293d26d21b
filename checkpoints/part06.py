"""Checkpoints of part 06, evaluating retrieval (notebooks/06_evaluating_retrieval.ipynb).

The metric checks score the learner's function on the whole golden set (version 2, the set part 06 uses)
against the reference in
`workshop.evaluation.metrics` (which the tests cross-check against ranx to 1e-9), after pointed
probes that name each classic mistake: recall divided by k, precision divided by the number
retrieved, MRR beyond the cutoff, binary or exponential gains on graded labels, an ideal DCG from
the retrieved list. The harvest check writes a scripted session of its own inside a savepoint and
rolls it back, so the database is left as it was found.

    from checkpoints import part06
    part06.check_recall_at_k(recall_at_k)
    part06.check_precision_at_k(precision_at_k)
    part06.check_mrr_at_k(mrr_at_k)
    part06.check_ndcg_at_k(ndcg_at_k)
    part06.check_harvest_sql(conn, harvest_sql)
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from workshop.data.loaders import load_golden_queries
from workshop.evaluation import labelling, metrics
from workshop.memory.conversation import write_conversation
from workshop.memory.retrieval_log import write_retrieval_result
from workshop.memory.tool_log import write_tool_log

from .framework import checkpoint, expect, expect_filled, fail, savepoint

NOTEBOOK = "06_evaluating_retrieval.ipynb"
TOLERANCE = 1e-9
GRADED = {"a": 3, "b": 2, "c": 1, "z": 0}


def _golden_cases(seed: int = 6) -> list[tuple[str, list[str], dict[str, int]]]:
    """(query_id, a ranked list, its labels) for every answerable golden query, reproducibly shuffled."""
    rng = random.Random(seed)
    queries = [q for q in load_golden_queries(version=2) if metrics.relevant_ids(q["relevance"])]
    everything = sorted({d for q in queries for d in q["relevance"]})
    cases = []
    for q in queries:
        pool = list(q["relevance"]) + rng.sample(everything, 20)
        rng.shuffle(pool)
        cases.append((q["query_id"], list(dict.fromkeys(pool))[: rng.choice([2, 7, 12, 25])], q["relevance"]))
    return cases


def _number(function: Callable, name: str, *args) -> float:
    value = function(*args)
    expect_filled(value, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(float(value)):
        fail(f"{name} returned {value!r}; it must return a number", "Return a float between 0 and 1.")
    return float(value)


def _close(actual: float, expected: float) -> bool:
    return abs(actual - expected) <= TOLERANCE


def _probe(function: Callable, name: str, ranked: Sequence[str], relevance: Mapping[str, int], k: int,
           expected: float, mistake: str, hint: str) -> None:
    got = _number(function, name, list(ranked), dict(relevance), k)
    expect(_close(got, expected), f"{name}({list(ranked)}, {dict(relevance)}, k={k}) = {got:.4f}, expected "
           f"{expected:.4f}: {mistake}", hint)


def _against_golden_set(function: Callable, name: str, reference: Callable, ks: Sequence[int]) -> str:
    cases = _golden_cases()
    for k in ks:
        for query_id, ranked, relevance in cases:
            got = _number(function, name, list(ranked), dict(relevance), k)
            want = reference(ranked, relevance, k)
            if not _close(got, want):
                fail(f"on golden query {query_id} (k={k}) {name} gives {got:.6f}, the reference {want:.6f}",
                     "Compare your function with the definition in the markdown cell above, line by line.")
    return f"{len(cases)} golden queries × k in {tuple(ks)}, within {TOLERANCE:g}"


@checkpoint("Recall@k", hint="Relevant chunks found in the top k, divided by all the relevant chunks the query has.")
def check_recall_at_k(recall_at_k: Callable) -> str:
    _probe(recall_at_k, "recall_at_k", ["z", "x"], GRADED, 5, 0.0,
           "a chunk graded 0 is labelled but not relevant", "Count only ids whose grade is >= 1.")
    _probe(recall_at_k, "recall_at_k", ["a", "x"], GRADED, 10, 1 / 3,
           "recall divides by the number of relevant chunks (3), not by k or by the list length",
           "len(found) / len(relevant), where relevant are the ids with grade >= 1.")
    _probe(recall_at_k, "recall_at_k", ["x", "y", "a"], GRADED, 2, 0.0,
           "only the first k ranked ids count", "Cut the ranked list at k before counting.")
    return _against_golden_set(recall_at_k, "recall_at_k", metrics.recall_at_k, (5, 20))


@checkpoint("Precision@k", hint="Relevant chunks in the top k, divided by k.")
def check_precision_at_k(precision_at_k: Callable) -> str:
    _probe(precision_at_k, "precision_at_k", ["a"], GRADED, 5, 1 / 5,
           "precision divides by k even when fewer than k chunks came back (a short list is not a better one)",
           "Divide by k, not by len(ranked).")
    _probe(precision_at_k, "precision_at_k", ["a", "z", "b", "c"], GRADED, 2, 1 / 2,
           "only the top k count, and a grade-0 chunk is not relevant", "Cut at k; count ids with grade >= 1.")
    return _against_golden_set(precision_at_k, "precision_at_k", metrics.precision_at_k, (5, 10))


@checkpoint("MRR@k", hint="1 / the rank of the first relevant chunk within the top k; 0 when there is none.")
def check_mrr_at_k(mrr_at_k: Callable) -> str:
    _probe(mrr_at_k, "mrr_at_k", ["x", "c", "a"], GRADED, 10, 1 / 2,
           "the *first* relevant chunk counts, whatever its grade (ranks start at 1)",
           "for rank, id in enumerate(ranked[:k], start=1): return 1 / rank at the first relevant id.")
    _probe(mrr_at_k, "mrr_at_k", ["z", "c"], GRADED, 10, 1 / 2,
           "a chunk graded 0 is labelled but not relevant", "Count only ids whose grade is >= 1.")
    _probe(mrr_at_k, "mrr_at_k", ["x", "y", "x2", "c"], GRADED, 3, 0.0,
           "a relevant chunk below the cutoff k does not count", "Look only at ranked[:k].")
    return _against_golden_set(mrr_at_k, "mrr_at_k", metrics.mrr_at_k, (3, 10))


@checkpoint("NDCG@k (linear gain)", hint=("DCG = sum(grade / log2(rank + 1)); the ideal DCG sorts every labelled grade "
                                          "of the query (not the retrieved list) and takes the top k."))
def check_ndcg_at_k(ndcg_at_k: Callable) -> str:
    ideal_3 = 3 + 2 / math.log2(3) + 1 / 2
    _probe(ndcg_at_k, "ndcg_at_k", ["c"], GRADED, 10, 1 / ideal_3,
           "the ideal DCG comes from every labelled chunk of the query, not from the retrieved list "
           "(a list holding only the weakest relevant chunk is not perfect)",
           "ideal = dcg(sorted(relevance.values(), reverse=True)[:k]).")
    _probe(ndcg_at_k, "ndcg_at_k", ["c", "a"], GRADED, 10, (1 + 3 / math.log2(3)) / ideal_3,
           "the gain is the grade itself (linear): binary gains ignore grades, 2**grade - 1 is another convention",
           "gain = relevance.get(id, 0); discount = 1 / log2(rank + 1).")
    _probe(ndcg_at_k, "ndcg_at_k", ["x", "a"], GRADED, 1, 0.0,
           "only the top k of the ranked list count", "Cut the ranked list at k.")
    _probe(ndcg_at_k, "ndcg_at_k", ["a", "x"], GRADED, 1, 1.0,
           "the ideal is cut at k too: the best chunk alone at k=1 is a perfect top 1", "ideal = dcg(sorted(...)[:k]).")
    _probe(ndcg_at_k, "ndcg_at_k", ["a", "b", "c"], GRADED, 10, 1.0, "the ideal ranking scores exactly 1",
           "Discount ranks from 1: log2(1 + 1) = 1 for the first.")
    for query_id, ranked, relevance in _golden_cases(seed=7):
        value = _number(ndcg_at_k, "ndcg_at_k", list(ranked), dict(relevance), 10)
        if not -TOLERANCE <= value <= 1 + TOLERANCE:
            fail(f"NDCG@10 = {value:.4f} on golden query {query_id}, outside [0, 1]: an evaluation bug, most often "
                 "the ideal DCG computed from the wrong list", "Assert 0 <= ndcg <= 1 in your function.")
    return _against_golden_set(ndcg_at_k, "ndcg_at_k", metrics.ndcg_at_k, (3, 10))


# --------------------------------------------------------------------------- the harvest query
PROBE_THREAD = "ckpt-06-harvest"
PROBE_SESSION = [("Which error says the vector pool is empty?", ["DOC10-C07", "DOC26-C01", "DOC20-C01"]),
                 ("How do rolling summaries evict old turns?", ["DOC02-C03", "DOC02-C01"]),
                 ("Which error says the vector pool is empty?", ["DOC26-C01", "DOC10-C07"])]


@checkpoint("the harvest query", hint=("Join TOOL_LOG rows whose tool_name is 'retrieval_result' to the user turn in "
                                       "CONVERSATION_MEMORY named by $.turn_id; return log_id, question, tenant and "
                                       "the $.candidates array, ORDER BY t.id."))
def check_harvest_sql(conn, harvest_sql: str) -> str:
    expect_filled(harvest_sql, "harvest_sql")
    expect(isinstance(harvest_sql, str), "harvest_sql must be the SQL text of the harvest query")
    with savepoint(conn):
        before = {r["log_id"] for r in labelling.harvest(conn)}
        for question, ids in PROBE_SESSION:
            turn = write_conversation(conn, PROBE_THREAD, "user", question, commit=False)
            write_tool_log(conn, PROBE_THREAD, "search_chunks", {"query": question}, "[...]", commit=False)
            write_tool_log(conn, PROBE_THREAD, "retrieval_feedback",  # a downstream signal on the same turn
                           {"turn_id": turn, "candidates": ids[:1], "signal": "thumbs-down"}, None, commit=False)
            write_conversation(conn, PROBE_THREAD, "assistant", f"{len(ids)} chunks", commit=False)
            write_retrieval_result(conn, PROBE_THREAD, turn, question, ids, tool="search_chunks", tenant="acme",
                                   commit=False)
        expected = [r for r in labelling.harvest(conn) if r["log_id"] not in before]
        try:
            got = labelling.harvest(conn, harvest_sql)
        except (KeyError, TypeError, ValueError) as exc:
            fail(f"the harvest rows cannot be read: {exc}",
                 "Return the columns log_id, question, tenant and candidate_ids (the JSON array).")
        again = labelling.harvest(conn, harvest_sql)
    keys = ("log_id", "question", "tenant", "candidate_ids")
    missing = [k for k in keys if not got or k not in got[0]]
    expect(not missing, f"the harvest rows lack {', '.join(missing) or 'everything (no rows)'}",
           "Alias the columns: AS log_id, AS question, AS tenant, AS candidate_ids.")
    mine = [{k: r[k] for k in keys} for r in got if r["log_id"] not in before]
    want = [{k: r[k] for k in keys} for r in expected]
    expect(len(mine) == len(want), f"the harvest returns {len(mine)} rows for the checker's session of "
           f"{len(want)} retrievals: other tool calls must be left out, and each retrieval must appear once",
           "WHERE t.tool_name = 'retrieval_result', joined on the turn id.")
    expect([r["question"] for r in mine] == [r["question"] for r in want],
           "the questions do not match their retrievals: join CONVERSATION_MEMORY on the turn id the record names",
           "ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)")
    expect(mine == want, "the candidate ids or the order of the rows differ from what was logged "
           "(rows without ORDER BY come back in any order)", "JSON_QUERY(t.arguments, '$.candidates'), ORDER BY t.id.")
    expect([r["log_id"] for r in got] == [r["log_id"] for r in again], "running the harvest twice gives another order",
           "ORDER BY t.id.")
    return f"{len(want)} logged retrievals, in order"
