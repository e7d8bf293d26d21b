"""Part 06's checkpoints, fed from the notebook's own cells.

For every TODO: the solution passes, another correct answer passes, the untouched student stub fails
with a friendly CheckpointFailed, and each plausible wrong answer (the table WRONG_ANSWERS) fails with
a reason that names the mistake. The metric cells run in a namespace of their own; the harvest check
runs against a private embedded database and must leave it as it found it.
"""
from __future__ import annotations

import math

import pytest

from checkpoints import part06
from checkpoints.framework import CheckpointFailed
from tests.checkpoints.shared import student_path
from workshop.config import PROJECT_ROOT
from workshop.embedded import connect
from workshop.evaluation import labelling
from workshop.memory.schema import create_memory_tables
from workshop.notebooks import read_notebook

SOLUTION = PROJECT_ROOT / "solutions" / "06_evaluating_retrieval.ipynb"
STUDENT = student_path("06_evaluating_retrieval.ipynb")
TODOS = {"recall_at_k": "p06-todo1", "precision_at_k": "p06-todo2", "mrr_at_k": "p06-todo3",
         "ndcg_at_k": "p06-todo4", "harvest_sql": "p06-todo5"}


def _cells(path) -> dict[str, str]:
    return {cell.id: cell.source for cell in read_notebook(path).cells if cell.cell_type == "code"}


SOLUTION_CELLS = _cells(SOLUTION)
STUDENT_CELLS = _cells(STUDENT)

