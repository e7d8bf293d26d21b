"""DBMS_HYBRID_VECTOR.SEARCH through SQL: search modes, aggregators, fusions, scorers, the return
clause and row limits, each checked against an independent reference (numpy cosine of the model's
embeddings of independently cut chunks, Oracle Text SCORE from a plain CONTAINS query, and the
documented or documented-by-the-engine formulas); and the errors for bad specifications."""
import json

import numpy as np
import oracledb
import pytest

from tests.conftest import ora_code
from workshop import models
from workshop.embedded import connect

MODEL = "ALL_MINILM_L6_V2"
DOCS = [
    "Oracle AI Vector Search stores embeddings in a VECTOR column and answers similarity queries with "
    "VECTOR_DISTANCE ordered by distance and fetched approximately through an HNSW index",
    "Oracle Text builds an inverted index of words so that CONTAINS finds documents by keyword and SCORE "
    "ranks them by how often the searched words appear in each document",
    "Hybrid search runs a keyword search and a vector search on the same documents and fuses both ranked "
    "lists into one result list with relative score fusion or reciprocal rank fusion",
    "Agent memory keeps conversation turns facts and summaries so that an assistant can recall what a "
    "user said in earlier sessions and answer with that context",
    "Row level security adds a predicate to every query on a protected table so that each tenant sees "
    "only its own rows even when the application forgets a filter",
]
MAX_WORDS = 10


def reference_chunks():
    out = []
    for d, text in enumerate(DOCS):
        words = text.split()
        for c, start in enumerate(range(0, len(words), MAX_WORDS), start=1):
            out.append((d, c, " ".join(words[start:start + MAX_WORDS])))
    return out


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    path = models.ensure_embedding_model()
    runtime = models.load_model(MODEL, path.read_bytes(), models.embedding_metadata())
    conn = connect(tmp_path_factory.mktemp("hybrid") / "e.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                name=MODEL, blob=path.read_bytes(), meta=json.dumps(models.embedding_metadata()))
    cur.execute("CREATE TABLE notes (id NUMBER PRIMARY KEY, body CLOB)")
    cur.executemany("INSERT INTO notes VALUES (:1, :2)", list(enumerate(DOCS)))
    conn.commit()
    cur.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE(pref_name => 'NOTES_PREF', "
                "pref_type => DBMS_VECTOR_CHAIN.VECTORIZER, params => JSON(:p)); END;",
                p=json.dumps({"model": MODEL, "by": "words", "max": MAX_WORDS, "overlap": 0, "split": "none",
                              "vector_idxtype": "hnsw"}))
    cur.execute("CREATE HYBRID VECTOR INDEX notes_hvi ON notes(body) PARAMETERS('VECTORIZER notes_pref')")
    cur.execute("SELECT rowid, id FROM notes ORDER BY id")
    rowid_of = {doc: str(rid) for rid, doc in cur.fetchall()}
    chunks = reference_chunks()
    matrix = runtime.embed([c[2] for c in chunks])
    yield {"conn": conn, "runtime": runtime, "chunks": chunks, "matrix": matrix, "rowid_of": rowid_of}
    conn.close()


def search(env, spec: dict) -> list[dict]:
    with env["conn"].cursor() as cur:
        cur.setinputsizes(s=oracledb.DB_TYPE_JSON)
        cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:s)) FROM dual", s=spec)
        value = cur.fetchone()[0]
        return json.loads(value.read() if hasattr(value, "read") else value)


def chunk_scores(env, query: str) -> np.ndarray:
    q = env["runtime"].embed([query])[0]
    m = env["matrix"]
    cos = m @ q / (np.linalg.norm(m, axis=1) * np.linalg.norm(q))
    return 100 * (1 - (1 - cos) / 2)


def doc_scores(env, query: str, agg) -> dict[int, float]:
    scores = chunk_scores(env, query)
    per: dict[int, list[float]] = {}
    for (d, _, _), s in zip(env["chunks"], scores):
        per.setdefault(d, []).append(float(s))
    return {d: float(agg(v)) for d, v in per.items()}


def keyword_scores(env, contains: str) -> dict[int, int]:
    with env["conn"].cursor() as cur:
        cur.execute("SELECT id, SCORE(1) FROM notes WHERE CONTAINS(body, :q, 1) > 0", q=contains)
        return dict(cur.fetchall())


def ids(env, rows) -> list[int]:
    doc_of = {v: k for k, v in env["rowid_of"].items()}
    return [doc_of[r["rowid"]] for r in rows]


