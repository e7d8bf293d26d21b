"""Checkpoints of part 01, vector search (notebooks/01_vector_search.ipynb).

Every check asks the live database, and computes what the right answer is on its own (numpy over
the stored vectors, or SQL the learner did not write), so a stub or a plausible wrong answer fails
with a reason and a hint.

    from checkpoints import part01
    part01.check_paper_vectors(conn)                             # PAPER_VECTORS created, filled, committed
    part01.check_vector_index(conn)                             # a vector index on PAPER_VECTORS(EMBEDDING)
    part01.check_search_papers(conn, search_papers)              # filtered top-k search function
    part01.check_papers_store(conn, papers_vs, search_store)    # OracleVS store and a metadata-filtered search
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import oracledb

from workshop import config, schema

from .framework.registry import todo_ref
from .framework import (checkpoint, expect, expect_column, expect_committed, expect_filled, expect_index,
                        expect_keys, expect_ordered_by, expect_row_count, expect_table, fail)

NOTEBOOK = "01_vector_search.ipynb"

TABLE = "PAPER_VECTORS"
STORE_TABLE = "PAPERS_VS"
#: Cosine distance above which a row's vector is not an embedding of its own title and abstract. Measured on
#: the workshop data with all-MiniLM-L6-v2: title || '. ' || abstract is within 0.03 of PAPERS.EMBEDDING,
#: the abstract alone within 0.16, the title alone up to 0.57, the body up to 0.46.
OWN_TEXT_DISTANCE = 0.2
#: Distances are compared to 4 decimals: both engines compute them in float32.
DISTANCE_TOLERANCE = 1e-4
#: Share of the exact top k an approximate (HNSW) answer must hold on Oracle AI Database (see
#: approximate_hits_needed: one miss is always allowed for k > 1).
APPROX_RECALL = 0.8

SEARCH_CASES = (  # (query, subject, k): the subject filter changes the answer in each case
    ("keeping a chatbot's memory of earlier sessions", "cs.CL", 4),
    ("filtering rows during approximate nearest neighbour search", "cs.DB", 6),
    ("combining keyword and semantic rankings", None, 3),
)
STORE_CASES = (
    ("indexes that find similar vectors quickly", "cs.DB", 3),
    ("agents that remember what users told them", "cs.CL", 5),
)


# --------------------------------------------------------------------------- shared helpers (part02 uses them)
def model_name() -> str:
    """The in-database embedding model the notebooks use (EMBED_MODEL), as an identifier for SQL."""
    return schema.identifier(config.embedding_model_name())


def embed_query(conn: oracledb.Connection, text: str) -> np.ndarray:
    """The query's embedding, computed in the database the way the learner's SQL computes it."""
    with conn.cursor() as cur:
        cur.execute(f"SELECT VECTOR_EMBEDDING({model_name()} USING :text AS data) FROM dual", {"text": text})
        return np.asarray(cur.fetchone()[0], dtype=np.float64)


def records(result: Any, what: str) -> list[dict]:
    """A learner's result rows as dicts with lower-case keys: a list of dicts or a pandas DataFrame."""
    if result is None:
        fail(f"the function returned None instead of {what}",
             "Make sure your function ends with `return` and the list of rows.")
    if hasattr(result, "to_dict") and hasattr(result, "columns"):
        result = result.to_dict("records")
    if isinstance(result, (str, bytes, Mapping)) or not hasattr(result, "__iter__"):
        fail(f"expected a list of {what}, got {type(result).__name__}",
             "Return a list with one dict per row, e.g. [{'arxiv_id': ..., 'distance': ...}, ...].")
    rows = list(result)
    for position, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            fail(f"row {position} is a {type(row).__name__}, expected a dict",
                 "Turn each fetched tuple into a dict: dict(zip(column_names, row)).")
    return [{str(key).lower(): value for key, value in row.items()} for row in rows]


