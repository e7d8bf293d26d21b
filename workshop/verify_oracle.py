"""`python -m workshop.verify_oracle`: the first live test on Oracle AI Database, as one command.

It runs the checklist of the research audit (shared/research/oracle-fidelity-audit.md, section 3)
against the database of ORACLE_DSN / ORACLE_USER / ORACLE_PASSWORD, after `python -m workshop.setup`:
the environment (image variant, vector pool, grants, edition), both ONNX models (loaded, and their
vectors and scores equal to the local onnxruntime to 1e-5 on accented, emoji, empty and over-long
text), index types, approximate search, Oracle Text with the escaping lesson's errors, the property
graph, python-oracledb binding rules, row-level security, and the probes of `workshop.verify_probes` (the
questions only a live database settles, each with its expected answer). `--full` also runs every solution
notebook in a kernel (nbclient) and the tests marked `oracle` (`workshop.verify_runs`). It prints one Markdown
report to paste into an issue: a table of every check, then, for each difference, what to change. It exits 1
on any difference (2 when it cannot run at all). Every object it creates is named VO_* and dropped again,
except the context VO_CTX: DROP CONTEXT needs DROP ANY CONTEXT, which the workshop user does not hold, so
both RLS probes reuse that one fixed name (CREATE OR REPLACE CONTEXT) instead of leaving new ones behind.

    python -m workshop.verify_oracle                                   # checklist and probes
    python -m workshop.verify_oracle --full --output report.md         # plus every notebook and oracle test
    python -m workshop.verify_oracle --full --startup-log startdb.log  # plus the start-up script's answers
"""
from __future__ import annotations

import argparse
import array
import datetime as dt
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import oracledb

from . import config, db, models, schema
from .doctor import RLS_OPTION, edition
from .oracle_grants import missing_grants
from .setup import (banner, existing_graphs, existing_models, expected_counts, first_line, is_embedded,
                    oracle_text_installed, scalar)

#: The audit's parity target between the database's model and the local runtime.
TOLERANCE = 1e-5
#: Texts on which the in-database embedding must equal the local one. The empty string is NULL in Oracle,
#: so VECTOR_EMBEDDING returns NULL for it (checked separately).
PARITY_TEXTS = {
    "plain": "HNSW builds a navigable small-world graph for approximate nearest neighbour search.",
    "accented": "Crème brûlée, naïve café, Zürich and São Paulo: the tokenizer strips accents.",
    "emoji": "Agents 🧠 remember 🚀 vectors ✨ and forget 🗑️ the rest.",
    "over-long": " ".join(["Long-term memory for agents keeps facts, episodes and workflows across sessions."] * 40),
}
RERANK_CASES = (  # (query, relevant passage, irrelevant passage)
    ("how do I size the vector memory pool?",
     "Set vector_memory_size before building HNSW indexes, or creation fails with ORA-51962.",
     "The property graph links papers to their authors."),
    ("ranking fusion of keyword and vector results",
     "Reciprocal Rank Fusion adds 1/(k + rank) over the keyword and the vector lists.",
     "Crème brûlée needs a very hot grill 🍮."),
)
#: solutions/02 (the escaping lesson): which CONTAINS expressions must fail with a DRG- error.
TEXT_EXPRESSIONS = {"long-term": False, "{long-term}": False, "near-duplicate": True, "{near-duplicate}": False,
                    "what's the memory footprint of HNSW?": True}


#: Search strings a learner might type; keyword_terms must turn each into a CONTAINS expression Oracle accepts.
HOSTILE_SEARCHES = ("a AND (b", "NEAR((memory, pool), 3)", '"; DROP TABLE papers; --', "ORA-51962?",
                    "what's 50% of {vector_memory_size}?", "memory - pool ~ index, $cost & fuzzy*")


@dataclass(frozen=True)
class Step:
    section: str
    name: str
    status: str        # "PASS", "FAIL" or "SKIP"
    detail: str = ""
    change: str = ""   # when it FAILs: what to change (in the code, the grants or the docs)


StepFn = Callable[[oracledb.Connection], list[Step]]


def _ok(section: str, name: str, ok: bool, detail: str, change: str = "") -> Step:
    return Step(section, name, "PASS" if ok else "FAIL", detail, "" if ok else change)


def _rows(conn, sql: str, binds=None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchall()


def _execute(conn, sql: str, binds=None) -> None:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})


def _drop_quietly(conn, statements: list[str]) -> None:
    for sql in statements:
        try:
            _execute(conn, sql)
        except oracledb.DatabaseError:
            pass


