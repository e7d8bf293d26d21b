"""Checkpoints of part 02, retrieval strategies (notebooks/02_retrieval_strategies.ipynb).

The expected answers are computed independently: vector rankings with numpy over the PAPERS vectors, the
keyword filter with a plain CONTAINS count, and co-authorship from the shipped data files
(workshop.data), not from the database the learner queries.

    from checkpoints import part02
    part02.check_vector_search(conn, vector_search)            # top-k by cosine distance over PAPERS
    part02.check_hybrid_prefilter(conn, hybrid_prefilter_search)  # CONTAINS in WHERE, vector distance in ORDER BY
    part02.check_coauthor_papers(conn, coauthor_papers)          # GRAPH_TABLE: papers that share an author with a seed
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import oracledb

from workshop.data import load_papers

from .framework import RecordingConnection, checkpoint, expect, expect_keys, expect_ordered_by, fail
from .framework.sql import order_by_keys
from .part01 import cosine_distances, embed_query, expect_nearest, records, top_k

NOTEBOOK = "02_retrieval_strategies.ipynb"

VECTOR_CASES = (  # (query, k)
    ("deciding which earlier conversations an assistant should recall", 5),
    ("how much memory a vector index needs", 1),
    ("merging keyword and embedding result lists", 7),
)
PREFILTER_CASES = (  # (query, keywords, k): the keyword filter changes the answer in each case
    ("keeping promises made to customers", "{commitments}", 3),
    ("agents that remember users across sessions", "{tenant} OR {tenants}", 4),
    ("faster search over many vectors", "{index} OR {indexes}", 6),
    ("what the summary must not lose", "{LEDGER}", 5),      # fewer matching papers than k: return only those
)
GRAPH_SEEDS = ("2312.13046", "2410.07433", "2307.00354")  # the seeds of the golden multi-hop paper queries

VECTOR_HINT = ("SELECT arxiv_id, title, VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING(<model> USING :query AS data), "
               "COSINE) AS distance FROM papers ORDER BY distance FETCH APPROX FIRST :k ROWS ONLY")
PREFILTER_HINT = ("Keep the keyword condition in the WHERE clause (CONTAINS(abstract, :keywords, 1) > 0) and order "
                  "the survivors by VECTOR_DISTANCE(embedding, <query embedding>, COSINE), then FETCH FIRST :k.")
GRAPH_HINT = ("MATCH (src IS paper) <-[IS wrote]- (a IS author) -[IS wrote]-> (dst IS paper) WHERE src.arxiv_id = "
              ":seed AND dst.arxiv_id <> src.arxiv_id; then GROUP BY the paper and COUNT(DISTINCT author) AS "
              "shared_authors, ORDER BY shared_authors DESC, arxiv_id.")


# --------------------------------------------------------------------------- TODO 1
@checkpoint("vector search over PAPERS", hint=[
    "Order PAPERS by the cosine distance between EMBEDDING and the question's embedding, nearest first, and keep k "
    "rows (part 01, section 3, did the same on PAPER_VECTORS).", VECTOR_HINT])
def check_vector_search(conn: oracledb.Connection, vector_search: Callable[..., Any]) -> str:
    """vector_search(conn, query, k): the k papers nearest to the query by cosine distance, nearest first."""
    ids, matrix = _paper_vectors(conn)
    for query, k in VECTOR_CASES:
        call = f"vector_search(conn, {query!r}, k={k})"
        recorder = RecordingConnection(conn)
        rows = _list_of_rows(vector_search(recorder, query, k=k), call,
                             'seed = vector_search(conn, question, k=1)[0]["arxiv_id"]')
        expect(len(rows) <= k, f"{call} returned {len(rows)} rows, expected at most k = {k}",
               "Limit the result with FETCH APPROX FIRST :k ROWS ONLY (bind k).")
        expect_keys(rows, ["arxiv_id", "title", "distance"], what="row")
        expect_ordered_by(rows, "distance", what="rows", hint="Nearest first: ORDER BY distance (ascending).")
        distances = cosine_distances(matrix, embed_query(conn, query))
        expected = top_k(ids, distances, k)
        expect(len(rows) == k, f"{call} returned {len(rows)} rows, expected {k}",
               "PAPERS has enough rows: return exactly k.")
        expect_nearest(conn, rows, expected, dict(zip(ids, distances.tolist())), call, VECTOR_HINT, approximate=True)
        expect_work_in_sql(recorder, call, len(rows), bound={"query": query})
    return f"{len(VECTOR_CASES)} questions: same papers, distances and order as numpy; k and the question bound"


# --------------------------------------------------------------------------- TODO 2
@checkpoint("hybrid search with a keyword pre-filter", hint=[
    "The keyword condition filters (WHERE), the vector distance orders, and the row limit comes last (section 3).",
    PREFILTER_HINT])
def check_hybrid_prefilter(conn: oracledb.Connection, hybrid_prefilter_search: Callable[..., Any]) -> str:
    """hybrid_prefilter_search(conn, query, keywords, k): among the papers whose abstract CONTAINS `keywords`,
    the k nearest to `query`, nearest first."""
    ids, matrix = _paper_vectors(conn)
    position = {arxiv_id: i for i, arxiv_id in enumerate(ids)}
    for query, keywords, k in PREFILTER_CASES:
        call = f"hybrid_prefilter_search(conn, {query!r}, {keywords!r}, k={k})"
        recorder = RecordingConnection(conn)
        rows = _list_of_rows(hybrid_prefilter_search(recorder, query, keywords, k=k), call,
                             "marked(hybrid_prefilter_search(...), question), row by row")
        expect(len(rows) <= k, f"{call} returned {len(rows)} rows, expected at most k = {k}",
               "Limit the result with FETCH FIRST :k ROWS ONLY (bind k).")
        expect_keys(rows, ["arxiv_id", "title", "distance", "keyword_score"], what="row",
                    hint="Return arxiv_id, title, distance and keyword_score (SCORE(1), the label of CONTAINS(..., "
                         "1)).")
        matching = _contains(conn, keywords)
        outside = [r["arxiv_id"] for r in rows if r["arxiv_id"] not in matching]
        expect(not outside, f"{call} returned papers whose abstract does not contain {keywords}: {outside[:3]}",
               ('A pre-filter is a WHERE condition: only keyword matches are ranked by distance (section 3).',
                "The keyword condition belongs in the WHERE clause: CONTAINS(abstract, :keywords, 1) > 0."))
        expect_ordered_by(rows, "distance", what="rows",
                          hint="Order the keyword matches by vector distance (ascending), not by SCORE.")
        pool = sorted(matching)
        distances = cosine_distances(matrix, embed_query(conn, query))
        expected = top_k(pool, distances[[position[i] for i in pool]], k)
        expect(len(rows) == len(expected),
               f"{call} returned {len(rows)} rows, expected {len(expected)} ({len(matching)} abstracts match "
               f"{keywords})",
               "Filter first, then take the top k: a vector top-k filtered afterwards (a post-filter) loses rows.")
        expect_nearest(conn, rows, expected, dict(zip(ids, distances.tolist())), call, PREFILTER_HINT)
        wrong = [(r["arxiv_id"], r["keyword_score"], matching[r["arxiv_id"]]) for r in rows
                 if not isinstance(r["keyword_score"], (int, float)) or isinstance(r["keyword_score"], bool)
                 or abs(float(r["keyword_score"]) - matching[r["arxiv_id"]]) > 1e-6]
        expect(not wrong, f"{call}: keyword_score is not the CONTAINS score, e.g. (id, yours, SCORE(1)) {wrong[:2]}",
               "keyword_score is SCORE(1): the relevance Oracle Text gives the match labelled 1 in "
               "CONTAINS(abstract, :keywords, 1).")
        expect_work_in_sql(recorder, call, len(rows), bound={"query": query, "keywords": keywords})
    return f"{len(PREFILTER_CASES)} searches: only keyword matches, nearest first, k respected, SCORE(1) returned"


# --------------------------------------------------------------------------- TODO 3
@checkpoint("graph retrieval with GRAPH_TABLE", hint=[
    "Walk from the seed paper to its authors and on to their other papers (GRAPH_TABLE ... MATCH, section 5), then "
    "count the shared authors per paper.", GRAPH_HINT])
def check_coauthor_papers(conn: oracledb.Connection, coauthor_papers: Callable[..., Any]) -> str:
    """coauthor_papers(conn, seed_id): every other paper that shares an author with the seed, with the number of
    shared authors, most shared first (ties by arxiv_id); checked against the authorship in workshop.data."""
    titles = {p["arxiv_id"]: p["title"] for p in load_papers()}
    total = 0
    for seed in GRAPH_SEEDS:
        call = f"coauthor_papers(conn, {seed!r})"
        recorder = RecordingConnection(conn)
        rows = _list_of_rows(coauthor_papers(recorder, seed), call,
                             'shared = {r["arxiv_id"]: r["shared_authors"] for r in coauthor_papers(conn, seed)}')
        expect_keys(rows, ["arxiv_id", "title", "shared_authors"], what="row")
        expected = expected_coauthor_papers(seed)
        got_ids = [r["arxiv_id"] for r in rows]
        expect(seed not in got_ids, f"{call} returned the seed paper itself",
               "A paper always shares its authors with itself: exclude it with dst.arxiv_id <> src.arxiv_id.")
        repeated = sorted(i for i, n in Counter(got_ids).items() if n > 1)
        expect(not repeated, f"{call} lists {repeated[:3]} more than once (once per shared author)",
               "One row per paper: GROUP BY the paper and COUNT(DISTINCT the author) AS shared_authors.")
        missing = [i for i, _ in expected if i not in got_ids]
        extra = [i for i in got_ids if i not in dict(expected)]
        if missing or extra:
            fail(f"{call} returned {len(rows)} papers, expected {len(expected)} (missing {missing[:3]}, unexpected "
                 f"{extra[:3]})",
                 ('Edges have a direction: an author WROTE a paper, so from the seed you walk back to its authors, '
                  'then forward to their papers (section 5).',
                "Follow the edges the way they point: an author WROTE a paper, (a IS author) -[IS wrote]-> "
                 "(p IS paper); from the seed that is <-[IS wrote]- then -[IS wrote]->."))
        wrong_counts = [(r["arxiv_id"], r["shared_authors"], dict(expected)[r["arxiv_id"]]) for r in rows
                        if r["shared_authors"] != dict(expected)[r["arxiv_id"]]]
        expect(not wrong_counts, f"{call}: wrong shared_authors (id, yours, expected) {wrong_counts[:3]}",
               "shared_authors = COUNT(DISTINCT author id) per paper.")
        wrong_titles = [r["arxiv_id"] for r in rows if r["title"] != titles[r["arxiv_id"]]]
        expect(not wrong_titles, f"{call}: titles that do not belong to their paper: {wrong_titles[:3]}",
               "Return dst.title, the title of the co-authored paper (not the seed's).")
        if got_ids != [i for i, _ in expected]:
            fail(f"{call} returned the right papers in the wrong order: {got_ids[:4]}..., expected "
                 f"{[i for i, _ in expected][:4]}...", ("Most shared authors first, and a rule for papers with "
                                                       "equally many (section 5).",
                                                       "ORDER BY shared_authors DESC, arxiv_id."))
        queries = recorder.queries()
        keys = _order_keys(queries[-1].sql) if queries else None
        if keys is not None and (not keys or keys[-1] != "ARXIV_ID"):
            fail(f"{call}: the ORDER BY does not end with arxiv_id ({', '.join(k or '?' for k in keys) or 'no ORDER BY'}):"
                 " papers with the same number of shared authors come back in whatever order the database groups "
                 "them (this database happens to sort them; Oracle's hash grouping does not)",
                 ("Ties need a rule of their own: the prose asks for most shared first, then by arxiv_id.",
                  "ORDER BY shared_authors DESC, arxiv_id."))
        expect_work_in_sql(recorder, call, len(rows), bound={"seed": seed},
                           hint="Let SQL do the grouping: GROUP BY the paper with COUNT(DISTINCT author_id), and the "
                                "order: ORDER BY shared_authors DESC, arxiv_id.")
        total += len(rows)
    return f"{len(GRAPH_SEEDS)} seeds, {total} co-authored papers, same as the authorship data"


def expected_coauthor_papers(seed: str) -> list[tuple[str, int]]:
    """(arxiv_id, shared author count) of every other paper sharing an author with `seed`, most shared first, from
    the shipped paper records (the set-up loaded the same files, but this does not ask the database)."""
    authors = {p["arxiv_id"]: set(p["author_ids"]) for p in load_papers()}
    if seed not in authors:
        raise ValueError(f"unknown paper {seed!r}")
    shared = {pid: len(names & authors[seed]) for pid, names in authors.items() if pid != seed}
    return sorted(((pid, n) for pid, n in shared.items() if n), key=lambda pair: (-pair[1], pair[0]))


# --------------------------------------------------------------------------- internals
def _list_of_rows(result: Any, call: str, next_cell: str) -> list[dict]:
    """The learner's rows, which must be a list (of dicts): the notebook's next cells index and iterate it."""
    if result is not None and not isinstance(result, list):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts: the next cells use it as a list "
             f"({next_cell})", ("Return the rows themselves: a list with one dict per row (section 2, 'rows as "
                                "dicts').", "return [dict(zip(names, row)) for row in cur.fetchall()] (or "
                                            "rows_as_dicts(cur)), not a DataFrame or a generator."))
    return records(result, "rows")


def _order_keys(sql: str) -> list[str] | None:
    """The outer ORDER BY keys of the learner's statement; None when its text cannot be read."""
    try:
        return order_by_keys(sql)
    except ValueError:
        return None