#: (TODO, mistake, [(old text, new text), ...] applied to the solution cell, text the failure must name)
WRONG_ANSWERS = [
    ("recall_at_k", "recall divided by k", [("/ len(relevant)", "/ k")], "not by k"),
    ("recall_at_k", "recall divided by the list length", [("/ len(relevant)", "/ max(len(ranked[:k]), 1)")],
     "not by k or by the list length"),
    ("recall_at_k", "grade 0 counted as relevant", [("if grade >= 1", "")], "graded 0"),
    ("recall_at_k", "no cutoff", [("ranked[:k]", "ranked")], "first k"),
    ("precision_at_k", "divided by the number retrieved", [("/ k", "/ max(len(ranked[:k]), 1)")], "even when fewer"),
    ("precision_at_k", "no cutoff", [("ranked[:k]", "ranked")], "only the top k"),
    ("precision_at_k", "grade 0 counted as relevant", [("relevance.get(doc, 0) >= 1", "doc in relevance")],
     "grade-0"),
    ("mrr_at_k", "MRR beyond the cutoff", [("ranked[:k]", "ranked")], "below the cutoff"),
    ("mrr_at_k", "grade 0 counted as relevant", [("relevance.get(doc, 0) >= 1", "doc in relevance")],
     "graded 0"),
    ("mrr_at_k", "ranks counted from 0", [("start=1", "start=0"), ("1.0 / rank", "1.0 / (rank or 1)")],
     "ranks start at 1"),
    ("ndcg_at_k", "ideal DCG from the retrieved list",
     [("sorted(relevance.values(), reverse=True)[:k]", "sorted((relevance.get(d, 0) for d in ranked[:k]), reverse=True)")],
     "not from the retrieved list"),
    ("ndcg_at_k", "binary gains on graded labels",
     [("dcg(sorted(relevance.values(), reverse=True)[:k])", "dcg(sorted((1 for g in relevance.values() if g), reverse=True)[:k])"),
      ("relevance.get(doc, 0) for doc", "min(relevance.get(doc, 0), 1) for doc")], "the gain is the grade itself"),
    # issue 21: with 2**grade - 1 gains and a right ideal the first probe blamed the ideal DCG
    ("ndcg_at_k", "exponential gains (another convention than the one stated)",
     [("grade / math.log2", "(2 ** grade - 1) / math.log2")], "the gain is the grade itself"),
    ("ndcg_at_k", "binary gains in dcg, with a right ideal",
     [("grade / math.log2", "(1 if grade >= 1 else 0) / math.log2")], "the gain is the grade itself"),
    ("ndcg_at_k", "discount off by one", [("math.log2(rank + 1)", "math.log2(rank + 2)")], "expected"),
    ("ndcg_at_k", "ideal not cut at k", [("reverse=True)[:k])", "reverse=True))")], "cut"),
    ("ndcg_at_k", "no cutoff on the ranked list", [("for doc in ranked[:k]", "for doc in ranked")], "top k"),
    ("harvest_sql", "other tool calls harvested too", [(" WHERE t.tool_name = 'retrieval_result'\n   AND", " WHERE")],
     "other tool calls"),
    ("harvest_sql", "joined on the log id instead of the turn id",
     [("ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)", "ON u.id = t.id")], ""),
    ("harvest_sql", "no ORDER BY", [("\n ORDER BY t.id", "")], "order"),
    ("harvest_sql", "the whole arguments document as the candidates",
     [("JSON_QUERY(t.arguments, '$.candidates')", "JSON_QUERY(t.arguments, '$')")], ""),
    ("harvest_sql", "a column not aliased", [("AS candidate_ids", "AS candidates")], "candidate_ids"),
    # adversarial review (parts 06-08): mistakes the first table did not hold
    ("recall_at_k", "a duplicate in the ranking counted twice",
     [("len(relevant.intersection(ranked[:k]))", "sum(1 for doc in ranked[:k] if doc in relevant)")], "listed twice"),
    ("recall_at_k", "no guard for a query without relevant chunks", [("    if not relevant:\n        return 0.0\n", "")],
     "divides by zero"),
    ("recall_at_k", "capped recall: divided by min(k, relevant)", [("/ len(relevant)", "/ min(k, len(relevant))")],
     "capped recall"),
    ("recall_at_k", "grade 1 not counted as relevant", [("grade >= 1", "grade >= 2")], "graded 1"),
    ("precision_at_k", "divided by the query's relevant count (recall's denominator)",
     [("/ k", "/ max(sum(1 for g in relevance.values() if g >= 1), 1)")], "is recall"),
    ("precision_at_k", "grade 1 not counted as relevant", [("relevance.get(doc, 0) >= 1", "relevance.get(doc, 0) >= 2")],
     "graded 1"),
    ("precision_at_k", "cut one short of k", [("ranked[:k]", "ranked[:k - 1]")], "rank k"),
    ("mrr_at_k", "cut one short of k", [("ranked[:k]", "ranked[:k - 1]")], "at rank k"),
    ("mrr_at_k", "no return when nothing is relevant", [("            return 1.0 / rank\n    return 0.0",
                                                         "            return 1.0 / rank")], "returned None"),
    ("mrr_at_k", "the last relevant chunk instead of the first",
     [("            return 1.0 / rank\n    return 0.0", "            last = 1.0 / rank\n    return locals().get('last', 0.0)")],
     "first"),
    ("mrr_at_k", "the mean reciprocal rank of every relevant chunk",
     [("    for rank, doc in enumerate(ranked[:k], start=1):\n        if relevance.get(doc, 0) >= 1:\n"
       "            return 1.0 / rank\n    return 0.0",
       "    rr = [1 / r for r, d in enumerate(ranked[:k], start=1) if relevance.get(d, 0) >= 1]\n"
       "    return sum(rr) / len(rr) if rr else 0.0")], "first"),
    ("ndcg_at_k", "no guard for a query without relevant chunks", [("    if ideal == 0:\n        return 0.0\n", "")],
     "divides by zero"),
    ("ndcg_at_k", "the retrieved grades sorted too (order ignored)",
     [("dcg([relevance.get(doc, 0) for doc in ranked[:k]])",
       "dcg(sorted([relevance.get(doc, 0) for doc in ranked[:k]], reverse=True))")], "order of the ranked list"),
    ("ndcg_at_k", "the ideal sorted ascending", [("sorted(relevance.values(), reverse=True)[:k]",
                                                  "sorted(relevance.values())[:k]")], "best first"),
    ("ndcg_at_k", "the ideal cut at the length of the retrieved list",
     [("sorted(relevance.values(), reverse=True)[:k]", "sorted(relevance.values(), reverse=True)[:len(ranked[:k])]")],
     "not at the length"),
    ("ndcg_at_k", "rank 2 left undiscounted (1 / max(1, log2 rank))",
     [("grade / math.log2(rank + 1)", "grade / max(1.0, math.log2(rank))")], "rank 2 is discounted"),
    ("harvest_sql", "the question read from the record instead of the user turn",
     [("u.content AS question", "JSON_VALUE(t.arguments, '$.question') AS question")], "user turn"),
    ("harvest_sql", "a row limit left in", [("\n ORDER BY t.id", "\n ORDER BY t.id\n FETCH FIRST 50 ROWS ONLY")],
     "limits its rows"),
    ("harvest_sql", "a ROWNUM limit left in", [("   AND u.role = 'user'", "   AND u.role = 'user'\n   AND ROWNUM <= 100")],
     "limits its rows"),
    ("harvest_sql", "every retrieval-like tool (LIKE 'retrieval%')",
     [("t.tool_name = 'retrieval_result'", "t.tool_name LIKE 'retrieval%'")], "other tool calls"),
    ("harvest_sql", "joined on the thread instead of the turn",
     [("ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)", "ON u.thread_id = t.thread_id")],
     "each retrieval must appear once"),
    ("harvest_sql", "the candidates read with JSON_VALUE (a scalar)",
     [("JSON_QUERY(t.arguments, '$.candidates')", "JSON_VALUE(t.arguments, '$.candidates')")], "candidate ids"),
    # issue 21: empty input (a search that found nothing)
    ("precision_at_k", "divided by what came back, capped at k", [("/ k", "/ min(k, len(ranked))")], "divides by zero"),
    ("mrr_at_k", "the first id looked up before the loop", [("    for rank, doc in enumerate(ranked[:k], start=1):\n",
                                                             "    ranked[0]\n    for rank, doc in enumerate(ranked[:k], start=1):\n")],
     "an empty ranking"),
    # issue 21: a probe that never exercised the case (the log's order was the turns' order)
    ("harvest_sql", "ordered by the user turn", [("\n ORDER BY t.id", "\n ORDER BY u.id")], "another order than the log's"),
    ("harvest_sql", "ordered by the turn's time", [("\n ORDER BY t.id", "\n ORDER BY u.created_at, u.id")],
     "another order than the log's"),
    ("harvest_sql", "ordered by the question", [("\n ORDER BY t.id", "\n ORDER BY question, t.id")],
     "another order than the log's"),
]