# --------------------------------------------------------------------------- 1-2 environment, grants
def environment(conn) -> list[Step]:
    s = "1 environment"
    if is_embedded(conn):
        return [Step(s, "image, vector pool, V$OPTION", "SKIP", "Oracle only (embedded engine)")]
    steps = [Step(s, "database", "PASS", f"{banner(conn)} | {edition(conn)} | python-oracledb {oracledb.__version__}")]
    steps.append(_ok(s, "Oracle Text installed (not a slim image)", oracle_text_installed(conn),
                     "CTXSYS present" if oracle_text_installed(conn) else "no CTXSYS user: slim image"))
    try:
        pool = scalar(conn, "SELECT NVL(SUM(alloc_bytes), 0) FROM v$vector_memory_pool")
        steps.append(_ok(s, "vector memory pool > 0", bool(pool), f"{(pool or 0) / 2**20:.0f} MB allocated"))
    except oracledb.DatabaseError as exc:
        steps.append(Step(s, "vector memory pool > 0", "FAIL", f"V$VECTOR_MEMORY_POOL: {first_line(exc)}"))
    try:
        value = scalar(conn, "SELECT value FROM v$option WHERE parameter = :p", {"p": RLS_OPTION})
        steps.append(_ok(s, f"V$OPTION {RLS_OPTION} (DBMS_RLS)", value == "TRUE", f"value {value}"))
    except oracledb.DatabaseError as exc:
        steps.append(Step(s, f"V$OPTION {RLS_OPTION} (DBMS_RLS)", "SKIP", f"not readable: {first_line(exc)}"))
    return steps


def grants(conn) -> list[Step]:
    if is_embedded(conn):
        return [Step("2 grants", "every privilege of workshop.oracle_grants", "SKIP", "Oracle only (embedded engine)")]
    missing = missing_grants(conn)
    return [_ok("2 grants", "every privilege of workshop.oracle_grants", not missing,
                "all held" if not missing else "missing: " + ", ".join(g.label for g in missing))]


# --------------------------------------------------------------------------- 3-5 models
def _database_vector(conn, model: str, text: str):
    value = scalar(conn, f"SELECT VECTOR_EMBEDDING({model} USING :t AS data) FROM dual", {"t": text})
    return None if value is None else np.asarray(value, dtype=np.float64)


def embedding_model(conn) -> list[Step]:
    s = "3 embedding model"
    name = schema.identifier(config.embedding_model_name())
    found = existing_models(conn).get(name)
    steps = [_ok(s, f"{name} loaded", found == "EMBEDDING", f"USER_MINING_MODELS says {found or 'nothing'}")]
    if found != "EMBEDDING":
        return steps
    probe = _database_vector(conn, name, "dimension probe")
    steps.append(_ok(s, "384 dimensions", probe is not None and probe.shape == (schema.EMBEDDING_DIMENSIONS,),
                     f"{None if probe is None else probe.shape[0]} dimensions"))
    steps.append(_ok(s, "empty text is NULL", _database_vector(conn, name, "") is None,
                     "VECTOR_EMBEDDING(... USING '' AS data) must be NULL ('' is NULL in Oracle)"))
    if name != schema.EMBEDDING_MODEL.name:
        steps.append(Step(s, "vectors equal the local runtime", "SKIP",
                          f"{name} is not the set-up's model, so there is no local copy to compare with"))
        return steps
    local = models.load_model(name, models.ensure_embedding_model().read_bytes(), None)
    for label, text in PARITY_TEXTS.items():
        expected = local.embed([text])[0].astype(np.float64)
        got = _database_vector(conn, name, text)
        if got is None or got.shape != expected.shape:
            steps.append(Step(s, f"parity: {label}", "FAIL", f"database returned {got if got is None else got.shape}"))
            continue
        delta = float(np.max(np.abs(got - expected)))
        steps.append(_ok(s, f"parity: {label}", delta < TOLERANCE, f"max |Δ| = {delta:.2e} (target < {TOLERANCE:g})"))
    return steps


def reranker(conn) -> list[Step]:
    s = "4 reranker"
    name = schema.identifier(config.reranker_model_name())
    found = existing_models(conn).get(name)
    steps = [_ok(s, f"{name} loaded", found == "REGRESSION", f"USER_MINING_MODELS says {found or 'nothing'}")]
    if found != "REGRESSION":
        return steps
    local = None
    if name == schema.RERANKER_MODEL.name:
        local = models.load_model(name, models.ensure_reranker_model().read_bytes(), models.reranker_metadata())
    for i, (query, good, bad) in enumerate(RERANK_CASES, 1):
        scores = [float(scalar(conn, f"SELECT PREDICTION({name} USING :q AS FIRST_INPUT, :d AS SECOND_INPUT) "
                                     "FROM dual", {"q": query, "d": d})) for d in (good, bad)]
        steps.append(_ok(s, f"case {i}: relevant above irrelevant", scores[0] > scores[1],
                         f"scores {scores[0]:.4f} / {scores[1]:.4f}"))
        if local is not None:
            expected = local.predict({"FIRST_INPUT": [query, query], "SECOND_INPUT": [good, bad]})
            delta = float(np.max(np.abs(np.asarray(scores) - expected)))
            steps.append(_ok(s, f"case {i}: scores equal the local runtime", delta < TOLERANCE,
                             f"max |Δ| = {delta:.2e}"))
    return steps


