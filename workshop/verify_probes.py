"""The questions only a live Oracle AI Database can settle (issue 20; shared/research/oracle-fidelity-wave2.md
section 3, U1-U6, and issue 18's three statements), each a probe with its expected answer and, when Oracle
answers otherwise, what to change. `python -m workshop.verify_oracle` runs them after its checklist.

Probes that ask "does Oracle answer as the embedded engine does?" compute the expected answer by running the
same statements on a scratch embedded database, so the expectation follows the engine as it changes.
Every object a probe creates is named VO_* and dropped again (VO_CTX, a context, stays: see verify_oracle).
"""
from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import oracledb

from . import config, db, schema
from .setup import RERANKER_REFUSED_KEY, existing_indexes, existing_models, first_line, read_meta, scalar
from .verify_oracle import Step, _drop_quietly, _execute, _ok, _rows

S = "13 probes"
QUERY, PASSAGE = "how do I size the vector memory pool?", "Set vector_memory_size before building HNSW indexes."
PART04_QUESTION = "Which column has the loan interest rate?"      # solutions/04 section 7
HYBRID_INDEX = "AML_KNOWLEDGE_HYBRID_IDX"


def _code(exc: BaseException) -> str:
    """'ORA-01408' (or DPY-/DRG-) of an error, else its first line."""
    found = re.search(r"\b(ORA|DPY|DRG|PLS)-\d{4,5}\b", str(exc))
    return found.group(0) if found else first_line(exc)


def _outcome(conn, statements: list[str]) -> str:
    """'ok' when every statement runs, else the code of the first that fails."""
    try:
        for sql in statements:
            _execute(conn, sql)
        return "ok"
    except oracledb.DatabaseError as exc:
        return _code(exc)


# --------------------------------------------------------------------------- U1: EXECUTE through CTXAPP
def ctxsys_packages(conn) -> list[Step]:
    """Who gives this user EXECUTE on CTXSYS.DBMS_VECTOR_CHAIN and DBMS_HYBRID_VECTOR (ALL_TAB_PRIVS lists the
    grants to the user, its enabled roles and PUBLIC). Expected: the direct grant of the start-up script, and
    not CTXAPP alone (CTXAPP is documented for the CTX_ packages)."""
    rows = _rows(conn, "SELECT table_name, grantee FROM all_tab_privs WHERE table_schema = 'CTXSYS' "
                       "AND table_name IN ('DBMS_VECTOR_CHAIN', 'DBMS_HYBRID_VECTOR') AND privilege = 'EXECUTE'")
    user = scalar(conn, "SELECT USER FROM dual")
    steps = []
    for package in ("DBMS_VECTOR_CHAIN", "DBMS_HYBRID_VECTOR"):
        grantees = sorted({g for t, g in rows if t == package})
        steps.append(_ok(S, f"EXECUTE on CTXSYS.{package} granted to {user} directly", user in grantees,
                         f"grantees seen: {grantees or 'none'}",
                         f"the start-up script's GRANT EXECUTE ON CTXSYS.{package} did not take: read its WORKSHOP: "
                         "log lines; the owner in workshop/oracle_grants.py may be wrong"))
        via_role = bool({"CTXAPP", "PUBLIC"} & set(grantees))
        steps.append(_ok(S, f"CTXSYS.{package} not reachable through CTXAPP/PUBLIC alone (expected)", not via_role,
                         f"through CTXAPP or PUBLIC: {'yes' if via_role else 'no'}",
                         f"CTXAPP (or PUBLIC) already gives EXECUTE on CTXSYS.{package}: the direct grant in "
                         "workshop/oracle_grants.py is redundant (harmless); note it there"))
    return steps


# --------------------------------------------------------------------------- U2 and H4: PREDICTION inputs
def _predict(conn, using: str, binds: dict):
    return scalar(conn, f"SELECT PREDICTION({schema.identifier(config.reranker_model_name())} USING {using}) "
                        "FROM dual", binds)