def cosine_distances(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """1 - cosine similarity of every row of `matrix` with `query` (what VECTOR_DISTANCE ... COSINE returns)."""
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    return 1.0 - (matrix @ query) / norms


def top_k(ids: list[str], distances: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The k nearest (id, distance) pairs, ties broken by id (as ORDER BY distance, id would)."""
    order = sorted(range(len(ids)), key=lambda i: (round(float(distances[i]), 6), ids[i]))
    return [(ids[i], float(distances[i])) for i in order[:k]]


def answers_exactly(conn: oracledb.Connection) -> bool:
    """True on the embedded engine, which answers FETCH APPROX with an exact search; Oracle's HNSW index may miss
    a true neighbour now and then, so checks accept a near-exact top k there."""
    from workshop.embedded import EmbeddedConnection
    return isinstance(conn, EmbeddedConnection)


def approximate_hits_needed(k: int) -> int:
    """How many of the exact top k an approximate answer must hold: APPROX_RECALL of them, at most one missed."""
    return max(1, min(math.ceil(APPROX_RECALL * k), k - 1))


def expect_nearest(conn: oracledb.Connection, rows: list[dict], expected: list[tuple[str, float]],
                   distances: Mapping[str, float], call: str, hint: str, *, approximate: bool = False) -> None:
    """`rows` (dicts with arxiv_id and distance) are the nearest ones: each distance is the true cosine distance of
    its row (`distances`: id -> distance), and the ids are the exact top k of `expected` (ties of equal distance
    may swap). With `approximate` (a FETCH APPROX search) on Oracle AI Database, at least APPROX_RECALL of the
    exact top k must be there."""
    got = [r["arxiv_id"] for r in rows]
    got_distances = [float(r["distance"]) for r in rows]
    off = [(i, round(d, 4), round(distances[i], 4)) for i, d in zip(got, got_distances)
           if i in distances and abs(d - distances[i]) > DISTANCE_TOLERANCE]
    expect(not off, f"{call}: the distances are not cosine distances, e.g. (id, yours, expected) {off[:2]}",
           "Use VECTOR_DISTANCE(embedding, <query vector>, COSINE): the index was built for COSINE.")
    want = [i for i, _ in expected]
    if got == want:
        return
    if sorted(got) == sorted(want) and all(abs(a - b) <= DISTANCE_TOLERANCE for a, b in
                                           zip(sorted(got_distances), sorted(d for _, d in expected))):
        return
    missing = [i for i in want if i not in got]
    extra = [i for i in got if i not in want]
    if approximate and not answers_exactly(conn) and not [i for i in got if i not in distances] \
            and len(set(got) & set(want)) >= approximate_hits_needed(len(want)):
        return
    if not missing and not extra:
        fail(f"{call} returned the right papers in the wrong order: {got}, expected {want}", hint)
    fail(f"{call} returned {got}, expected the nearest {want} (missing {missing}, unexpected {extra})", hint)


# --------------------------------------------------------------------------- TODO 1
@checkpoint("PAPER_VECTORS, filled in the database")
def check_paper_vectors(conn: oracledb.Connection) -> str:
    """PAPER_VECTORS has the four columns, one committed row per paper, each with the embedding of its text."""
    expect_table(conn, TABLE, hint="Run your CREATE TABLE paper_vectors (...) statement in the TODO cell.")
    expect_column(conn, TABLE, "arxiv_id", "VARCHAR2")
    expect_column(conn, TABLE, "title", "VARCHAR2")
    expect_column(conn, TABLE, "primary_subject", "VARCHAR2")
    expect_column(conn, TABLE, "embedding", "VECTOR", dims=schema.EMBEDDING_DIMENSIONS, fmt="FLOAT32",
                  hint="The model returns 384 float32 numbers: declare embedding VECTOR(384, FLOAT32), then drop "
                       "and re-create the table.")
    papers = _scalar(conn, "SELECT COUNT(*) FROM papers")
    expect_committed(conn, TABLE, at_least=1,
                     hint="Fill the table with INSERT INTO paper_vectors ... SELECT ... FROM papers, then "
                          "conn.commit().")
    expect_row_count(conn, TABLE, exactly=papers,
                     hint="Insert one row per paper (INSERT ... SELECT ... FROM papers, no WHERE); if you ran the "
                          "INSERT twice, re-run the whole TODO cell (it drops the table first).")
    ids = _scalar(conn, f"SELECT COUNT(DISTINCT arxiv_id) FROM {TABLE}")
    expect(ids == papers, f"{TABLE} has {papers} rows but only {ids} distinct arxiv_id values",
           "Make arxiv_id the PRIMARY KEY and insert each paper once.")
    unmatched = _scalar(conn, f"""SELECT COUNT(*) FROM {TABLE} v
        WHERE NOT EXISTS (SELECT 1 FROM papers p WHERE p.arxiv_id = v.arxiv_id AND p.title = v.title
                          AND p.primary_subject = v.primary_subject)""")
    expect(unmatched == 0, f"{unmatched} rows do not carry their paper's arxiv_id, title and primary_subject",
           "SELECT arxiv_id, title, primary_subject from PAPERS in the same order as your column list.")
    empty = _scalar(conn, f"SELECT COUNT(*) FROM {TABLE} WHERE embedding IS NULL")
    expect(empty == 0, f"{empty} rows have no embedding (NULL)",
           f"Compute it in the INSERT: VECTOR_EMBEDDING({model_name()} USING title || '. ' || abstract AS data).")
    far = _scalar(conn, f"""SELECT COUNT(*) FROM {TABLE} v JOIN papers p ON p.arxiv_id = v.arxiv_id
        WHERE VECTOR_DISTANCE(v.embedding, p.embedding, COSINE) > :limit""", {"limit": OWN_TEXT_DISTANCE})
    expect(far == 0, f"{far} of {papers} embeddings are not embeddings of their paper's title and abstract "
                     f"(cosine distance to PAPERS.EMBEDDING above {OWN_TEXT_DISTANCE})",
           f"Embed each row's own text: VECTOR_EMBEDDING({model_name()} USING title || '. ' || abstract AS data).")
    return f"{papers} rows, VECTOR(384, FLOAT32), committed"


# --------------------------------------------------------------------------- TODO 2
@checkpoint("an HNSW vector index on PAPER_VECTORS")
def check_vector_index(conn: oracledb.Connection) -> str:
    """A VECTOR index on PAPER_VECTORS(EMBEDDING), and the table still holds the committed rows of TODO 1."""
    expect_table(conn, TABLE, hint=f"Run {todo_ref(__name__, 'paper_vectors')} first: the index goes on PAPER_VECTORS.")
    name = expect_index(conn, table=TABLE, column="embedding", kind="VECTOR",
                        hint="CREATE VECTOR INDEX paper_vectors_hnsw ON paper_vectors (embedding) ORGANIZATION "
                             "INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95")
    expect_committed(conn, TABLE, at_least=1, hint=f"Re-run {todo_ref(__name__, 'paper_vectors')}: the index is only useful on a filled table.")
    return f"{name} (INDEX_TYPE VECTOR) on {TABLE}(EMBEDDING)"


# --------------------------------------------------------------------------- TODO 3
SEARCH_HINT = ("SELECT arxiv_id, title, primary_subject, VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING(<model> USING "
               ":query AS data), COSINE) AS distance FROM paper_vectors [WHERE primary_subject = :subject] ORDER BY "
               "distance FETCH APPROX FIRST :k ROWS ONLY")


@checkpoint("filtered similarity search", hint=SEARCH_HINT)
def check_search_papers(conn: oracledb.Connection, search_papers: Callable[..., Any]) -> str:
    """search_papers(conn, query, subject, k): the k nearest papers of that subject (all when None), nearest first,
    with the cosine distance; checked against numpy over PAPER_VECTORS."""
    expect_filled(search_papers, "search_papers")
    expect_table(conn, TABLE, hint=f"Run {todo_ref(__name__, 'paper_vectors')} first: search_papers reads PAPER_VECTORS.")
    ids, subjects, matrix = _vectors(conn)
    for query, subject, k in SEARCH_CASES:
        call = f"search_papers(conn, {query!r}, subject={subject!r}, k={k})"
        rows = records(search_papers(conn, query, subject=subject, k=k), "rows")
        expect(len(rows) <= k, f"{call} returned {len(rows)} rows, expected at most k = {k}",
               "Limit the result: FETCH APPROX FIRST :k ROWS ONLY (bind k, do not hard-code it).")
        expect_keys(rows, ["arxiv_id", "title", "primary_subject", "distance"], what="row")
        if subject is not None:
            wrong = [r["arxiv_id"] for r in rows if r["primary_subject"] != subject]
            expect(not wrong, f"{call} returned papers of other subjects: {wrong[:3]}",
                   "Filter in SQL: WHERE primary_subject = :subject (only when subject is not None).")
        expect_ordered_by(rows, "distance", what="rows",
                          hint="Nearest first: ORDER BY the distance ascending (smaller distance = more similar).")
        mask = np.ones(len(ids), bool) if subject is None else np.array([s == subject for s in subjects])
        pool = [i for i, keep in zip(ids, mask) if keep]
        expected = top_k(pool, cosine_distances(matrix[mask], embed_query(conn, query)), k)
        expect(len(rows) == len(expected), f"{call} returned {len(rows)} rows, expected {len(expected)}",
               "Return k rows when the table has that many: check your WHERE clause and FETCH FIRST :k.")
        all_distances = dict(zip(ids, cosine_distances(matrix, embed_query(conn, query)).tolist()))
        expect_nearest(conn, rows, expected, all_distances, call,
                       "Order by the cosine distance between the stored embedding and the query's embedding.",
                       approximate=True)
    return f"{len(SEARCH_CASES)} searches: filter honoured, k respected, nearest first, same as numpy"


# --------------------------------------------------------------------------- TODO 4
STORE_HINT = ("similarity_search(query, k=k, filter={'primary_subject': subject}) lets the database filter before it "
              "takes the top k.")


@checkpoint("an OracleVS store with a metadata filter", hint=STORE_HINT)
def check_papers_store(conn: oracledb.Connection, papers_vs: Any, search_store: Callable[..., Any]) -> str:
    """papers_vs: OracleVS over PAPERS_VS, embedded in the database; search_store(store, query, subject, k): k
    Documents of that subject, nearest first, checked against SQL over PAPERS_VS."""
    from langchain_oracledb import OracleEmbeddings, OracleVS

    expect_filled(papers_vs, "papers_vs")
    expect(isinstance(papers_vs, OracleVS), f"papers_vs is a {type(papers_vs).__name__}, expected an OracleVS",
           "Create it with OracleVS.from_documents(docs, embeddings, client=conn, table_name=STORE_TABLE, "
           "distance_strategy=DistanceStrategy.COSINE).")
    expect(papers_vs.table_name == f'"{STORE_TABLE}"',
           f"papers_vs stores its rows in {papers_vs.table_name}, expected {STORE_TABLE}",
           "Pass table_name=STORE_TABLE ('PAPERS_VS', upper case: langchain-oracledb quotes the name).")
    embeddings = papers_vs.embedding_function
    provider = getattr(embeddings, "params", {}).get("provider") if isinstance(embeddings, OracleEmbeddings) else None
    expect(provider == "database",
           f"papers_vs embeds with {type(embeddings).__name__}"
           + (f" (provider {provider!r})" if isinstance(embeddings, OracleEmbeddings) else ""),
           "Use OracleEmbeddings(conn=conn, params={'provider': 'database', 'model': MODEL}): the database computes "
           "the vectors with the same model as VECTOR_EMBEDDING.")
    expect(str(getattr(embeddings, "params", {}).get("model", "")).upper() == model_name(),
           f"papers_vs embeds with model {embeddings.params.get('model')!r}, the tables use {model_name()}",
           "Pass params={'provider': 'database', 'model': MODEL}.")
    expect_column(conn, STORE_TABLE, "embedding", "VECTOR", dims=schema.EMBEDDING_DIMENSIONS)
    papers = _scalar(conn, "SELECT COUNT(*) FROM papers")
    expect_committed(conn, STORE_TABLE, at_least=1)
    expect_row_count(conn, STORE_TABLE, exactly=papers,
                     hint="Add each paper once: re-run the whole TODO cell (it drops PAPERS_VS first).")
    expect_filled(search_store, "search_store")
    for query, subject, k in STORE_CASES:
        call = f"search_store(papers_vs, {query!r}, {subject!r}, k={k})"
        docs = search_store(papers_vs, query, subject, k=k)
        expect(isinstance(docs, list) and all(hasattr(d, "metadata") and hasattr(d, "page_content") for d in docs),
               f"{call} returned {type(docs).__name__}, expected a list of langchain Documents",
               "Return what similarity_search returns.")
        expect(len(docs) <= k, f"{call} returned {len(docs)} documents, expected at most {k}", "Pass k=k.")
        wrong = [d.metadata.get("arxiv_id") for d in docs if d.metadata.get("primary_subject") != subject]
        expect(not wrong, f"{call} returned documents of other subjects: {wrong[:3]}", STORE_HINT)
        want = _store_expected(conn, query, subject, k)
        expect(len(docs) == len(want),
               f"{call} returned {len(docs)} documents, expected {len(want)} (the store has enough {subject} papers)",
               "Filter inside the search (filter=...), not afterwards in Python: filtering the top k afterwards "
               "leaves fewer than k.")
        got = [d.metadata.get("arxiv_id") for d in docs]
        if got != [i for i, _ in want]:
            exact = answers_exactly(conn)
            enough = len(set(got) & {i for i, _ in want}) >= approximate_hits_needed(len(want))
            if exact or not enough:     # OracleVS searches with FETCH APPROX: near-exact is right on Oracle
                fail(f"{call} returned {got}, expected {[i for i, _ in want]} (the nearest {subject} papers, in "
                     "order)", STORE_HINT)
    return f"{papers} documents embedded in the database; {len(STORE_CASES)} filtered searches right"


# --------------------------------------------------------------------------- internals
def _scalar(conn: oracledb.Connection, sql: str, binds: dict | None = None) -> Any:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchone()[0]


def _vectors(conn: oracledb.Connection) -> tuple[list[str], list[str], np.ndarray]:
    with conn.cursor() as cur:
        cur.execute(f"SELECT arxiv_id, primary_subject, embedding FROM {TABLE} ORDER BY arxiv_id")
        rows = cur.fetchall()
    expect(rows and all(r[2] is not None for r in rows), f"{TABLE} is empty or has rows without embeddings",
           f"Re-run {todo_ref(__name__, 'paper_vectors')}.")
    return [r[0] for r in rows], [r[1] for r in rows], np.array([np.asarray(r[2], np.float64) for r in rows])


def _store_expected(conn: oracledb.Connection, query: str, subject: str, k: int) -> list[tuple[str, float]]:
    """The k nearest PAPERS_VS rows of `subject`, computed with SQL the learner did not write."""
    with conn.cursor() as cur:
        cur.execute(f"""SELECT JSON_VALUE(metadata, '$.arxiv_id') AS arxiv_id,
                   VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({model_name()} USING :q AS data), COSINE) AS d
            FROM {STORE_TABLE}
            WHERE JSON_VALUE(metadata, '$.primary_subject') = :s
            ORDER BY d, arxiv_id
            FETCH FIRST :k ROWS ONLY""", {"q": query, "s": subject, "k": k})
        rows = cur.fetchall()
    if any(math.isnan(float(d)) for _, d in rows):
        fail(f"{STORE_TABLE} holds vectors that give NaN distances", "Re-run the TODO cell.")
    return [(i, float(d)) for i, d in rows]