def stored_embeddings(conn) -> list[Step]:
    """V16 (VECTOR_EMBEDDING over a CLOB) and V18 (COUNT on a VECTOR column)."""
    s = "5 stored embeddings"
    want = expected_counts()["RESEARCH_CHUNKS"]
    got = scalar(conn, "SELECT COUNT(embedding) FROM research_chunks")
    steps = [_ok(s, "COUNT(embedding) on RESEARCH_CHUNKS", got == want, f"{got} (expected {want})")]
    name = schema.identifier(config.embedding_model_name())
    row = _rows(conn, f"SELECT VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({name} USING text AS data), COSINE) "
                      "FROM research_chunks ORDER BY chunk_id FETCH FIRST 1 ROWS ONLY")
    distance = float(row[0][0]) if row else None
    steps.append(_ok(s, "VECTOR_EMBEDDING over the CLOB equals the stored vector",
                     distance is not None and distance < 1e-5, f"cosine distance {distance}"))
    return steps


# --------------------------------------------------------------------------- 6-8 indexes and search
def index_types(conn) -> list[Step]:
    s = "6 indexes"
    found = {r[0]: r[1:] for r in _rows(conn, "SELECT index_name, index_type, ityp_owner, ityp_name "
                                              "FROM user_indexes ORDER BY index_name")}
    try:  # 26ai: INMEMORY_NEIGHBOR_GRAPH_HNSW for an HNSW index (the embedded engine has no such column)
        subtypes = dict(_rows(conn, "SELECT index_name, index_subtype FROM user_indexes ORDER BY index_name"))
    except oracledb.DatabaseError as exc:
        subtypes = {name: f"n/a ({first_line(exc)[:9]})" for name in found}
    steps = []
    for index in schema.INDEXES:
        info = found.get(index.name)
        if info is None:
            steps.append(Step(s, index.name, "FAIL", "not in USER_INDEXES: run python -m workshop.setup"))
            continue
        kind, owner, itype = info
        subtype = subtypes.get(index.name)
        ok = kind == "VECTOR" if index.kind == "VECTOR" else (kind == "DOMAIN" and (owner, itype) == ("CTXSYS", "CONTEXT"))
        steps.append(_ok(s, index.name, ok, f"INDEX_TYPE {kind}, ITYP {owner}.{itype}, SUBTYPE {subtype}"))
    return steps


def approximate_search(conn) -> list[Step]:
    """V6: FETCH APPROX with a bound k, with and without a filter, returns k rows for every part 01 case."""
    from checkpoints.part01 import SEARCH_CASES
    s = "7 approximate search"
    name = schema.identifier(config.embedding_model_name())
    steps = []
    for query, subject, k in SEARCH_CASES:
        where = "WHERE primary_subject = :s " if subject else ""
        binds = {"q": query, "k": k, **({"s": subject} if subject else {})}
        rows = _rows(conn, f"SELECT arxiv_id FROM papers {where}ORDER BY VECTOR_DISTANCE(embedding, "
                           f"VECTOR_EMBEDDING({name} USING :q AS data), COSINE) "
                           "FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", binds)
        steps.append(_ok(s, f"k={k}, subject {subject}", len(rows) == k, f"{len(rows)} rows"))
    q64 = array.array("d", [0.0] * (schema.EMBEDDING_DIMENSIONS - 1) + [1.0])
    try:
        rows = _rows(conn, "SELECT arxiv_id FROM papers ORDER BY VECTOR_DISTANCE(embedding, :q, COSINE), arxiv_id "
                           "FETCH FIRST 1 ROWS ONLY", {"q": q64})
        steps.append(_ok(s, "FLOAT64 query vector against FLOAT32 column (V10)", len(rows) == 1, "accepted"))
    except oracledb.DatabaseError as exc:
        steps.append(Step(s, "FLOAT64 query vector against FLOAT32 column (V10)", "FAIL",
                          f"{first_line(exc)}: workshop.retrieval.sql.vector_bind must bind float32"))
    return steps


def oracle_text(conn) -> list[Step]:
    s = "8 Oracle Text"
    from .retrieval.keywords import keyword_terms
    steps = []
    for term in ("ORA-51962", "vector_memory_size"):
        expression = keyword_terms(term)
        hits = scalar(conn, "SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0", {"q": expression})
        steps.append(_ok(s, f"keyword_terms({term!r}) = {expression!r} finds chunks", bool(hits), f"{hits} chunks"))
    for text in HOSTILE_SEARCHES:
        expression = keyword_terms(text)
        if expression is None:              # nothing searchable: the helpers skip the keyword leg
            continue
        try:
            hits = scalar(conn, "SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0",
                          {"q": expression})
            steps.append(Step(s, f"hostile search {text!r} is escaped", "PASS", f"{expression!r}: {hits} chunks"))
        except oracledb.DatabaseError as exc:
            steps.append(Step(s, f"hostile search {text!r} is escaped", "FAIL", f"{expression!r}: {first_line(exc)}"))
    for expression, must_fail in TEXT_EXPRESSIONS.items():
        try:
            hits = scalar(conn, "SELECT COUNT(*) FROM papers WHERE CONTAINS(abstract, :q) > 0", {"q": expression})
            outcome, failed = f"{hits} matches", False
        except oracledb.DatabaseError as exc:
            drg = next((line for line in str(exc).splitlines() if line.startswith("DRG-")), None)
            outcome, failed = (drg or f"no DRG- line in: {first_line(exc)}"), drg is not None
            if drg is None:
                steps.append(Step(s, f"CONTAINS {expression!r}", "FAIL", outcome))
                continue
        want = "a DRG- error" if must_fail else "matches, no error"
        steps.append(_ok(s, f"CONTAINS {expression!r} gives {want}", failed == must_fail, outcome))
    return steps