#: Other correct answers: (TODO, code)
OTHER_CORRECT = [
    ("recall_at_k", "def recall_at_k(ranked, relevance, k):\n"
                    "    rel = [d for d, g in relevance.items() if g > 0]\n"
                    "    return sum(d in ranked[:k] for d in rel) / len(rel) if rel else 0.0\n"),
    ("precision_at_k", "def precision_at_k(ranked, relevance, k):\n"
                       "    hits = 0\n    for d in ranked[:k]:\n        hits += relevance.get(d, 0) > 0\n"
                       "    return hits / k\n"),
    ("mrr_at_k", "def mrr_at_k(ranked, relevance, k):\n"
                 "    ranks = [i + 1 for i, d in enumerate(ranked[:k]) if relevance.get(d, 0) >= 1]\n"
                 "    return 1 / ranks[0] if ranks else 0.0\n"),
    ("ndcg_at_k", "import numpy as np\n"
                  "def ndcg_at_k(ranked, relevance, k):\n"
                  "    gains = np.array([relevance.get(d, 0) for d in ranked[:k]], dtype=float)\n"
                  "    ideal = np.array(sorted(relevance.values(), reverse=True)[:k], dtype=float)\n"
                  "    disc = lambda n: 1 / np.log2(np.arange(2, n + 2))\n"
                  "    idcg = float((ideal * disc(len(ideal))).sum())\n"
                  "    return float((gains * disc(len(gains))).sum()) / idcg if idcg else 0.0\n"),
    ("recall_at_k", "def recall_at_k(ranked, relevance, k):\n"
                    "    relevant = {d for d, g in relevance.items() if g >= 1}\n"
                    "    found = set(ranked[:k]) & relevant\n"
                    "    return len(found) / len(relevant) if len(relevant) else 0.0\n"),
    ("precision_at_k", "def precision_at_k(ranked, relevance, k):\n"
                       "    top = ranked[:k]\n"
                       "    return len([d for d in top if relevance.get(d, 0) >= 1]) / float(k)\n"),
    ("mrr_at_k", "def mrr_at_k(ranked, relevance, k):\n"
                 "    first = next((i for i, d in enumerate(ranked) if relevance.get(d, 0) > 0), None)\n"
                 "    return 0.0 if first is None or first >= k else 1.0 / (first + 1)\n"),
    ("ndcg_at_k", "def dcg(grades):\n"
                  "    return sum(g / math.log(r + 1) for r, g in enumerate(grades, start=1))  # any log base: a ratio\n"
                  "def ndcg_at_k(ranked, relevance, k):\n"
                  "    best = dcg(sorted((g for g in relevance.values() if g > 0), reverse=True)[:k])\n"
                  "    return dcg([relevance.get(d, 0) for d in ranked[:k]]) / best if best > 0 else 0.0\n"),
    ("harvest_sql", 'harvest_sql = """SELECT t.id AS log_id, u.content AS question,\n'
                    "       JSON_VALUE(t.arguments, '$.tenant') AS tenant,\n"
                    "       JSON_QUERY(t.arguments, '$.candidates') AS candidate_ids\n"
                    "  FROM tool_log t\n"
                    "  JOIN conversation_memory u ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)\n"
                    "                            AND u.role = 'user'\n"
                    " WHERE t.tool_name IN ('retrieval_result')\n"
                    ' ORDER BY 1"""\n'),
    ("harvest_sql", 'harvest_sql = """SELECT JSON_QUERY(r.arguments, \'$.candidates\') AS candidate_ids,\n'
                    "       r.id AS log_id, q.content AS question, JSON_VALUE(r.arguments, '$.tenant') AS tenant\n"
                    "  FROM conversation_memory q, tool_log r\n"
                    " WHERE r.tool_name = 'retrieval_result'\n"
                    "   AND q.id = JSON_VALUE(r.arguments, '$.turn_id' RETURNING NUMBER)\n"
                    ' ORDER BY log_id"""\n'),
]


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    connection = connect(tmp_path_factory.mktemp("part06") / "workshop.db")
    create_memory_tables(connection)
    yield connection
    connection.close()


