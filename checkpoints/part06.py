"""Checkpoints of part 06, evaluating retrieval (notebooks/06_evaluating_retrieval.ipynb).

The metric checks score the learner's function on the whole golden set (version 2, the set part 06 uses)
against the reference in
`workshop.evaluation.metrics` (which the tests cross-check against ranx to 1e-9), after pointed
probes that name each classic mistake: recall divided by k, precision divided by the number
retrieved, MRR beyond the cutoff, binary or exponential gains on graded labels, an ideal DCG from
the retrieved list (or sorted ascending, or cut at the list's length), duplicates, a query with no
relevant chunk (the golden cases skip those), a missing `return`. The harvest check writes a scripted session of its own inside a savepoint and
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

from .framework import checkpoint, expect, expect_filled, fail, fetch_clause, savepoint, sql_tokens

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
    try:
        value = function(*args)
    except ZeroDivisionError:
        fail(f"{name}({', '.join(map(repr, args))}) divides by zero: a query with no relevant chunk (or an empty "
             "ranking) must still get a score", "Return 0.0 when there is nothing to divide by.")
    except IndexError as error:
        fail(f"{name}({', '.join(map(repr, args))}) raised IndexError ({error}): an empty ranking (a search that found "
             "nothing) or one shorter than k must still get a score", "Walk ranked[:k]; never index a position that "
                                                                     "may not exist.")
    if value is None:
        fail(f"{name}({', '.join(map(repr, args))}) returned None: a `return` is missing on one path",
             "Every path of the function returns a number (0.0 when nothing relevant is found).")
    expect_filled(value, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(float(value)):
        fail(f"{name} returned {value!r}; it must return a number", "Return a float between 0 and 1.")
    return float(value)


def _close(actual: float, expected: float) -> bool:
    return abs(actual - expected) <= TOLERANCE


def _probe(function: Callable, name: str, ranked: Sequence[str], relevance: Mapping[str, int], k: int,
           expected: float, mistake: str, hint: str,
           known: Sequence[tuple[float, str, str]] = ()) -> None:
    """One pointed case; `known` lists (value, mistake, hint) of classic wrong answers to name them precisely."""
    got = _number(function, name, list(ranked), dict(relevance), k)
    if _close(got, expected):
        return
    mistake, hint = next(((m, h) for value, m, h in known if _close(got, value)), (mistake, hint))
    fail(f"{name}({list(ranked)}, {dict(relevance)}, k={k}) = {got:.4f}, expected {expected:.4f}: {mistake}", hint)


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


@checkpoint("Recall@k", hint=("Relevant chunks found in the top k, divided by all the relevant chunks the query has "
                                 "('The metrics').", "relevant = {ids with grade >= 1}; return 0.0 when there is none, "
                                 "else len(relevant & set(ranked[:k])) / len(relevant)."))
def check_recall_at_k(recall_at_k: Callable) -> str:
    _probe(recall_at_k, "recall_at_k", [], GRADED, 5, 0.0, "a search that found nothing (an empty ranking) scores 0",
           "An empty ranking has no relevant chunk in its top k: the score is 0.0.")
    _probe(recall_at_k, "recall_at_k", ["z", "x"], GRADED, 5, 0.0,
           "a chunk graded 0 is labelled but not relevant", "Count only ids whose grade is >= 1.")
    _probe(recall_at_k, "recall_at_k", ["a", "x", "y", "w"], GRADED, 10, 1 / 3,
           "recall divides by the number of relevant chunks (3), not by k or by the list length",
           "len(found) / len(relevant), where relevant are the ids with grade >= 1.",
           known=[(1 / 2, "a chunk graded 1 is relevant too (relevant means grade >= 1)",
                   "Count the ids whose grade is >= 1.")])
    _probe(recall_at_k, "recall_at_k", ["x", "y", "a"], GRADED, 2, 0.0,
           "only the first k ranked ids count", "Cut the ranked list at k before counting.")
    _probe(recall_at_k, "recall_at_k", ["c", "x"], GRADED, 5, 1 / 3,
           "a chunk graded 1 is relevant too (relevant means grade >= 1)", "Count the ids whose grade is >= 1.")
    _probe(recall_at_k, "recall_at_k", ["a", "b"], GRADED, 1, 1 / 3,
           "recall divides by all the relevant chunks of the query, even when k is smaller than that number "
           "(min(k, relevant) is another metric, capped recall)", "len(found) / len(relevant), whatever k is.")
    _probe(recall_at_k, "recall_at_k", ["a", "a", "x"], GRADED, 10, 1 / 3,
           "a chunk listed twice is still one relevant chunk found (recall can never exceed 1)",
           "Count distinct ids: len(relevant & set(ranked[:k])).")
    for labels in ({"z": 0}, {}):
        _probe(recall_at_k, "recall_at_k", ["z", "x"], labels, 5, 0.0,
               "a query with no relevant chunk scores 0.0", "if not relevant: return 0.0")
    return _against_golden_set(recall_at_k, "recall_at_k", metrics.recall_at_k, (5, 20))


@checkpoint("Precision@k", hint=("Relevant chunks in the top k, divided by k ('The metrics').",
                                    "sum(1 for doc in ranked[:k] if relevance.get(doc, 0) >= 1) / k."))
def check_precision_at_k(precision_at_k: Callable) -> str:
    _probe(precision_at_k, "precision_at_k", [], GRADED, 5, 0.0, "a search that found nothing (an empty ranking) "
                                                                 "scores 0",
           "An empty ranking has no relevant chunk in its top k: the score is 0.0.")
    _probe(precision_at_k, "precision_at_k", ["a"], GRADED, 5, 1 / 5,
           "precision divides by k even when fewer than k chunks came back (a short list is not a better one)",
           "Divide by k, not by len(ranked).",
           known=[(1 / 3, "precision divides by k; dividing by the query's relevant chunks is recall",
                   "hits / k, where hits are the relevant ids in ranked[:k].")])
    _probe(precision_at_k, "precision_at_k", ["a", "z", "b", "c"], GRADED, 2, 1 / 2,
           "only the top k count, and a grade-0 chunk is not relevant", "Cut at k; count ids with grade >= 1.")
    _probe(precision_at_k, "precision_at_k", [], GRADED, 5, 0.0,
           "an empty ranking has precision 0.0", "Divide by k, not by len(ranked).")
    _probe(precision_at_k, "precision_at_k", ["c", "x"], GRADED, 2, 1 / 2,
           "a chunk graded 1 is relevant too (relevant means grade >= 1)", "Count the ids whose grade is >= 1.")
    _probe(precision_at_k, "precision_at_k", ["x", "a", "b"], GRADED, 2, 1 / 2,
           "the chunk at rank k is inside the top k (ranked[:k] holds ranks 1..k)", "Cut with ranked[:k].")
    return _against_golden_set(precision_at_k, "precision_at_k", metrics.precision_at_k, (5, 10))


@checkpoint("MRR@k", hint=("1 / the rank of the first relevant chunk within the top k; 0 when there is none "
                              "('The metrics').", "for rank, doc in enumerate(ranked[:k], start=1): return 1 / rank at "
                              "the first grade >= 1; after the loop return 0.0."))
def check_mrr_at_k(mrr_at_k: Callable) -> str:
    _probe(mrr_at_k, "mrr_at_k", [], GRADED, 5, 0.0, "a search that found nothing (an empty ranking) scores 0",
           "An empty ranking has no relevant chunk in its top k: the score is 0.0.")
    _probe(mrr_at_k, "mrr_at_k", ["x", "c", "a"], GRADED, 10, 1 / 2,
           "the *first* relevant chunk counts, whatever its grade (ranks start at 1)",
           "for rank, id in enumerate(ranked[:k], start=1): return 1 / rank at the first relevant id.")
    _probe(mrr_at_k, "mrr_at_k", ["z", "c"], GRADED, 10, 1 / 2,
           "a chunk graded 0 is labelled but not relevant", "Count only ids whose grade is >= 1.")
    _probe(mrr_at_k, "mrr_at_k", ["x", "y", "x2", "c"], GRADED, 3, 0.0,
           "a relevant chunk below the cutoff k does not count", "Look only at ranked[:k].")
    _probe(mrr_at_k, "mrr_at_k", ["x", "y", "c"], GRADED, 3, 1 / 3,
           "a relevant chunk at rank k is inside the top k (ranked[:k] holds ranks 1..k)", "Look at ranked[:k].")
    _probe(mrr_at_k, "mrr_at_k", ["x", "y"], GRADED, 10, 0.0,
           "no relevant chunk in the top k scores 0.0", "return 0.0 after the loop.")
    return _against_golden_set(mrr_at_k, "mrr_at_k", metrics.mrr_at_k, (3, 10))


DISCOUNT = "the discount is 1 / log2(rank + 1) at every rank (rank 2 is discounted too)"
DISCOUNT_HINT = "dcg = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1))."
GAIN = "the gain is the grade itself (linear): binary gains ignore grades, 2**grade - 1 is another convention"
GAIN_HINT = "gain = relevance.get(id, 0); discount = 1 / log2(rank + 1)."


def _other_gains(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> list[tuple[float, str, str]]:
    """NDCG with exponential (2**grade - 1) and binary gains, each with a right ideal: whatever else a probe tests,
    these two values mean the gain is wrong, not the ideal (issue 21: the first probe blamed the ideal)."""
    def ndcg(gain: Callable[[int], float]) -> float:
        dcg = lambda grades: sum(gain(g) / math.log2(r + 1) for r, g in enumerate(grades, start=1))  # noqa: E731
        ideal = dcg(sorted(relevance.values(), reverse=True)[:k])
        return dcg([relevance.get(doc, 0) for doc in ranked[:k]]) / ideal if ideal else 0.0
    return [(ndcg(lambda g: 2 ** g - 1), GAIN, GAIN_HINT), (ndcg(lambda g: 1.0 if g >= 1 else 0.0), GAIN, GAIN_HINT)]


@checkpoint("NDCG@k (linear gain)", hint=("DCG = sum(grade / log2(rank + 1)); the ideal DCG sorts every labelled grade "
                                          "of the query (not the retrieved list) and takes the top k ('The metrics').",
                                          "ideal = dcg(sorted(relevance.values(), reverse=True)[:k]); 0.0 if ideal == "
                                          "0; "
                                          "else dcg([relevance.get(doc, 0) for doc in ranked[:k]]) / ideal."))
def check_ndcg_at_k(ndcg_at_k: Callable) -> str:
    ideal_3 = 3 + 2 / math.log2(3) + 1 / 2
    ascending = sum(g / math.log2(r + 1) for r, g in enumerate([0, 1, 2, 3], start=1))
    _probe(ndcg_at_k, "ndcg_at_k", ["c"], GRADED, 10, 1 / ideal_3,
           "the ideal DCG comes from every labelled chunk of the query, not from the retrieved list "
           "(a list holding only the weakest relevant chunk is not perfect)",
           "ideal = dcg(sorted(relevance.values(), reverse=True)[:k]).",
           known=[(1 / ascending, "the ideal DCG sorts the grades best first (reverse=True); ascending grades "
                   "are the worst ranking, not the ideal one", "ideal = dcg(sorted(relevance.values(), "
                                                               "reverse=True)[:k])."),
                  (1 / 3, "the ideal DCG is cut at k, not at the length of the retrieved list",
                   "ideal = dcg(sorted(relevance.values(), reverse=True)[:k])."),
                  (1 / (3 + 2 + 1 / math.log2(3)), DISCOUNT, DISCOUNT_HINT), *_other_gains(["c"], GRADED, 10)])
    sorted_gains = (3 + 1 / math.log2(3)) / ideal_3
    undiscounted_2 = (1 + 3) / (3 + 2 + 1 / math.log2(3))
    _probe(ndcg_at_k, "ndcg_at_k", ["c", "a"], GRADED, 10, (1 + 3 / math.log2(3)) / ideal_3,
           GAIN, GAIN_HINT,
           known=[(sorted_gains, "the order of the ranked list matters: only the ideal is sorted, the retrieved "
                   "grades stay in rank order (the best chunk at rank 2 is worth less than at rank 1)",
                   "actual = dcg([relevance.get(doc, 0) for doc in ranked[:k]]), without sorting."),
                  (undiscounted_2, DISCOUNT, DISCOUNT_HINT)])
    _probe(ndcg_at_k, "ndcg_at_k", ["x", "a"], GRADED, 1, 0.0,
           "only the top k of the ranked list count", "Cut the ranked list at k.")
    _probe(ndcg_at_k, "ndcg_at_k", ["a", "x"], GRADED, 1, 1.0,
           "the ideal is cut at k too: the best chunk alone at k=1 is a perfect top 1", "ideal = dcg(sorted(...)[:k]).")
    _probe(ndcg_at_k, "ndcg_at_k", ["a", "b", "c"], GRADED, 10, 1.0, "the ideal ranking scores exactly 1",
           "Discount ranks from 1: log2(1 + 1) = 1 for the first.")
    for labels in ({"z": 0}, {}):
        _probe(ndcg_at_k, "ndcg_at_k", ["z", "x"], labels, 10, 0.0,
               "a query with no relevant chunk has an ideal DCG of 0: NDCG is 0.0 there", "if ideal == 0: return 0.0")
    for query_id, ranked, relevance in _golden_cases(seed=7):
        value = _number(ndcg_at_k, "ndcg_at_k", list(ranked), dict(relevance), 10)
        if not -TOLERANCE <= value <= 1 + TOLERANCE:
            fail(f"NDCG@10 = {value:.4f} on golden query {query_id}, outside [0, 1]: an evaluation bug, most often "
                 "the ideal DCG computed from the wrong list", "Assert 0 <= ndcg <= 1 in your function.")
    return _against_golden_set(ndcg_at_k, "ndcg_at_k", metrics.ndcg_at_k, (3, 10))


# --------------------------------------------------------------------------- the harvest query
PROBE_THREAD = "ckpt-06-harvest"
#: (the user's turn, the search query the tool ran for it, the candidates): the record's own $.question is the tool's
#: query, so a harvest that reads it instead of the user turn shows.
PROBE_SESSION = [("Which error says the vector pool is empty?", "vector pool empty error",
                  ["DOC10-C07", "DOC26-C01", "DOC20-C01"]),
                 ("How do rolling summaries evict old turns?", "rolling summary eviction",
                  ["DOC02-C03", "DOC02-C01"]),
                 ("Which error says the vector pool is empty?", "vector pool empty error",
                  ["DOC26-C01", "DOC10-C07"])]
#: The order the probe logs the retrievals of PROBE_SESSION's turns in: not the order of the turns themselves.
LOG_ORDER = (2, 0, 1)


@checkpoint("the harvest query", hint=("Join TOOL_LOG rows whose tool_name is 'retrieval_result' to the user turn in "
                                       "CONVERSATION_MEMORY named by $.turn_id; return log_id, question, tenant and "
                                       "the $.candidates array, in the log's order ('Closing the loop').",
                                       "FROM tool_log t JOIN conversation_memory u ON u.id = JSON_VALUE(t.arguments, "
                                       "'$.turn_id' RETURNING NUMBER) WHERE t.tool_name = 'retrieval_result' ... "
                                       "JSON_QUERY(t.arguments, '$.candidates') AS candidate_ids ORDER BY t.id"))
def check_harvest_sql(conn, harvest_sql: str) -> str:
    expect_filled(harvest_sql, "harvest_sql")
    expect(isinstance(harvest_sql, str), "harvest_sql must be the SQL text of the harvest query")
    try:
        limited = fetch_clause(harvest_sql).count is not None or any(
            token.text.upper() == "ROWNUM" for token in sql_tokens(harvest_sql))
    except ValueError as exc:
        fail(f"harvest_sql cannot be read as SQL: {exc}", "Write one SELECT statement.")
    expect(not limited, "the harvest limits its rows (FETCH FIRST or ROWNUM): it must return every logged retrieval, "
           "however many the log holds", "Leave out the row limit; the labelling step needs all of them.")
    with savepoint(conn):
        before = {r["log_id"] for r in labelling.harvest(conn)}
        turns = [write_conversation(conn, PROBE_THREAD, "user", question, commit=False)
                 for question, _, _ in PROBE_SESSION]
        for position in LOG_ORDER:                     # logged in another order than the turns were written
            (question, query, ids), turn = PROBE_SESSION[position], turns[position]
            write_tool_log(conn, PROBE_THREAD, "search_chunks", {"query": query}, "[...]", commit=False)
            write_tool_log(conn, PROBE_THREAD, "retrieval_feedback",  # a downstream signal on the same turn
                           {"turn_id": turn, "candidates": ids[:1], "signal": "thumbs-down"}, None, commit=False)
            write_conversation(conn, PROBE_THREAD, "assistant", f"{len(ids)} chunks", commit=False)
            write_retrieval_result(conn, PROBE_THREAD, turn, query, ids, tool="search_chunks", tenant="acme",
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
    expect({r["log_id"]: r["question"] for r in mine} == {r["log_id"]: r["question"] for r in want},
           "the questions do not match their retrievals: the question is the content of the user turn in "
           "CONVERSATION_MEMORY that the record names by $.turn_id (the record's own $.question is the tool's "
           "search query)",
           ("The question is the user turn the record names by its turn id, joined in SQL ('Closing the loop').",
                "ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)"))
    if mine != want and sorted(map(repr, mine)) == sorted(map(repr, want)):
        fail("the harvest has the right rows in another order than the log's: the checker logged its retrievals in "
             "another order than it wrote the user turns, so ordering by the turn (or its time, or the question) is "
             "not the log's order", ("The log's own order is its row id, the order the retrievals happened "
                                     "('Closing the loop').", "ORDER BY t.id (the TOOL_LOG row)."))
    expect(mine == want, "the candidate ids or the order of the rows differ from what was logged "
           "(rows without ORDER BY come back in any order)", ("The candidates are the record's JSON array, and the "
                                                              "rows come in the log's order ('Closing the loop').",
                "JSON_QUERY(t.arguments, '$.candidates'), ORDER BY t.id."))
    expect([r["log_id"] for r in got] == [r["log_id"] for r in again], "running the harvest twice gives another order",
           "ORDER BY t.id.")
    return f"{len(want)} logged retrievals, in order"