# --------------------------------------------------------------------------- 9 graph
def property_graph(conn) -> list[Step]:
    s = "9 property graph"
    if schema.RESEARCH_GRAPH.name not in existing_graphs(conn):
        return [Step(s, "RESEARCH_GRAPH exists", "FAIL", "not in USER_PROPERTY_GRAPHS: run python -m workshop.setup")]
    want = expected_counts()["PAPER_AUTHORS"]
    edges = scalar(conn, "SELECT COUNT(*) FROM GRAPH_TABLE(research_graph MATCH (a IS author) -[w IS wrote]-> "
                         "(p IS paper) COLUMNS (a.author_id AS author_id))")
    steps = [_ok(s, "wrote edges", edges == want, f"{edges} (expected {want})")]
    seed = scalar(conn, "SELECT MIN(arxiv_id) FROM papers")
    one = scalar(conn, "SELECT COUNT(DISTINCT reached) FROM GRAPH_TABLE(research_graph MATCH (src IS paper) "
                       "-[IS similar_to]-> (dst IS paper) WHERE src.arxiv_id = :seed COLUMNS (dst.arxiv_id AS reached))",
                 {"seed": seed})
    two = scalar(conn, "SELECT COUNT(DISTINCT reached) FROM GRAPH_TABLE(research_graph MATCH (src IS paper) "
                       "-[IS similar_to]->{1,2} (dst IS paper) WHERE src.arxiv_id = :seed AND dst.arxiv_id <> "
                       "src.arxiv_id COLUMNS (dst.arxiv_id AS reached))", {"seed": seed})
    steps.append(_ok(s, "1 hop = 5 neighbours, {1,2} reaches more", one == 5 and two > one, f"1 hop {one}, 1-2 hops {two}"))
    return steps


# --------------------------------------------------------------------------- 10 driver semantics
PROBE_TABLE = "vo_probe"


def driver_semantics(conn) -> list[Step]:
    """D4, D5, V14 and D9: RETURNING INTO, dict and numpy binds, a JSON boolean in a path filter."""
    s = "10 python-oracledb rules"
    steps = []
    _drop_quietly(conn, [f"DROP TABLE IF EXISTS {PROBE_TABLE} PURGE"])
    _execute(conn, f"CREATE TABLE {PROBE_TABLE} (id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                   "doc JSON, emb VECTOR(3, FLOAT32))")
    try:
        with conn.cursor() as cur:
            new_id = cur.var(int)
            cur.setinputsizes(doc=oracledb.DB_TYPE_JSON)
            cur.execute(f"INSERT INTO {PROBE_TABLE} (doc, emb) VALUES (:doc, :emb) RETURNING id INTO :new_id",
                        {"doc": {"success": True}, "emb": array.array("f", [1, 0, 0]), "new_id": new_id})
            returned = new_id.getvalue()
        steps.append(_ok(s, "INSERT ... RETURNING id INTO :new_id, dict bound as DB_TYPE_JSON",
                         isinstance(returned, list) and len(returned) == 1, f"getvalue() = {returned}"))
        for label, binds in (("dict without DB_TYPE_JSON", {"doc": {"success": False}, "emb": None}),
                             ("numpy array as a vector", {"doc": None, "emb": np.array([0.0, 1.0, 0.0])})):
            try:
                _execute(conn, f"INSERT INTO {PROBE_TABLE} (doc, emb) VALUES (:doc, :emb)", binds)
                steps.append(Step(s, f"{label} is refused (DPY-3002)", "FAIL", "accepted"))
            except (oracledb.Error, TypeError) as exc:
                steps.append(_ok(s, f"{label} is refused (DPY-3002)", "DPY-3002" in str(exc), first_line(exc)))
        conn.rollback()
        with conn.cursor() as cur:
            cur.setinputsizes(doc=oracledb.DB_TYPE_JSON)
            cur.execute(f"INSERT INTO {PROBE_TABLE} (doc) VALUES (:doc)", {"doc": {"success": True}})
        hits = scalar(conn, f"SELECT COUNT(*) FROM {PROBE_TABLE} WHERE JSON_EXISTS(doc, '$?(@.success == true)')")
        steps.append(_ok(s, "JSON_EXISTS with a JSON true literal (D9)", hits == 1, f"{hits} row(s)"))
    finally:
        conn.rollback()
        _drop_quietly(conn, [f"DROP TABLE IF EXISTS {PROBE_TABLE} PURGE"])
    return steps