def _counts(conn) -> tuple[int, int]:
    with conn.cursor() as cur:
        cur.execute("SELECT (SELECT COUNT(*) FROM tool_log), (SELECT COUNT(*) FROM conversation_memory) FROM dual")
        return cur.fetchone()


def _run(todo: str, source: str, conn=None):
    namespace: dict = {"math": math}
    exec(compile(source, f"<{todo}>", "exec"), namespace)  # noqa: S102 - the notebook's own cell
    check = getattr(part06, f"check_{todo}")
    if todo == "harvest_sql":
        before = _counts(conn)
        try:
            return check(conn, namespace["harvest_sql"])
        finally:
            assert _counts(conn) == before, "the harvest check left rows behind"
    return check(namespace[todo])


def _variant(todo: str, replacements) -> str:
    source = SOLUTION_CELLS[TODOS[todo]]
    for old, new in replacements:
        assert old in source, f"{old!r} is not in the solution of {todo}"
        source = source.replace(old, new)
    return source


@pytest.mark.parametrize("todo", TODOS)
def test_the_solution_passes(todo, conn):
    _run(todo, SOLUTION_CELLS[TODOS[todo]], conn)


@pytest.mark.parametrize(("todo", "source"), OTHER_CORRECT, ids=[t for t, _ in OTHER_CORRECT])
def test_another_correct_answer_passes(todo, source, conn):
    _run(todo, source, conn)


@pytest.mark.parametrize("todo", TODOS)
def test_the_untouched_stub_fails(todo, conn):
    stub = STUDENT_CELLS[TODOS[todo]]
    assert "TODO" in stub and "BEGIN SOLUTION" not in stub
    with pytest.raises(CheckpointFailed, match="not done yet|harvest_sql"):
        _run(todo, stub, conn)


@pytest.mark.parametrize(("todo", "mistake", "replacements", "reason"), WRONG_ANSWERS,
                         ids=[f"{t}: {m}" for t, m, _, _ in WRONG_ANSWERS])
def test_each_wrong_answer_fails(todo, mistake, replacements, reason, conn):
    with pytest.raises(CheckpointFailed) as failure:
        _run(todo, _variant(todo, replacements), conn)
    assert reason in str(failure.value), f"{mistake}: {failure.value}"


def test_the_harvest_check_sees_only_its_own_session(conn):
    """Rows already logged by someone else do not disturb the check (and stay where they are)."""
    from workshop.memory.conversation import write_conversation
    from workshop.memory.retrieval_log import write_retrieval_result
    turn = write_conversation(conn, "someone-else", "user", "an older question")
    write_retrieval_result(conn, "someone-else", turn, "an older question", ["X1"], tool="t", tenant="acme")
    part06.check_harvest_sql(conn, labelling.HARVEST_SQL)
    assert [r["question"] for r in labelling.harvest(conn)][-1] == "an older question"