def ranked(scores: dict, n: int) -> list:
    return sorted(scores, key=lambda d: (-round(scores[d], 2), d))[:n]


# ----------------------------------------------------------------------------- semantic
@pytest.mark.parametrize("aggregator, fn", [("MAX", max), ("AVG", np.mean), ("MEDIAN", np.median), ("MIN", min)])
def test_document_mode_aggregates_chunk_scores(env, aggregator, fn):
    query = "fusing keyword and vector rankings"
    rows = search(env, {"hybrid_index_name": "NOTES_HVI",
                        "vector": {"search_text": query, "search_mode": "DOCUMENT", "aggregator": aggregator},
                        "return": {"values": ["rowid", "score", "vector_score"], "topN": 3}})
    expected = doc_scores(env, query, fn)
    assert ids(env, rows) == ranked(expected, 3)
    for row, d in zip(rows, ids(env, rows)):
        assert row["score"] == pytest.approx(expected[d], abs=0.006)
        assert row["vector_score"] == row["score"]
        assert set(row) == {"rowid", "score", "vector_score"}


def test_chunk_mode_returns_chunks(env):
    query = "inverted index of words"
    rows = search(env, {"hybrid_index_name": "notes_hvi", "vector": {"search_text": query, "search_mode": "CHUNK"},
                        "return": {"topN": 4, "values": ["rowid", "score", "chunk_text", "chunk_id", "vector_rank"]}})
    scores = chunk_scores(env, query)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[:4]
    chunks = env["chunks"]
    assert [(r["chunk_text"], r["chunk_id"]) for r in rows] == [(chunks[i][2], str(chunks[i][1])) for i in order]
    assert [r["rowid"] for r in rows] == [env["rowid_of"][chunks[i][0]] for i in order]
    assert [r["vector_rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["score"] for r in rows] == pytest.approx([scores[i] for i in order], abs=0.006)


def test_search_vector_is_the_same_search(env):
    query = "tenant isolation with security predicates"
    vector = env["runtime"].embed([query])[0]
    by_text = search(env, {"hybrid_index_name": "notes_hvi", "vector": {"search_text": query}})
    by_vector = search(env, {"hybrid_index_name": "notes_hvi",
                             "vector": {"search_vector": json.dumps([float(x) for x in vector])}})
    assert [r["rowid"] for r in by_text] == [r["rowid"] for r in by_vector]
    assert [r["score"] for r in by_text] == pytest.approx([r["score"] for r in by_vector], abs=0.01)
    with pytest.raises(oracledb.DatabaseError) as exc:
        search(env, {"hybrid_index_name": "notes_hvi", "vector": {"search_vector": [0.1, 0.2, 0.3]}})
    assert ora_code(exc) == 51808


def test_result_max_and_top_n_limit_rows(env):
    spec = {"hybrid_index_name": "notes_hvi", "vector": {"search_text": "memory", "search_mode": "CHUNK"}}
    assert len(env["chunks"]) < 20
    assert len(search(env, spec)) == len(env["chunks"])     # default topN 20 keeps every chunk
    spec["vector"]["result_max"] = 5
    assert len(search(env, spec)) == 5
    spec["return"] = {"topN": 2}
    assert len(search(env, spec)) == 2
    doc = {"hybrid_index_name": "notes_hvi", "vector": {"search_text": "memory", "result_max": 1}}
    assert len(search(env, doc)) == 1             # one chunk kept -> one document


# ----------------------------------------------------------------------------- keyword
@pytest.mark.parametrize("contains", ["index", "keyword AND vector", "tenant OR memory", "fusion, search"])
def test_pure_keyword_is_contains_score(env, contains):
    rows = search(env, {"hybrid_index_name": "notes_hvi", "text": {"contains": contains},
                        "return": {"values": ["rowid", "score", "text_score", "text_rank"], "topN": 10}})
    expected = keyword_scores(env, contains)
    assert ids(env, rows) == ranked(expected, 10)
    assert [r["score"] for r in rows] == [expected[d] for d in ids(env, rows)]
    assert [r["text_score"] for r in rows] == [r["score"] for r in rows]
    assert rows[0]["text_rank"] == 1


def test_a_bad_contains_query_is_oracle_texts_error(env):
    with pytest.raises(oracledb.DatabaseError) as exc:
        search(env, {"hybrid_index_name": "notes_hvi", "text": {"contains": "near-duplicate AND"}})
    assert ora_code(exc) == 29902 and "DRG-" in str(exc.value)


# ----------------------------------------------------------------------------- fusion and scoring
QUERY_V, QUERY_T = "how are ranked lists combined", "index OR keyword"


def _legs(env):
    sem = doc_scores(env, QUERY_V, max)
    kw = keyword_scores(env, QUERY_T)
    return sem, kw


@pytest.mark.parametrize("fusion, keep", [
    ("UNION", lambda v, t: v or t), ("INTERSECT", lambda v, t: v and t), ("TEXT_ONLY", lambda v, t: t),
    ("VECTOR_ONLY", lambda v, t: v), ("MINUS_TEXT", lambda v, t: v and not t),
    ("MINUS_VECTOR", lambda v, t: t and not v)])
def test_fusion_operators_and_rsf(env, fusion, keep):
    sem, kw = _legs(env)
    scores = chunk_scores(env, QUERY_V)
    for result_max in (2, 100):
        best = sorted(range(len(scores)), key=lambda i: -scores[i])[:result_max]
        vector_set = {env["chunks"][i][0] for i in best}      # the documents of the kept chunks
        assert result_max == 100 or len(vector_set) < len(DOCS)
        rows = search(env, {"hybrid_index_name": "notes_hvi", "search_fusion": fusion,
                            "vector": {"search_text": QUERY_V, "result_max": result_max},
                            "text": {"contains": QUERY_T}, "return": {"topN": 10}})
        keep_set = {d for d in range(len(DOCS)) if keep(d in vector_set, d in kw)}
        assert set(ids(env, rows)) == keep_set
        for row in rows:
            d = ids(env, [row])[0]
            vs = sem[d] if d in vector_set else 0.0
            ts = kw.get(d, 0)
            assert row["vector_score"] == pytest.approx(vs, abs=0.006)
            assert row["text_score"] == ts
            assert row["score"] == pytest.approx((10 * vs + ts) / 11, abs=0.006)
            assert (row["text_rank"] == 1000) == (d not in kw)
        assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_rsf_weights(env):
    sem, kw = _legs(env)
    rows = search(env, {"hybrid_index_name": "notes_hvi", "search_scorer": "rsf",
                        "vector": {"search_text": QUERY_V, "score_weight": 2},
                        "text": {"contains": QUERY_T, "score_weight": 3}})
    expected = {d: (2 * sem.get(d, 0) + 3 * kw.get(d, 0)) / 5 for d in set(sem) | set(kw)}
    assert ids(env, rows) == ranked(expected, 20)
    assert [r["score"] for r in rows] == pytest.approx([expected[d] for d in ids(env, rows)], abs=0.006)


def _competition(scores: dict) -> dict:
    order = sorted(scores, key=lambda d: -scores[d])
    ranks, prev, rank = {}, None, 0
    for pos, d in enumerate(order, start=1):
        if scores[d] != prev:
            rank, prev = pos, scores[d]
        ranks[d] = rank
    return ranks


@pytest.mark.parametrize("scorer", ["RRF", "WRRF"])
def test_rrf_and_wrrf(env, scorer):
    sem, kw = _legs(env)
    rv, rt = _competition(sem), _competition({d: float(s) for d, s in kw.items()})
    wv, wt, pv, pt = 3, 2, 1, 5
    spec = {"hybrid_index_name": "notes_hvi", "search_scorer": scorer,
            "vector": {"search_text": QUERY_V, "score_weight": wv, "rank_penalty": pv},
            "text": {"contains": QUERY_T, "score_weight": wt, "rank_penalty": pt},
            "return": {"values": ["rowid", "score", "vector_rank", "text_rank"]}}
    rows = search(env, spec)
    cv, ct = (wv, wt) if scorer == "WRRF" else (1, 1)
    best = cv / (1 + pv) + ct / (1 + pt)
    expected = {d: 100 * ((cv / (rv[d] + pv) if d in rv else 0) + (ct / (rt[d] + pt) if d in rt else 0)) / best
                for d in set(rv) | set(rt)}
    assert ids(env, rows) == ranked(expected, 20)
    for row in rows:
        d = ids(env, [row])[0]
        assert row["score"] == pytest.approx(expected[d], abs=0.006)
        assert row["vector_rank"] == rv.get(d, 1000) and row["text_rank"] == rt.get(d, 1000)


def test_rerank_orders_text_results_by_vector_score(env):
    sem, kw = _legs(env)
    rows = search(env, {"hybrid_index_name": "notes_hvi", "search_fusion": "RERANK",
                        "vector": {"search_text": QUERY_V, "aggregator": "AVG"}, "text": {"contains": QUERY_T}})
    avg = doc_scores(env, QUERY_V, np.mean)
    assert ids(env, rows) == ranked({d: avg[d] for d in kw}, 20)
    assert [r["score"] for r in rows] == pytest.approx([avg[d] for d in ids(env, rows)], abs=0.006)


def test_single_search_text_drives_both_searches(env):
    query = "keyword search ranks documents"
    rows = search(env, {"hybrid_index_name": "notes_hvi", "search_text": query})
    sem = doc_scores(env, query, max)
    kw = keyword_scores(env, "{keyword} ACCUM {search} ACCUM {ranks} ACCUM {documents}")
    expected = {d: (10 * sem[d] + kw.get(d, 0)) / 11 for d in sem}
    assert ids(env, rows) == ranked(expected, 20)
    assert list(rows[0]) == ["rowid", "score", "vector_score", "text_score", "vector_rank", "text_rank",
                             "chunk_text", "chunk_id"]


def test_json_table_over_the_results(env):
    with env["conn"].cursor() as cur:
        cur.execute("""SELECT n.id, r.score FROM JSON_TABLE(DBMS_HYBRID_VECTOR.SEARCH(JSON(:q)), '$[*]'
                         COLUMNS (row_id VARCHAR2(18) PATH '$.rowid', score NUMBER PATH '$.score')) r
                       JOIN notes n ON n.rowid = CHARTOROWID(r.row_id) ORDER BY r.score DESC, n.id""",
                    q=json.dumps({"hybrid_index_name": "notes_hvi", "text": {"contains": "index"}}))
        got = cur.fetchall()
    expected = keyword_scores(env, "index")
    assert got == sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("spec, code, words", [
    ({"search_text": "x"}, 20000, "hybrid_index_name is required"),
    ({"hybrid_index_name": "notes_hvi"}, 20000, "no query"),
    ({"hybrid_index_name": "notes_hvi", "search_txt": "x"}, 20000, "unknown parameter search_txt"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "weight": 1}}, 20000,
     "unknown parameter vector.weight"),
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": "x", "topN": 1}}, 20000, "unknown parameter text.topN"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "return": {"limit": 1}}, 20000,
     "unknown parameter return.limit"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "search_fusion": "OUTER"}, 20000, "search_fusion"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "search_scorer": "BM25"}, 20000, "search_scorer"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "search_mode": "PAGE"}}, 20000,
     "vector.search_mode"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "aggregator": "TOP"}}, 20000,
     "vector.aggregator"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "return": {"topN": 0}}, 20000, "return.topN"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "score_weight": 0}}, 20000,
     "vector.score_weight"),
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": "x", "rank_penalty": -1}}, 20000, "text.rank_penalty"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "result_max": 2.5}}, 20000,
     "vector.result_max"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "vector": {"search_text": "y"}}, 20000,
     "one search construct"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "search_vector": "[1]"}}, 20000,
     "cannot both"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_mode": "CHUNK"}}, 20000, "vector needs"),
    ({"hybrid_index_name": "notes_hvi", "text": {"score_weight": 2}}, 20000, "text needs"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": ""}}, 20000, "must not be empty"),
    ({"hybrid_index_name": "notes_hvi", "search_fusion": "RERANK", "vector": {"search_text": "x"}}, 20000,
     "RERANK needs a text query"),
    ({"hybrid_index_name": "notes_hvi", "search_fusion": "RERANK", "text": {"contains": "x"}}, 20000,
     "and a vector query"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "return": {"values": ["rowid", "distance"]}}, 20000,
     "return.values"),
    ({"hybrid_index_name": "missing_idx", "search_text": "x"}, 20000, "DRG-10502"),
    ({"hybrid_index_name": "notes_hvi", "partition_name": "p1", "search_text": "x"}, 3001, "partition_name"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "score_calc": "1"}, 3001, "score_calc"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "inpath": ["$.a"]}}, 3001, "vector.inpath"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "return": {"values": ["paths"]}}, 3001, "paths"),
    ({"hybrid_index_name": "notes_hvi", "search_text": "x", "return": {"format": "XML"}}, 3001, "format XML"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_text": "x", "aggregator": "BONUSMAX"}}, 3001,
     "BONUSMAX"),
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": "x", "search_text": "y"}}, 3001, "text.contains"),
    # the vector and text sub-queries share one validator (spec.SubQueryRules): each rule holds for both
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": "x", "inpath": ["$.a"]}}, 3001, "text.inpath"),
    ({"hybrid_index_name": "notes_hvi", "text": "x"}, 20000, "text must be a JSON object"),
    ({"hybrid_index_name": "notes_hvi", "vector": ["x"]}, 20000, "vector must be a JSON object"),
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": ""}}, 20000, "text.contains must not be empty"),
    ({"hybrid_index_name": "notes_hvi", "text": {"contains": "x", "result_max": 0}}, 20000, "text.result_max"),
    ({"hybrid_index_name": "notes_hvi", "vector": {"search_vector": []}}, 20000, "non-empty array"),
])
def test_bad_specifications_are_named(env, spec, code, words):
    with pytest.raises(oracledb.DatabaseError) as exc:
        search(env, spec)
    assert ora_code(exc) == code
    assert words in str(exc.value)