# --------------------------------------------------------------------------- 11 row-level security
RLS_SPEC = """CREATE OR REPLACE PACKAGE vo_tenant_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2);
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END vo_tenant_pkg;"""
RLS_BODY = """CREATE OR REPLACE PACKAGE BODY vo_tenant_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    DBMS_SESSION.SET_CONTEXT('vo_ctx', 'tenant_id', p_tenant);
  END set_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''vo_ctx'', ''tenant_id'')';
  END tenant_predicate;
END vo_tenant_pkg;"""
#: The one context both RLS probes bind (CREATE OR REPLACE CONTEXT rebinds it to each probe's package). It is
#: never dropped: DROP CONTEXT needs DROP ANY CONTEXT (SQL Language Reference, DROP CONTEXT), which the
#: workshop user does not hold, so a fixed name is reused instead of leaving a new context behind per run.
PROBE_CONTEXT = "vo_ctx"
RLS_CLEANUP = [
    "BEGIN DBMS_RLS.DROP_POLICY(object_schema => USER, object_name => 'VO_SECURED', policy_name => 'VO_TENANT'); END;",
    "DROP TABLE IF EXISTS vo_secured PURGE",
    "DROP PACKAGE vo_tenant_pkg",
]


def row_level_security(conn) -> list[Step]:
    """R1-R3: CREATE CONTEXT, a policy function declared in the package spec, isolation, update_check."""
    s = "11 row-level security"
    steps = []
    _drop_quietly(conn, RLS_CLEANUP)
    try:
        _execute(conn, "CREATE TABLE vo_secured (id NUMBER PRIMARY KEY, tenant_id VARCHAR2(20) NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO vo_secured (id, tenant_id) VALUES (:1, :2)",
                            [(1, "acme"), (2, "globex"), (3, "acme")])
        conn.commit()
        _execute(conn, f"CREATE OR REPLACE CONTEXT {PROBE_CONTEXT} USING vo_tenant_pkg")
        _execute(conn, RLS_SPEC)
        _execute(conn, RLS_BODY)
        _execute(conn, """BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'VO_SECURED',
                   policy_name => 'VO_TENANT', function_schema => USER,
                   policy_function => 'VO_TENANT_PKG.TENANT_PREDICATE',
                   statement_types => 'SELECT,INSERT,UPDATE,DELETE', update_check => TRUE); END;""")
        steps.append(Step(s, "CREATE CONTEXT, package, DBMS_RLS.ADD_POLICY", "PASS", "created"))
        unset = scalar(conn, "SELECT COUNT(*) FROM vo_secured")
        steps.append(_ok(s, "no context set: no rows", unset == 0, f"{unset} rows"))
        with conn.cursor() as cur:
            cur.callproc("vo_tenant_pkg.set_tenant", ["acme"])
        seen = sorted(r[0] for r in _rows(conn, "SELECT DISTINCT tenant_id FROM vo_secured"))
        steps.append(_ok(s, "tenant acme sees only acme", seen == ["acme"], f"tenants seen: {seen}"))
        try:
            _execute(conn, "INSERT INTO vo_secured (id, tenant_id) VALUES (9, 'globex')")
            steps.append(Step(s, "cross-tenant INSERT refused (ORA-28115)", "FAIL", "accepted"))
        except oracledb.DatabaseError as exc:
            steps.append(_ok(s, "cross-tenant INSERT refused (ORA-28115)", "ORA-28115" in str(exc), first_line(exc)))
        conn.rollback()
    except oracledb.DatabaseError as exc:
        steps.append(Step(s, "RLS set-up", "FAIL", first_line(exc)))
    finally:
        conn.rollback()
        _drop_quietly(conn, RLS_CLEANUP)
    return steps


PRIVATE_BODY = RLS_BODY.replace("vo_tenant_pkg", "vo_private_pkg")
PRIVATE_CLEANUP = [c.replace("VO_SECURED", "VO_PRIVATE").replace("vo_secured", "vo_private")
                   .replace("VO_TENANT", "VO_PRIVATE").replace("vo_tenant_pkg", "vo_private_pkg") for c in RLS_CLEANUP]