def prediction_inputs(conn) -> list[Step]:
    """A CLOB second input scores like a VARCHAR2 one (part 05 passes title || content); DATA1/DATA2 on a model
    loaded with FIRST_INPUT/SECOND_INPUT is refused (the embedded engine's ORA-40105)."""
    if existing_models(conn).get(schema.identifier(config.reranker_model_name())) != "REGRESSION":
        return [Step(S, "PREDICTION inputs", "SKIP", "the reranker is not loaded (see section 4)")]
    binds = {"q": QUERY, "d": PASSAGE}
    plain = _predict(conn, ":q AS FIRST_INPUT, :d AS SECOND_INPUT", binds)
    steps = []
    try:
        clob = _predict(conn, ":q AS FIRST_INPUT, TO_CLOB(:d) AS SECOND_INPUT", binds)
        same = clob is not None and plain is not None and abs(float(clob) - float(plain)) < 1e-5
        steps.append(_ok(S, "PREDICTION with a CLOB SECOND_INPUT scores like VARCHAR2", same,
                         f"CLOB {clob}, VARCHAR2 {plain}",
                         "part 05 (workshop/pipeline/search.py) passes title || content, a CLOB: cast it with "
                         "DBMS_LOB.SUBSTR(..., 4000), and make the embedded engine do what Oracle did"))
    except oracledb.DatabaseError as exc:
        steps.append(Step(S, "PREDICTION with a CLOB SECOND_INPUT scores like VARCHAR2", "FAIL", first_line(exc),
                          "Oracle refuses a CLOB model input: cast part 05's SECOND_INPUT with "
                          f"DBMS_LOB.SUBSTR(..., 4000) and make the embedded engine raise {_code(exc)} for a CLOB"))
    try:
        value = _predict(conn, ":q AS DATA1, :d AS DATA2", binds)
        steps.append(Step(S, "PREDICTION USING ... AS DATA1, ... AS DATA2 is refused (as the engine does)", "FAIL",
                          f"Oracle returned {value!r}",
                          f"Oracle scores it ({value!r}) instead of refusing: make workshop/embedded/model_support."
                          "_map_inputs return that for missing attributes instead of ORA-40105"))
    except oracledb.DatabaseError as exc:
        code = _code(exc)
        steps.append(_ok(S, "PREDICTION USING ... AS DATA1, ... AS DATA2 is refused (as the engine does)",
                         code == "ORA-40105", first_line(exc),
                         f"Oracle refuses with {code}: use that code in workshop/embedded/model_support._map_inputs"))
    return steps


# --------------------------------------------------------------------------- U3: the vector pool
def vector_pool(conn, startup_log: str | None = None) -> list[Step]:
    """V$VECTOR_MEMORY_POOL as FREEPDB1 sees it, per container, and (from the start-up script's log) whether
    ALTER SYSTEM SET vector_memory_size = 512M SCOPE=BOTH was accepted on Free."""
    steps = []
    try:
        rows = _rows(conn, "SELECT con_id, NVL(SUM(alloc_bytes), 0) FROM v$vector_memory_pool GROUP BY con_id "
                           "ORDER BY con_id")
        here = scalar(conn, "SELECT SYS_CONTEXT('USERENV', 'CON_ID') FROM dual")
        total = sum(int(r[1] or 0) for r in rows)
        hnsw = [i.name for i in schema.INDEXES if i.kind == "VECTOR"]
        built = all(i in existing_indexes(conn) for i in hnsw)
        steps.append(_ok(S, "V$VECTOR_MEMORY_POOL from FREEPDB1 shows the pool (> 0 bytes)", total > 0,
                         f"rows per CON_ID {[(int(c), int(b or 0)) for c, b in rows]}, this container {here}; "
                         f"HNSW indexes {'built' if built else 'missing'}",
                         "the PDB reads 0 while the pool exists: make workshop/doctor.check_vector_pool pass on 0 "
                         "when the HNSW indexes exist" if built else
                         "the pool is empty: see the start-up script's log (WORKSHOP: vector memory pool ...)"))
    except oracledb.DatabaseError as exc:
        steps.append(Step(S, "V$VECTOR_MEMORY_POOL from FREEPDB1 shows the pool (> 0 bytes)", "FAIL",
                          first_line(exc), "GRANT SELECT ON SYS.V_$VECTOR_MEMORY_POOL did not take (oracle_grants)"))
    if startup_log is None:
        steps.append(Step(S, "vector_memory_size = 512M SCOPE=BOTH accepted on Free", "SKIP",
                          "no start-up log given (--startup-log; the CI job passes startdb.log)"))
        return steps
    lines = [line for line in startup_log.splitlines() if line.startswith("WORKSHOP:")]
    refused = any("SCOPE=BOTH refused" in line for line in lines)
    resized = any("SCOPE=BOTH" in line for line in lines)
    in_effect = next((line for line in lines if "in effect" in line or "WARNING: vector memory pool" in line), "")
    detail = ("already sized, no ALTER SYSTEM" if not resized else
              "refused, SPFILE and restart" if refused else "accepted") + (f"; {in_effect}" if in_effect else "")
    steps.append(_ok(S, "vector_memory_size = 512M SCOPE=BOTH accepted on Free", not refused, detail,
                     "Free refuses the dynamic resize: the SPFILE-and-restart branch runs on every new volume; "
                     "say so in .devcontainer/README.md (first start is slower)"))
    return steps


