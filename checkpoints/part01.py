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

from .framework.needs import needs as _needs
from .framework import (RecordingConnection, RecordingStore, checkpoint, expect, expect_bound, expect_column,
                        expect_committed, expect_database_limits, expect_filled, expect_keys, expect_ordered_by,
                        expect_queried, expect_row_count, expect_store_searched, expect_table, fail, find_indexes,
                        primary_key, vector_index)
from .framework.registry import todo_ref

def needs(todo: str, *values) -> None:
    """In a cell that uses a TODO's result: one line naming the TODO when it is not done yet (framework.needs)."""
    _needs(__name__, todo, *values)


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
SEARCH_EDGE_CASES = (  # subjects the first cases do not exercise: fewer papers than k, and none at all
    ("keeping stored memories away from attackers", "cs.CR", 6),
    ("a subject nobody publishes in", "cs.XX", 3),
)
STORE_CASES = (
    ("indexes that find similar vectors quickly", "cs.DB", 3),
    ("agents that remember what users told them", "cs.CL", 5),
    ("keeping stored memories away from attackers", "cs.CR", 6),   # fewer papers of the subject than k
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
    from workshop.db import is_embedded
    return is_embedded(conn)


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


# --------------------------------------------------------------------------- TODO paper_vectors
PAPER_VECTORS_HINT = (
    "Read section 4, 'TODO 1: your own vector table': the column table, then one INSERT ... SELECT from PAPERS that "
    "calls VECTOR_EMBEDDING for every row, then conn.commit().",
    "CREATE TABLE paper_vectors (arxiv_id VARCHAR2(20) PRIMARY KEY, title VARCHAR2(500), primary_subject "
    "VARCHAR2(20), embedding VECTOR(384, FLOAT32)); INSERT INTO paper_vectors (...) SELECT arxiv_id, title, "
    "primary_subject, VECTOR_EMBEDDING(<model> USING title || '. ' || abstract AS data) FROM papers; commit.")


@checkpoint("PAPER_VECTORS, filled in the database", hint=PAPER_VECTORS_HINT)
def check_paper_vectors(conn: oracledb.Connection) -> str:
    """PAPER_VECTORS has the four columns and arxiv_id as its primary key, one committed row per paper, each with
    the embedding of its own title and abstract."""
    expect_table(conn, TABLE, hint=("Run your CREATE TABLE paper_vectors (...) statement in the TODO cell.",
                                    PAPER_VECTORS_HINT[1]))
    expect_column(conn, TABLE, "arxiv_id", "VARCHAR2")
    expect_column(conn, TABLE, "title", "VARCHAR2")
    expect_column(conn, TABLE, "primary_subject", "VARCHAR2")
    expect_column(conn, TABLE, "embedding", "VECTOR", dims=schema.EMBEDDING_DIMENSIONS, fmt="FLOAT32",
                  hint="The model returns 384 float32 numbers: declare embedding VECTOR(384, FLOAT32), then drop "
                       "and re-create the table.")
    key = primary_key(conn, TABLE)
    expect(key == ("ARXIV_ID",),
           f"{TABLE} has {'no primary key' if not key else 'the primary key (' + ', '.join(key) + ')'}, expected "
           "PRIMARY KEY (arxiv_id)",
           ("A primary key makes the database refuse a paper inserted twice: the table in section 4 asks for one.",
            "Declare arxiv_id VARCHAR2(20) PRIMARY KEY in the CREATE TABLE (the cell drops the table first)."))
    papers = _scalar(conn, "SELECT COUNT(*) FROM papers")
    expect_committed(conn, TABLE, at_least=1,
                     hint="Fill the table with INSERT INTO paper_vectors ... SELECT ... FROM papers, then "
                          "conn.commit().")
    expect_row_count(conn, TABLE, exactly=papers,
                     hint="Insert one row per paper (INSERT ... SELECT ... FROM papers, no WHERE); if you ran the "
                          "INSERT twice, re-run the whole TODO cell (it drops the table first).")
    unmatched = _scalar(conn, f"""SELECT COUNT(*) FROM {TABLE} v
        WHERE NOT EXISTS (SELECT 1 FROM papers p WHERE p.arxiv_id = v.arxiv_id AND p.title = v.title
                          AND p.primary_subject = v.primary_subject)""")
    expect(unmatched == 0, f"{unmatched} rows do not carry their paper's arxiv_id, title and primary_subject",
           "SELECT arxiv_id, title, primary_subject from PAPERS in the same order as your column list.")
    empty = _scalar(conn, f"SELECT COUNT(*) FROM {TABLE} WHERE embedding IS NULL")
    expect(empty == 0, f"{empty} rows have no embedding (NULL)",
           ("The database computes each row's embedding in the INSERT ... SELECT itself (section 4, 'your own vector "
            "table').",
                f"Compute it in the INSERT: VECTOR_EMBEDDING({model_name()} USING title || '. ' || abstract AS data)."))
    far = _scalar(conn, f"""SELECT COUNT(*) FROM {TABLE} v JOIN papers p ON p.arxiv_id = v.arxiv_id
        WHERE VECTOR_DISTANCE(v.embedding, p.embedding, COSINE) > :limit""", {"limit": OWN_TEXT_DISTANCE})
    expect(far == 0, f"{far} of {papers} embeddings are not embeddings of their paper's title and abstract "
                     f"(cosine distance to PAPERS.EMBEDDING above {OWN_TEXT_DISTANCE})",
           ("Each row is embedded from its own paper's title and abstract, in the same statement (section 4).",
                f"Embed each row's own text: VECTOR_EMBEDDING({model_name()} USING title || '. ' || abstract AS "
                f"data)."))
    return f"{papers} rows, VECTOR(384, FLOAT32), PRIMARY KEY (ARXIV_ID), committed"


# --------------------------------------------------------------------------- TODO vector_index
INDEX_NAME = "PAPER_VECTORS_HNSW"
INDEX_DISTANCE = "COSINE"
INDEX_ACCURACY = 95
VECTOR_INDEX_DDL = ("CREATE VECTOR INDEX paper_vectors_hnsw ON paper_vectors (embedding) ORGANIZATION INMEMORY "
                    "NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95")
VECTOR_INDEX_HINT = ("Read section 5, 'Exact search, then an HNSW index': the statement has three clauses, the "
                     "organisation (HNSW is the in-memory neighbour graph), the distance and the target accuracy.",
                     VECTOR_INDEX_DDL)


@checkpoint("an HNSW vector index on PAPER_VECTORS", hint=VECTOR_INDEX_HINT)
def check_vector_index(conn: oracledb.Connection) -> str:
    """PAPER_VECTORS_HNSW: a VECTOR index on PAPER_VECTORS(EMBEDDING), organised as HNSW (INMEMORY NEIGHBOR GRAPH),
    for COSINE distance, with target accuracy 95, read from the dictionary (USER_INDEXES.INDEX_SUBTYPE and Oracle's
    vector index parameters); and the table still holds the committed rows of the paper_vectors TODO."""
    expect_table(conn, TABLE, hint=f"Run {todo_ref(__name__, 'paper_vectors')} first: the index goes on PAPER_VECTORS.")
    names = find_indexes(conn, TABLE, "embedding", "VECTOR")
    if not names:
        fail(f"there is no VECTOR index on {TABLE}(EMBEDDING)", VECTOR_INDEX_HINT, nothing_yet=True)
    if INDEX_NAME not in names:
        fail(f"the vector index on {TABLE}(EMBEDDING) is called {names[0]}, expected {INDEX_NAME}",
             (f"Call it {INDEX_NAME.lower()}: the TODO cell drops that name before creating it, so with another name "
              "a second run of the cell fails with ORA-01408 (the column is already indexed).",
              f"DROP INDEX {names[0].lower()}, then run the TODO cell with CREATE VECTOR INDEX {INDEX_NAME.lower()} "
              "..."))
    index = vector_index(conn, INDEX_NAME)
    expect(index.columns == ("EMBEDDING",), f"{INDEX_NAME} indexes {index.columns}, expected (EMBEDDING)",
           "A vector index covers the one VECTOR column: ON paper_vectors (embedding).")
    expect(index.organization == "HNSW",
           f"{INDEX_NAME} is an {index.organization} index ({index.subtype}), expected HNSW "
           "(INMEMORY_NEIGHBOR_GRAPH_HNSW)",
           ("HNSW is the in-memory neighbour graph; NEIGHBOR PARTITIONS builds IVF, a different index.",
            "ORGANIZATION INMEMORY NEIGHBOR GRAPH (not NEIGHBOR PARTITIONS)."))
    expect(index.distance == INDEX_DISTANCE,
           f"{INDEX_NAME} is built for {index.distance or 'an unknown'} distance, expected {INDEX_DISTANCE}",
           ("The searches of this part order by VECTOR_DISTANCE(..., COSINE); Oracle uses an index only for queries "
            "with its own metric and falls back to an exact scan otherwise.", "DISTANCE COSINE"))
    expect(index.accuracy == INDEX_ACCURACY,
           f"{INDEX_NAME} has target accuracy {index.accuracy if index.accuracy is not None else '(none given)'}, "
           f"expected {INDEX_ACCURACY}",
           ("The target accuracy is the share of the true nearest neighbours the index aims for; the TODO asks for 95.",
            "WITH TARGET ACCURACY 95"))
    expect_committed(conn, TABLE, at_least=1,
                     hint=f"Re-run {todo_ref(__name__, 'paper_vectors')}: the index is only useful on a filled table.")
    return f"{INDEX_NAME}: HNSW, COSINE, target accuracy 95, on {TABLE}(EMBEDDING)"


# --------------------------------------------------------------------------- TODO search_papers
SEARCH_HINT = ("Read section 6, 'TODO 3: a filtered similarity search': the filter goes in the WHERE clause of the "
               "same statement, the limit in FETCH APPROX FIRST :k ROWS ONLY, and every value is a bind.",
               "SELECT arxiv_id, title, primary_subject, VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING(<model> USING "
               ":query AS data), COSINE) AS distance FROM paper_vectors [WHERE primary_subject = :subject] ORDER BY "
               "distance FETCH APPROX FIRST :k ROWS ONLY")
#: A call with the defaults, as the notebook's next cell makes it: search_papers(conn, question, k=5).
DEFAULT_K = 5


def _search_calls() -> list[tuple[str, str | None, int | None]]:
    return [*SEARCH_CASES, *SEARCH_EDGE_CASES, (SEARCH_CASES[0][0], None, None)]


@checkpoint("filtered similarity search", hint=SEARCH_HINT)
def check_search_papers(conn: oracledb.Connection, search_papers: Callable[..., Any]) -> str:
    """search_papers(conn, query, subject, k): the k nearest papers of that subject (all when None), nearest first,
    with the cosine distance; checked against numpy over PAPER_VECTORS, and through a recording connection: the
    values are bound, and the database (not Python) filters and limits."""
    expect_filled(search_papers, "search_papers")
    expect_table(conn, TABLE, hint=f"Run {todo_ref(__name__, 'paper_vectors')} first: search_papers reads "
                                   "PAPER_VECTORS.")
    ids, subjects, matrix = _vectors(conn)
    for query, subject, k in _search_calls():
        want_k = DEFAULT_K if k is None else k
        kwargs = {} if k is None else {"subject": subject, "k": k}
        call = (f"search_papers(conn, {query!r}" + (f", subject={subject!r}, k={k})" if k is not None else ")"))
        recorder = RecordingConnection(conn)
        probe_values = {"query": query, **({"subject": subject} if subject else {}), **({"k": k} if k else {})}
        result = call_recorded(recorder, search_papers, (recorder, query), kwargs, probe_values, call)
        rows = records(result, "rows")
        _expect_lower_case_keys(result, call)
        expect(len(rows) <= want_k, f"{call} returned {len(rows)} rows, expected at most k = {want_k}",
               "Limit the result: FETCH APPROX FIRST :k ROWS ONLY (bind k, do not hard-code it).")
        expect_keys(rows, ["arxiv_id", "title", "primary_subject", "distance"], what="row")
        if subject is not None:
            wrong = [r["arxiv_id"] for r in rows if r["primary_subject"] != subject]
            expect(not wrong, f"{call} returned papers of other subjects: {wrong[:3]}",
                   "Filter in SQL: WHERE primary_subject = :subject (only when subject is not None).")
        expect_queried(recorder, call)
        expect_bound(recorder, probe_values, call)
        expect_database_limits(recorder, want_k, call)
        expect_ordered_by(rows, "distance", what="rows",
                          hint="Nearest first: ORDER BY the distance ascending (smaller distance = more similar).")
        mask = np.ones(len(ids), bool) if subject is None else np.array([s == subject for s in subjects])
        pool = [i for i, keep in zip(ids, mask) if keep]
        query_vector = embed_query(conn, query)
        expected = top_k(pool, cosine_distances(matrix[mask], query_vector), want_k) if pool else []
        expect(len(rows) == len(expected), f"{call} returned {len(rows)} rows, expected {len(expected)}",
               "Return k rows when the table has that many (and all of them when it has fewer): check your WHERE "
               "clause and FETCH FIRST :k.")
        all_distances = dict(zip(ids, cosine_distances(matrix, query_vector).tolist()))
        expect_nearest(conn, rows, expected, all_distances, call,
                       "Order by the cosine distance between the stored embedding and the query's embedding.",
                       approximate=True)
    return f"{len(_search_calls())} searches: bound, filtered and limited in SQL, nearest first, same as numpy"


def _expect_lower_case_keys(result: Any, call: str) -> None:
    """The keys are the lower-case names the next cells read (row["title"]), not the dictionary's upper case."""
    first = next(iter(result), None) if isinstance(result, list) else None
    if isinstance(first, Mapping):
        upper = [key for key in first if isinstance(key, str) and key != key.lower()]
        expect(not upper, f"{call} returns rows keyed {upper[:3]}; the next cells read the lower-case keys "
                          "(row['title'])",
               "Lower-case the column names: rows_as_dicts(cur) from the top of the notebook does it.")


def call_recorded(recorder: RecordingConnection, function: Callable[..., Any], args: tuple, kwargs: dict,
                  probe_values: Mapping[str, Any], call: str) -> Any:
    """Call the learner's function with the recorder; an Oracle error caused by a probe value written into the SQL
    text (a quote in the question) is reported as that, not as the error it caused."""
    try:
        return function(*args, **kwargs)
    except Exception:
        broken = [name for name, value in probe_values.items() if isinstance(value, str)
                  and any(value in statement.sql for statement in recorder.statements)]
        if broken:
            fail(f"{call} writes {broken[0]}={probe_values[broken[0]]!r} into the SQL text, and its quote broke the "
                 "statement", "Bind the value: :" + broken[0] + " in the SQL, the value in cur.execute(sql, {...}).")
        raise


# --------------------------------------------------------------------------- TODO papers_store
STORE_HINT = ("Read section 7, 'TODO 4: the same with LangChain's OracleVS': the store embeds in the database, "
              "measures COSINE distance, and filters inside the search.",
              "OracleVS.from_documents(docs, embeddings, client=conn, table_name=STORE_TABLE, "
              "distance_strategy=DistanceStrategy.COSINE); store.similarity_search(query, k=k, "
              "filter={'primary_subject': subject})")


def papers_store_in_database(conn: oracledb.Connection) -> str:
    """What checkpoints.progress can judge without the notebook's objects: PAPERS_VS holds every paper, committed,
    with 384-dimension embeddings. (The store object and search_store are judged when the checkpoint runs.)"""
    expect_table(conn, STORE_TABLE, hint="Run the papers_store TODO cell: OracleVS.from_documents creates PAPERS_VS.")
    expect_column(conn, STORE_TABLE, "embedding", "VECTOR", dims=schema.EMBEDDING_DIMENSIONS)
    papers = _scalar(conn, "SELECT COUNT(*) FROM papers")
    expect_committed(conn, STORE_TABLE, at_least=1)
    expect_row_count(conn, STORE_TABLE, exactly=papers,
                     hint="Add each paper once: re-run the whole TODO cell (it drops PAPERS_VS first).")
    return f"{STORE_TABLE}: {papers} documents"


@checkpoint("an OracleVS store with a metadata filter", hint=STORE_HINT, live=papers_store_in_database)
def check_papers_store(conn: oracledb.Connection, papers_vs: Any, search_store: Callable[..., Any]) -> str:
    """papers_vs: OracleVS over PAPERS_VS, embedded in the database, COSINE distance; search_store(store, query,
    subject, k): k Documents of that subject, nearest first, checked against SQL over PAPERS_VS, with the k and the
    filter passed to the store (a recording store)."""
    from langchain_oracledb import OracleEmbeddings, OracleVS
    from langchain_oracledb.vectorstores.utils import DistanceStrategy

    expect_filled(papers_vs, "papers_vs")
    expect(isinstance(papers_vs, OracleVS), f"papers_vs is a {type(papers_vs).__name__}, expected an OracleVS",
           ("The store is langchain-oracledb's OracleVS, built from the documents with the database embeddings "
            "(section 7).",
                "Create it with OracleVS.from_documents(docs, embeddings, client=conn, table_name=STORE_TABLE, "
           "distance_strategy=DistanceStrategy.COSINE)."))
    expect(papers_vs.table_name == f'"{STORE_TABLE}"',
           f"papers_vs stores its rows in {papers_vs.table_name}, expected {STORE_TABLE}",
           "Pass table_name=STORE_TABLE ('PAPERS_VS', upper case: langchain-oracledb quotes the name).")
    strategy = getattr(papers_vs, "distance_strategy", None)
    expect(strategy == DistanceStrategy.COSINE,
           f"papers_vs measures {getattr(strategy, 'name', strategy)} distance, expected COSINE",
           ("OracleVS defaults to EUCLIDEAN_DISTANCE; the model (and every search in this part) uses COSINE.",
            "Pass distance_strategy=DistanceStrategy.COSINE to OracleVS.from_documents."))
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
        store = RecordingStore(papers_vs)
        docs = search_store(store, query, subject, k=k)
        expect(isinstance(docs, list) and all(hasattr(d, "metadata") and hasattr(d, "page_content") for d in docs),
               f"{call} returned {type(docs).__name__}, expected a list of langchain Documents",
               "Return what similarity_search returns.")
        expect(len(docs) <= k, f"{call} returned {len(docs)} documents, expected at most {k}", "Pass k=k.")
        wrong = [d.metadata.get("arxiv_id") for d in docs if d.metadata.get("primary_subject") != subject]
        expect(not wrong, f"{call} returned documents of other subjects: {wrong[:3]}", STORE_HINT)
        expect_store_searched(store, call, filter={"primary_subject": subject},
                              hint="Filter inside the search (filter={'primary_subject': subject}), not afterwards "
                                   "in Python: filtering the top k afterwards leaves fewer than k.")
        expect_store_searched(store, call, k=k)
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
    return (f"{papers} documents embedded in the database, COSINE; {len(STORE_CASES)} searches filtered by the "
            "store, k passed")


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