def private_policy_function(conn) -> list[Step]:
    """R2: a policy function that is only in the package BODY cannot be called by DBMS_RLS, so Oracle refuses
    every query on the table (ORA-28110 per the audit). The embedded engine accepts this form; this step
    records what Oracle does, so the engine can be made to match."""
    s = "11 row-level security"
    name = "policy function missing from the package spec is refused"
    _drop_quietly(conn, PRIVATE_CLEANUP)
    try:
        _execute(conn, "CREATE TABLE vo_private (id NUMBER PRIMARY KEY, tenant_id VARCHAR2(20) NOT NULL)")
        _execute(conn, f"CREATE OR REPLACE CONTEXT {PROBE_CONTEXT} USING vo_private_pkg")
        _execute(conn, "CREATE OR REPLACE PACKAGE vo_private_pkg AS PROCEDURE set_tenant(p_tenant IN VARCHAR2); "
                       "END vo_private_pkg;")
        _execute(conn, PRIVATE_BODY)
        _execute(conn, """BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'VO_PRIVATE',
                   policy_name => 'VO_PRIVATE', function_schema => USER,
                   policy_function => 'VO_PRIVATE_PKG.TENANT_PREDICATE', statement_types => 'SELECT'); END;""")
        try:
            count = scalar(conn, "SELECT COUNT(*) FROM vo_private")
            return [Step(s, name, "FAIL", f"accepted: SELECT returned {count} rows (the audit expects ORA-28110)")]
        except oracledb.DatabaseError as exc:
            return [Step(s, name, "PASS", first_line(exc))]
    except oracledb.DatabaseError as exc:
        return [Step(s, name, "FAIL", f"set-up of the probe failed: {first_line(exc)}")]
    finally:
        conn.rollback()
        _drop_quietly(conn, PRIVATE_CLEANUP)


# --------------------------------------------------------------------------- 11b the harness's clock and time limit
def harness_limits(conn) -> list[Step]:
    """Part 07's approvals and query_finance (issue 19): (1) an approval's expiry compared in UTC on both sides
    (SYS_EXTRACT_UTC) holds in any session time zone, while a TIMESTAMP compared with SYSTIMESTAMP is converted in
    the session time zone (what the old comparison depended on: recorded, not required); (2) call_timeout ends
    a long query with DPY-4024 and the session stays usable."""
    s = "11b harness limits"
    steps = []
    stored = "CAST(SYS_EXTRACT_UTC(SYSTIMESTAMP) + NUMTODSINTERVAL(900, 'SECOND') AS TIMESTAMP)"
    try:
        for zone in ("+14:00", "-08:00"):
            _execute(conn, f"ALTER SESSION SET TIME_ZONE = '{zone}'")
            utc = scalar(conn, f"SELECT CASE WHEN {stored} > SYS_EXTRACT_UTC(SYSTIMESTAMP) THEN 1 ELSE 0 END FROM dual")
            old = scalar(conn, f"SELECT CASE WHEN {stored} > SYSTIMESTAMP THEN 1 ELSE 0 END FROM dual")
            steps.append(_ok(s, f"a fresh approval is unexpired in UTC at session time zone {zone}", utc == 1,
                             f"UTC comparison {utc}; TIMESTAMP > SYSTIMESTAMP gave {old}"))
    finally:
        _drop_quietly(conn, ["ALTER SESSION SET TIME_ZONE = LOCAL"])
    previous = conn.call_timeout
    conn.call_timeout = 200
    try:
        scalar(conn, "SELECT COUNT(*) FROM all_objects a, all_objects b, all_objects c")
        steps.append(Step(s, "call_timeout ends a long query with DPY-4024", "FAIL", "the query finished"))
    except oracledb.Error as exc:
        steps.append(_ok(s, "call_timeout ends a long query with DPY-4024", "DPY-4024" in str(exc), first_line(exc)))
    finally:
        conn.call_timeout = previous
    steps.append(_ok(s, "the session is usable after the timeout", scalar(conn, "SELECT 1 FROM dual") == 1, "1"))
    return steps


def probe_steps(startup_log: str | None = None) -> tuple[StepFn, ...]:
    """The live probes (workshop.verify_probes imports this module, so it is imported here, when needed)."""
    from . import verify_probes
    return verify_probes.probe_steps(startup_log)


# --------------------------------------------------------------------------- 13 issue 18 (engine3): unclear pages
# Each probe records Oracle's answer where the SQL Language Reference leaves the engine's choice unclear; PASS means
# Oracle answered as the embedded engine does (docs/embedded-engine.md, "Refusals and the pages they rest on").
ROUND3_TABLE = "vo_r3"


def _outcome(conn, sql: str, binds=None) -> str:
    try:
        _execute(conn, sql, binds)
        return "accepted"
    except oracledb.DatabaseError as exc:
        return f"ORA-{exc.args[0].code:05d}"