# --------------------------------------------------------------------------- U4: part 04's keyword mode
def hybrid_keyword_rows(conn) -> list[Step]:
    """DBMS_HYBRID_VECTOR.SEARCH in keyword mode (text only), as OracleHybridSearchRetriever sends it, on part
    04's question: 5 rows expected (the stored outputs of solutions/04 section 7 show 5)."""
    name = "DBMS_HYBRID_VECTOR.SEARCH keyword mode: 5 rows for part 04's question"
    if HYBRID_INDEX not in existing_indexes(conn):
        return [Step(S, name, "SKIP", f"{HYBRID_INDEX} does not exist: it is made by solutions/04 section 7 "
                                      "(--full runs the notebooks first)")]
    params = {"hybrid_index_name": HYBRID_INDEX, "text": {"search_text": PART04_QUESTION},
              "return": {"topN": 5, "values": ["rowid", "score"], "format": "JSON"}}
    try:
        with conn.cursor() as cur:
            cur.setinputsizes(p=oracledb.DB_TYPE_JSON)
            cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(json(:p)) FROM dual", p=params)
            raw = cur.fetchone()[0]
    except oracledb.DatabaseError as exc:
        return [Step(S, name, "FAIL", first_line(exc), f"{_code(exc)}: if PLS-00201, EXECUTE on "
                                                        "CTXSYS.DBMS_HYBRID_VECTOR is missing (oracle_grants)")]
    rows = _json_value(raw)
    return [_ok(S, name, len(rows) == 5, f"{len(rows)} rows",
                "the keyword column of solutions/04 section 7 shows blank cells on Oracle (the cell pads them): "
                "say so in the section's text; the embedded engine's keyword mode returns 5")]


def _json_value(raw):
    """SEARCH returns JSON text (a CLOB or a str) or, as a JSON-type value, a Python list already."""
    if hasattr(raw, "read"):
        raw = raw.read()
    return json.loads(raw) if isinstance(raw, (str, bytes)) else raw


# --------------------------------------------------------------------------- K10: hybrid index privileges
HYBRID_PROBE_CLEANUP = ["DROP INDEX vo_hybrid_idx FORCE", "DROP TABLE IF EXISTS vo_hybrid PURGE",
                        "BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('VO_VECTORIZER'); END;"]