def test_invalid_json_and_non_hybrid_index(env):
    with env["conn"].cursor() as cur:
        with pytest.raises(oracledb.DatabaseError) as exc:
            cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH('{not json') FROM dual")
        assert ora_code(exc) == 40441
        cur.execute("CREATE TABLE plain (id NUMBER, t VARCHAR2(100))")
        cur.execute("CREATE SEARCH INDEX plain_sx ON plain(t)")
        with pytest.raises(oracledb.DatabaseError) as exc:
            search(env, {"hybrid_index_name": "plain_sx", "text": {"contains": "x"}})
        assert "not a hybrid vector index" in str(exc.value)
        cur.execute("DROP TABLE plain PURGE")


def test_searchpipeline_rows_equal_the_json(env):
    spec = {"hybrid_index_name": "notes_hvi", "search_text": "keyword search ranks documents", "return": {"topN": 3}}
    expected = search(env, spec)
    with env["conn"].cursor() as cur:
        cur.execute("SELECT CHARTOROWID(doc_rowid) AS doc_rowid, score, vector_score, text_score, vector_rank, "
                    "text_rank, chunk_text, chunk_id, paths FROM DBMS_HYBRID_VECTOR.SEARCHPIPELINE(JSON(:q))",
                    q=json.dumps(spec))
        got = cur.fetchall()
    # no ORDER BY: the rows, not their order (a pipelined function's order is not a query's order)
    assert sorted((str(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) for r in got) == sorted(
        (e["rowid"], e["score"], e["vector_score"], e["text_score"], e["vector_rank"], e["text_rank"],
         e["chunk_text"], e["chunk_id"], None) for e in expected)


def test_hostile_search_text_is_only_words(env):
    hostile = "'); DROP TABLE notes; -- } { NEAR AND ~ ABOUT( % fuzzy"
    rows = search(env, {"hybrid_index_name": "notes_hvi", "search_text": hostile, "return": {"topN": 3}})
    assert len(rows) == 3
    rows = search(env, {"hybrid_index_name": "notes_hvi", "text": {"search_text": hostile}})
    assert all(r["text_score"] > 0 for r in rows)
    with env["conn"].cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM notes")
        assert cur.fetchone() == (len(DOCS),)
        with pytest.raises(oracledb.DatabaseError) as exc:
            search(env, {"hybrid_index_name": "notes_hvi", "text": {"contains": hostile}})
        assert ora_code(exc) == 29902


@pytest.mark.parametrize("vector_score, text_score, oracle_score", [
    (61, 35, 58.64), (55.75, 68, 56.86), (56.64, 2, 51.67),          # SEARCH page, complete example
    (69.69, 68, 69.54), (65.55, 35, 62.77), (68.17, 2, 62.15),       # end-to-end example, default query
])
def test_rsf_reproduces_oracles_published_scores(vector_score, text_score, oracle_score):
    """The RSF formula against the outputs printed in Oracle's DBMS_HYBRID_VECTOR documentation."""
    from workshop.embedded.hybrid.search import Result, Searcher, _number
    from workshop.embedded.hybrid.spec import parse
    spec = parse({"hybrid_index_name": "x", "search_text": "q"})
    r = Result(1, vector_score=vector_score, text_score=text_score, in_vector=True, in_text=True)
    assert _number(Searcher._score(None, spec, r)) == oracle_score