def engine_round3(conn) -> list[Step]:
    """E18-COALESCE, E18-IDX, E18-MERGE, E18-SYSTS, E18-ALIAS, E18-JSONALL, E18-REGEX, E18-JACCARD0, E18-DDL-*: Oracle's answer
    where the documentation is unclear."""
    s = "13 engine round 3"
    t, view, vec = ROUND3_TABLE, f"{ROUND3_TABLE}_v", f"{ROUND3_TABLE}_vec"
    cleanup = [f"DROP VIEW IF EXISTS {view}"] + [f"DROP TABLE IF EXISTS {x} PURGE" for x in
                                                   (t, vec, f"{t}_vc", f"{t}_e")]
    _drop_quietly(conn, cleanup)
    _execute(conn, f"CREATE TABLE {ROUND3_TABLE} (k VARCHAR2(10) PRIMARY KEY, n NUMBER)")
    _execute(conn, f"CREATE VIEW {view} AS SELECT k, n FROM {t}")
    _execute(conn, f"CREATE TABLE {vec} (v VECTOR(3, FLOAT32), w VECTOR(3, FLOAT32))")
    try:
        checks = [
            ("E18-COALESCE: COALESCE(1, 'a') is ORA-00932", "SELECT COALESCE(1, 'a') FROM dual", None, "ORA-00932"),
            ("E18-IDX: CREATE INDEX IF NOT EXISTS over the primary key's column list is a no-op",
             f"CREATE INDEX IF NOT EXISTS {ROUND3_TABLE}_k ON {ROUND3_TABLE} (k)", None, "accepted"),
            ("E18-MERGE: one trailing ';' after a MERGE is accepted",
             f"MERGE INTO {ROUND3_TABLE} d USING (SELECT 'x' k FROM dual) s ON (d.k = s.k) "
             "WHEN NOT MATCHED THEN INSERT (k, n) VALUES (s.k, 1);", None, "accepted"),
            ("E18-SYSTS: SYSTIMESTAMP(3) is accepted", "SELECT SYSTIMESTAMP(3) FROM dual", None, "accepted"),
            # the engine keeps "a" and "A" apart (SQLite folds them) but leaves a truly repeated alias ambiguous
            ("E18-ALIAS: one alias twice in a FROM clause, then qualified, is ORA-00918",
             "SELECT a.dummy FROM dual a, dual a", None, "ORA-00918"),
            # DDL refusals whose error the pages do not name (docs/embedded-engine.md, "Refusals")
            ("E18-DDL-IDXVIEW: CREATE INDEX on a view is ORA-01702",
             f"CREATE INDEX {t}_vix ON {view} (k)", None, "ORA-01702"),
            ("E18-DDL-TRUNCVIEW: TRUNCATE TABLE of a view is ORA-00942", f"TRUNCATE TABLE {view}", None, "ORA-00942"),
            ("E18-DDL-ALTERVIEW: ALTER TABLE ... ADD on a view is ORA-00942",
             f"ALTER TABLE {view} ADD (z NUMBER)", None, "ORA-00942"),
            ("E18-DDL-VC4001: VARCHAR2(4001) is ORA-00910 (MAX_STRING_SIZE = STANDARD)",
             f"CREATE TABLE {t}_vc (c VARCHAR2(4001))", None, "ORA-00910"),
            ("E18-DDL-NOCOLS: CREATE TABLE with an empty column list is ORA-00904",
             f"CREATE TABLE {t}_e ()", None, "ORA-00904"),
            ("E18-DDL-COMMENT: COMMENT ON COLUMN with a one-part name is ORA-00904",
             f"COMMENT ON COLUMN {t} IS 'x'", None, "ORA-00904"),
            ("E18-DDL-VIDXCOLS: a vector index on two VECTOR columns is ORA-51823",
             f"CREATE VECTOR INDEX {vec}_x2 ON {vec} (v, w)", None, "ORA-51823"),
            ("E18-DDL-VIDXMETRIC: CREATE VECTOR INDEX ... DISTANCE FOO is ORA-51806",
             f"CREATE VECTOR INDEX {vec}_xm ON {vec} (v) DISTANCE FOO", None, "ORA-51806"),
            ("E18-DDL-PGDROP: DROP PROPERTY GRAPH of a graph that does not exist is ORA-00942",
             f"DROP PROPERTY GRAPH {t}_nosuch_g", None, "ORA-00942"),
            ("E18-DDL-RLSADD: DBMS_RLS.ADD_POLICY naming a function that does not exist is ORA-28112",
             f"BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => '{vec.upper()}', policy_name => "
             f"'{t.upper()}_P', function_schema => USER, policy_function => '{t.upper()}_NOSUCH_FN', "
             "statement_types => 'SELECT'); END;", None, "ORA-28112"),
        ]
        # langchain-oracledb's own test_filters expects {'3'} for $all ["tea", "soda"] over drinks ["soda", "tea"]:
        # Oracle would then test the filter on the array as a whole (existentially); the engine unwraps it first
        json_checks = [
            ("E18-JSONALL: '$.d?(@ == \"tea\" && @ == \"soda\")' over [\"soda\", \"tea\"] finds no row",
             "SELECT COUNT(*) FROM dual WHERE JSON_EXISTS('{\"d\":[\"soda\",\"tea\"]}', "
             "'$.d?(@ == \"tea\" && @ == \"soda\")')", 0),
            ("E18-REGEX: like_regex \"*rk\" does not match \"Mark\"",
             "SELECT COUNT(*) FROM dual WHERE JSON_EXISTS('{\"n\":\"Mark\"}', '$.n?(@ like_regex \"*rk\")')", 0),
            # the Jaccard page does not say what two all-zero BINARY vectors are apart; the engine answers 0
            ("E18-JACCARD0: the JACCARD distance of two all-zero BINARY vectors is 0",
             "SELECT COUNT(*) FROM dual WHERE VECTOR_DISTANCE(TO_VECTOR('[0]', 8, BINARY), TO_VECTOR('[0]', 8, BINARY), "
             "JACCARD) = 0", 1),
        ]
        steps = []
        for name, sql, binds, expected in checks:
            got = _outcome(conn, sql, binds)
            steps.append(_ok(s, name, got == expected, got))
        for name, sql, expected in json_checks:
            try:
                count = _rows(conn, sql)[0][0]
            except oracledb.DatabaseError as exc:
                count = f"ORA-{exc.args[0].code:05d}"
            steps.append(_ok(s, name, count == expected, f"{count} row(s)"))
        return steps
    finally:
        conn.rollback()
        _drop_quietly(conn, cleanup)