def hybrid_index_privileges(conn) -> list[Step]:
    """What langchain-oracledb's create_hybrid_index does (part 04): a vectorizer preference, CREATE HYBRID
    VECTOR INDEX, the preference dropped right after, then a search. Expected: the workshop user's grants
    suffice for every step."""
    name = "CREATE HYBRID VECTOR INDEX with a preference dropped right after, then a search"
    model = schema.identifier(config.embedding_model_name())
    _drop_quietly(conn, HYBRID_PROBE_CLEANUP)
    done = []
    try:
        for label, sql in (
                ("table", "CREATE TABLE vo_hybrid (id NUMBER PRIMARY KEY, text VARCHAR2(400))"),
                ("rows", "INSERT INTO vo_hybrid VALUES (1, 'the loan interest rate in basis points')"),
                ("commit", "COMMIT"),
                ("preference", "BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE('VO_VECTORIZER', "
                               f"DBMS_VECTOR_CHAIN.VECTORIZER, json('{{\"model\":\"{model}\"}}')); END;"),
                ("index", "CREATE HYBRID VECTOR INDEX vo_hybrid_idx ON vo_hybrid(text) "
                          "PARAMETERS ('VECTORIZER VO_VECTORIZER')"),
                ("drop preference", "BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('VO_VECTORIZER'); END;"),
                ("search", "SELECT DBMS_HYBRID_VECTOR.SEARCH(json('{\"hybrid_index_name\":\"VO_HYBRID_IDX\","
                           "\"vector\":{\"search_text\":\"interest rate\"},\"return\":{\"topN\":1}}')) FROM dual")):
            _execute(conn, sql)
            done.append(label)
        return [Step(S, name, "PASS", " -> ".join(done))]
    except oracledb.DatabaseError as exc:
        return [Step(S, name, "FAIL", f"after {' -> '.join(done) or 'nothing'}: {first_line(exc)}",
                     f"{_code(exc)}: add the privilege this names to workshop/oracle_grants.py GRANTS (and the "
                     "start-up script), or say in part 04 that section 7 needs it")]
    finally:
        conn.rollback()
        _drop_quietly(conn, HYBRID_PROBE_CLEANUP)


# --------------------------------------------------------------------------- U6: the ONNX models
def onnx_models(conn) -> list[Step]:
    """LOAD_ONNX_MODEL accepted both models (the reranker's scalar regression output) and the dictionary lists
    the attribute names the SQL uses."""
    models = existing_models(conn)
    refused = read_meta(conn).get(RERANKER_REFUSED_KEY)
    steps = []
    for model, function, attributes in ((schema.identifier(config.embedding_model_name()), "EMBEDDING", {"DATA"}),
                                        (schema.identifier(config.reranker_model_name()), "REGRESSION",
                                         {"FIRST_INPUT", "SECOND_INPUT"})):
        loaded = models.get(model) == function
        detail = f"USER_MINING_MODELS: {models.get(model) or 'absent'}"
        if not loaded and function == "REGRESSION" and refused:
            detail += f"; LOAD_ONNX_MODEL refused it: {refused}"
        steps.append(_ok(S, f"LOAD_ONNX_MODEL accepted {model} as {function}", loaded, detail,
                         "Oracle refuses the graph: the regression output must be a scalar per row (see "
                         "workshop/models/reranker_graph.py); paste this line into issue 20"))
        if loaded:
            found = {r[0] for r in _rows(conn, "SELECT attribute_name FROM user_mining_model_attributes "
                                               "WHERE model_name = :m", {"m": model})} - {"ORA$ONNXTARGET"}
            steps.append(_ok(S, f"{model}'s attributes are {sorted(attributes)}", found == attributes,
                             f"USER_MINING_MODEL_ATTRIBUTES: {sorted(found)}",
                             "the SQL's USING ... AS names must be these: change the metadata's \"input\" map "
                             "(workshop/models) or every USING clause"))
    return steps


# --------------------------------------------------------------------------- issue 18: same answer as the engine
@dataclass(frozen=True)
class ParityProbe:
    name: str
    setup: tuple[str, ...]
    statement: str
    cleanup: tuple[str, ...]


PARITY_PROBES = (
    ParityProbe("CREATE INDEX IF NOT EXISTS on a primary-key column list",
                ("CREATE TABLE vo_pk (id NUMBER PRIMARY KEY, v VARCHAR2(10))",),
                "CREATE INDEX IF NOT EXISTS vo_pk_ix ON vo_pk (id)", ("DROP TABLE IF EXISTS vo_pk PURGE",)),
    ParityProbe("a trailing ';' after MERGE through cursor.execute",
                ("CREATE TABLE vo_merge (id NUMBER PRIMARY KEY, v VARCHAR2(10))",),
                "MERGE INTO vo_merge t USING (SELECT 1 AS id FROM dual) s ON (t.id = s.id) "
                "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'a');", ("DROP TABLE IF EXISTS vo_merge PURGE",)),
    ParityProbe("SYSTIMESTAMP(3)", (), "SELECT SYSTIMESTAMP(3) FROM dual", ()),
)