def _paper_vectors(conn: oracledb.Connection) -> tuple[list[str], np.ndarray]:
    with conn.cursor() as cur:
        cur.execute("SELECT arxiv_id, embedding FROM papers ORDER BY arxiv_id")
        rows = cur.fetchall()
    expect(rows and all(r[1] is not None for r in rows), "PAPERS has no embeddings",
           "Run python -m workshop.setup (notebook 00's doctor says what is missing).")
    return [r[0] for r in rows], np.array([np.asarray(r[1], np.float64) for r in rows])


def _contains(conn: oracledb.Connection, keywords: str) -> dict[str, float]:
    """arxiv_id -> SCORE of every paper whose abstract matches the Oracle Text expression."""
    with conn.cursor() as cur:
        cur.execute("SELECT arxiv_id, SCORE(1) FROM papers WHERE CONTAINS(abstract, :keywords, 1) > 0",
                    {"keywords": keywords})
        return {r[0]: float(r[1]) for r in cur.fetchall()}


def expect_work_in_sql(recorder: RecordingConnection, call: str, returned: int, *, bound: dict[str, str],
                       hint: str | None = None) -> None:
    """The learner's SQL did the work: no more rows fetched than returned (no slicing, filtering or grouping in
    Python), and every value bound, not formatted into the SQL text."""
    fetched = recorder.rows_fetched
    expect(fetched <= returned, f"{call} fetched {fetched} rows from the database and returned {returned}",
           hint or "Let the query return only the answer: the filter, the order and FETCH FIRST :k ROWS ONLY belong "
                   "in SQL, not in a slice or a loop in Python.")
    for name, value in bound.items():
        formatted = [st for st in recorder.statements if value in st.sql]
        expect(not formatted, f"{call} wrote the {name} into the SQL text instead of binding it",
               f"Pass it as a bind variable (:{name}): text formatted into SQL breaks on quotes and lets a user "
               "rewrite the query.")


#: Deprecated positional aliases, kept so the part 02 tests run unchanged; notebooks call check_<name>.
todo_1, todo_2, todo_3 = check_vector_search, check_hybrid_prefilter, check_coauthor_papers