DATABASE_STEPS: tuple[StepFn, ...] = (environment, grants, embedding_model, reranker, stored_embeddings, index_types,
                                      approximate_search, oracle_text, property_graph, driver_semantics,
                                      row_level_security, private_policy_function, harness_limits,
                                      engine_round3)


def run_steps(conn: oracledb.Connection, steps: tuple[StepFn, ...] = DATABASE_STEPS) -> list[Step]:
    """Run each step; one that raises is reported FAIL with its error, and the others still run."""
    results: list[Step] = []
    for fn in steps:
        try:
            results.extend(fn(conn))
        except Exception as exc:  # a report tool: every failure becomes a line of the report
            results.append(Step(fn.__name__, "the step raised", "FAIL", f"{type(exc).__name__}: {first_line(exc)}"))
            try:
                conn.rollback()
            except oracledb.Error:
                pass
    return results


def _cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return text.replace("|", "\\|").replace("\n", " ")


NO_ADVICE = "no advice recorded: compare with the embedded engine and paste this line into an issue"


def report(steps: list[Step], *, dsn: str) -> str:
    """Markdown a maintainer pastes into an issue: every check, then what to change for each difference."""
    failed = [s for s in steps if s.status == "FAIL"]
    lines = ["### `python -m workshop.verify_oracle` report", "",
             f"- when: {dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')}",
             f"- database: `{dsn}`; python {platform.python_version()}, python-oracledb {oracledb.__version__}",
             f"- embedding model `{config.embedding_model_name()}`, reranker `{config.reranker_model_name()}`", "",
             "| section | check | result | detail |", "|---|---|---|---|"]
    lines += [f"| {s.section} | {s.name} | {s.status} | {_cell(s.detail)} |" for s in steps]
    if failed:
        lines += ["", "#### What to change", ""]
        lines += [f"- **{s.section} / {_cell(s.name)}**: {_cell(s.change or NO_ADVICE)}" for s in failed]
    counts = {k: sum(1 for s in steps if s.status == k) for k in ("PASS", "FAIL", "SKIP")}
    lines += ["", f"Result: {'DIFFERENCES FOUND' if failed else 'no difference'} "
                  f"({counts['PASS']} pass, {counts['FAIL']} fail, {counts['SKIP']} skipped)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.verify_oracle", description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="also run every solution notebook (nbclient) and the tests marked oracle")
    parser.add_argument("--skip-notebooks", action="store_true", help="with --full: do not run the notebooks")
    parser.add_argument("--startup-log", help="the start-up script's output (the CI job's startdb.log), for the "
                                              "vector-pool probe")
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument("--allow-embedded", action="store_true",
                        help="run against the embedded engine (to try the command; it is not a live test)")
    args = parser.parse_args(argv)
    if not config.oracle_dsn() and not args.allow_embedded:
        print("ORACLE_DSN is not set: this command checks a live Oracle AI Database. Set ORACLE_DSN, ORACLE_USER "
              "and ORACLE_PASSWORD (the devcontainer does), run python -m workshop.setup, then run it again.",
              file=sys.stderr)
        return 2
    try:
        conn = db.connect()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        print(f"Could not connect: {exc}", file=sys.stderr)
        return 2
    startup_log = None
    if args.startup_log:
        try:
            startup_log = open(args.startup_log, encoding="utf-8").read()
        except OSError as exc:
            startup_log = f"(could not read {args.startup_log}: {exc})"
    try:
        dsn = conn.dsn if not is_embedded(conn) else f"embedded engine ({conn.dsn})"
        steps = run_steps(conn, DATABASE_STEPS)
        if args.full:
            from . import verify_runs
            if not args.skip_notebooks:
                steps += verify_runs.notebook_steps()      # first: part 04 makes the index a probe searches
            steps += verify_runs.oracle_test_steps()
        if is_embedded(conn):
            steps.append(Step("13 probes", "the live probes", "SKIP", "Oracle only (embedded engine)"))
        else:
            steps += run_steps(conn, probe_steps(startup_log))
    finally:
        conn.close()
    text = report(steps, dsn=dsn)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 1 if any(s.status == "FAIL" for s in steps) else 0


if __name__ == "__main__":
    sys.exit(main())