def _engine_answer(probe: ParityProbe) -> str:
    """What the embedded engine answers, on a scratch database file."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = db.connect_embedded_file(Path(tmp) / "probe.db")
        try:
            for sql in probe.setup:
                _execute(scratch, sql)
            return _outcome(scratch, [probe.statement])
        finally:
            scratch.close()


def engine_parity(conn, engine_answer: Callable[[ParityProbe], str] = _engine_answer) -> list[Step]:
    """Each statement on Oracle and on the embedded engine: the same outcome ('ok' or the same error code)."""
    steps = []
    for probe in PARITY_PROBES:
        expected = engine_answer(probe)
        _drop_quietly(conn, list(probe.cleanup))
        try:
            for sql in probe.setup:
                _execute(conn, sql)
            got = _outcome(conn, [probe.statement])
        finally:
            conn.rollback()
            _drop_quietly(conn, list(probe.cleanup))
        steps.append(_ok(S, f"{probe.name}: Oracle answers as the engine ({expected})", got == expected,
                         f"Oracle: {got}; embedded engine: {expected}",
                         f"make the embedded engine answer {got} (workshop/embedded/), and cite the page"))
    return steps


# --------------------------------------------------------------------------- H1/U5: the read-only session
def readonly_session(conn, opener: Callable[[], oracledb.Connection] | None = None) -> list[Step]:
    """Part 07's tools' session on Oracle: it reads the FINANCE tables, runs both models and binds a tenant
    through the trusted package (all through CURRENT_SCHEMA), and the database refuses its writes."""
    from .oracle_grants import readonly_user
    name = "read-only session"
    if readonly_user() is None:
        return [Step(S, name, "FAIL", "ORACLE_READONLY_USER is not set",
                     "set ORACLE_READONLY_USER / ORACLE_READONLY_PASSWORD (compose.yaml and ci.yml do)")]
    try:
        ro = (opener or (lambda: db.connect(readonly=True, retries=1)))()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        return [Step(S, name, "FAIL", first_line(exc), "the start-up script did not create the user: read its log")]
    embed, rerank = (schema.identifier(config.embedding_model_name()), schema.identifier(config.reranker_model_name()))
    reads = (("reads FINANCE_LOANS", "SELECT COUNT(*) FROM finance_loans", {}),
             ("VECTOR_EMBEDDING through CURRENT_SCHEMA",
              f"SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING({embed} USING :t AS data)) FROM dual", {"t": "x"}),
             ("PREDICTION through CURRENT_SCHEMA",
              f"SELECT PREDICTION({rerank} USING :q AS FIRST_INPUT, :d AS SECOND_INPUT) FROM dual",
              {"q": QUERY, "d": PASSAGE}),
             ("reads the model card (WORKSHOP_META)", "SELECT COUNT(*) FROM workshop_meta", {}))
    steps = []
    try:
        for label, sql, binds in reads:
            try:
                value = scalar(ro, sql, binds)
                steps.append(Step(S, f"{name}: {label}", "PASS", f"{value}"))
            except oracledb.DatabaseError as exc:
                steps.append(Step(S, f"{name}: {label}", "FAIL", first_line(exc),
                                  f"{_code(exc)}: add the object this needs to workshop/oracle_grants.reader_grants"))
        for label, sql in (("DELETE is refused", "DELETE FROM finance_loans WHERE 1 = 0"),
                           ("CREATE TABLE is refused", "CREATE TABLE vo_ro_probe (x NUMBER)")):
            try:
                _execute(ro, sql)
                steps.append(Step(S, f"{name}: {label}", "FAIL", "accepted",
                                  "the read-only user can write: revoke what workshop/oracle_grants.py does not list"))
                if sql.startswith("CREATE TABLE"):
                    _drop_quietly(ro, ["DROP TABLE IF EXISTS vo_ro_probe PURGE"])
            except oracledb.DatabaseError as exc:
                steps.append(Step(S, f"{name}: {label}", "PASS", first_line(exc)))
            finally:
                ro.rollback()
    finally:
        ro.close()
    return steps


#: (door, statement, the error the embedded read-only session raises: workshop/embedded/readonly.py). Each names
#: objects that do not exist or matches no row, so a door Oracle did open would change nothing.
READONLY_DOORS = (
    ("DBMS_RLS.DROP_POLICY", "BEGIN DBMS_RLS.DROP_POLICY('VO_NONE', 'VO_NONE', 'VO_NONE'); END;", "PLS-00201"),
    ("DBMS_VECTOR.DROP_ONNX_MODEL", "BEGIN DBMS_VECTOR.DROP_ONNX_MODEL('VO_NO_SUCH_MODEL'); END;", "PLS-00201"),
    ("DBMS_VECTOR_CHAIN.DROP_PREFERENCE", "BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('VO_NO_PREF'); END;", "PLS-00201"),
    ("CTX_DDL.SYNC_INDEX", "BEGIN CTX_DDL.SYNC_INDEX('VO_NO_INDEX'); END;", "PLS-00201"),
    ("DBMS_DATA_MINING.DROP_MODEL", "BEGIN DBMS_DATA_MINING.DROP_MODEL('VO_NO_SUCH_MODEL'); END;", "ORA-01031"),
    # the privilege error (ORA-01031) or the READ ONLY user property's (ORA-28194): undocumented which comes first
    ("DELETE on a READ-granted table", "DELETE FROM finance_loans WHERE 1 = 0", "ORA-01031"),
    ("CREATE TABLE in the owner's schema", "CREATE TABLE vo_ro_probe (x NUMBER)", "ORA-01031"),
)


def readonly_doors(conn, opener: Callable[[], oracledb.Connection] | None = None) -> list[Step]:
    """Which error Oracle's read-only user gets at each door the embedded read-only session refuses, so the engine
    can answer exactly as Oracle does (DBMS_DATA_MINING's error and the ORA-01031 / ORA-28194 order are not
    documented)."""
    from .oracle_grants import readonly_user
    if readonly_user() is None and opener is None:
        return [Step(S, "read-only doors", "FAIL", "ORACLE_READONLY_USER is not set",
                     "set ORACLE_READONLY_USER / ORACLE_READONLY_PASSWORD (compose.yaml and ci.yml do)")]
    try:
        ro = (opener or (lambda: db.connect(readonly=True, retries=1)))()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        return [Step(S, "read-only doors", "FAIL", first_line(exc), "the start-up script did not create the user")]
    steps = []
    try:
        for door, statement, expected in READONLY_DOORS:
            try:
                _execute(ro, statement)
                steps.append(Step(S, f"read-only door {door} refused", "FAIL", "accepted",
                                  "the read-only user can write: revoke what workshop/oracle_grants.py does not list"))
            except oracledb.DatabaseError as exc:
                steps.append(_ok(S, f"read-only door {door}: {expected} as the embedded engine", expected in str(exc),
                                 first_line(exc), f"make workshop/embedded/readonly.py answer {_code(exc)}"))
            finally:
                ro.rollback()
    finally:
        ro.close()
        _drop_quietly(conn, ["DROP TABLE vo_ro_probe PURGE"])
    return steps


def probe_steps(startup_log: str | None = None) -> tuple[Callable[[oracledb.Connection], list[Step]], ...]:
    """The probes, in report order (the start-up log, if any, goes to the vector-pool probe)."""
    def vector_pool_probe(conn) -> list[Step]:
        return vector_pool(conn, startup_log)
    return (ctxsys_packages, prediction_inputs, vector_pool_probe, hybrid_keyword_rows, hybrid_index_privileges,
            onnx_models, engine_parity, readonly_session, readonly_doors)
