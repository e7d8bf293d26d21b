"""Preflight checks for notebook 00 and `python -m workshop.doctor`: is this database ready for the workshop?

Each check answers one question against the live database (connection, models, a live VECTOR_EMBEDDING,
the reranker, tables and row counts, indexes, Oracle Text, the property graph, data version, the vector
memory pool on Oracle) and, when it fails, says what to run.

    from workshop import doctor
    doctor.show()                      # prints the table; failed checks list what to do
    results = doctor.run_checks(conn)  # list[CheckResult]
"""
from __future__ import annotations

import os
import shlex
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import oracledb
import pandas as pd

from . import config, db, models, schema
from .data import DATA_VERSION
from .data.finance import FINANCE_TABLES
from .oracle_grants import GRANTS, missing_grants, missing_reader_grants, readonly_user
from .setup import (RERANKER_REFUSED_KEY, SLIM_IMAGE_ADVICE, VECTOR_POOL_ADVICE, banner, engine_of, existing_graphs,
                    existing_indexes, existing_models, existing_tables, expected_counts, is_embedded,
                    oracle_text_installed, read_meta, scalar)

RUN_SETUP = "run: python -m workshop.setup"
RUN_RESET = "run: python -m workshop.setup --reset"


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    advice: str = ""           # what to run when the check failed; empty when it passed
    info: bool = False         # an optional component: reported with the command that adds it, never a failure


Check = Callable[[oracledb.Connection], CheckResult]


def _error_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# --------------------------------------------------------------------------- the checks
def check_connection(conn) -> CheckResult:
    return CheckResult("connection", True, f"{engine_of(conn)} engine: {banner(conn)} ({conn.dsn})")


def check_embedding_model(conn) -> CheckResult:
    name = config.embedding_model_name()
    found = existing_models(conn).get(name)
    if found == "EMBEDDING":
        return CheckResult("embedding model", True, f"{name} loaded (USER_MINING_MODELS)")
    if found:
        return CheckResult("embedding model", False, f"{name} is a {found} model, not an embedding model",
                           "set EMBED_MODEL to an embedding model, or unset it")
    advice = RUN_SETUP if name == schema.EMBEDDING_MODEL.name else \
        f"load {name} into the database first (see the README), or unset EMBED_MODEL"
    return CheckResult("embedding model", False, f"{name} is not in USER_MINING_MODELS", advice)


def check_embedding_smoke(conn) -> CheckResult:
    name = schema.identifier(config.embedding_model_name())
    with conn.cursor() as cur:
        cur.execute(f"SELECT VECTOR_EMBEDDING({name} USING :t AS data) FROM dual", {"t": "doctor smoke test"})
        vector = cur.fetchone()[0]
    dims = len(vector) if vector is not None else 0
    if dims == schema.EMBEDDING_DIMENSIONS:
        return CheckResult("VECTOR_EMBEDDING works", True, f"{name} returned a {dims}-dimension vector")
    return CheckResult("VECTOR_EMBEDDING works", False,
                       f"{name} returned {dims} dimensions, the tables need {schema.EMBEDDING_DIMENSIONS}",
                       f"use a {schema.EMBEDDING_DIMENSIONS}-dimension model, then {RUN_RESET}")


def check_reranker(conn) -> CheckResult:
    name = schema.identifier(config.reranker_model_name())
    found = existing_models(conn).get(name)
    if found != "REGRESSION":
        detail = f"{name} is not in USER_MINING_MODELS" if not found else f"{name} is a {found} model"
        refused = read_meta(conn).get(RERANKER_REFUSED_KEY) if not found else None
        if refused:
            return CheckResult("reranker", False, f"{name} not loaded: Oracle refused it at set-up ({refused})",
                               "the parts that rerank cannot run on this database; paste the report of python -m "
                               "workshop.verify_oracle into an issue, or use the embedded engine for those parts")
        return CheckResult("reranker", False, detail,
                           RUN_SETUP if name == schema.RERANKER_MODEL.name else f"load {name}, or unset RERANK_MODEL")
    score = scalar(conn, f"SELECT PREDICTION({name} USING :q AS FIRST_INPUT, :d AS SECOND_INPUT) FROM dual",
                   {"q": "vector memory pool", "d": "size the vector memory pool"})
    label = read_meta(conn).get("reranker_label") or (
        models.describe_reranker()["label"] if name == schema.RERANKER_MODEL.name else f"{name} (not labelled)")
    return CheckResult("reranker", True, f"{label}; PREDICTION returned {float(score):.3f}")


def check_tables(conn) -> CheckResult:
    missing = [t.name for t in schema.TABLES if t.name not in existing_tables(conn)]
    if missing:
        return CheckResult("tables", False, "missing: " + ", ".join(missing), RUN_SETUP)
    return CheckResult("tables", True, f"{len(schema.TABLES)} workshop tables present")


def check_row_counts(conn) -> CheckResult:
    expected = expected_counts()
    expected_vectors = {"PAPERS": expected["PAPERS"], "RESEARCH_CHUNKS": expected["RESEARCH_CHUNKS"]}
    present = existing_tables(conn)
    wrong = []
    for table, want in expected.items():
        if table not in present:
            wrong.append(f"{table} missing")
            continue
        got = scalar(conn, f"SELECT COUNT(*) FROM {table.lower()}")
        if got != want:
            wrong.append(f"{table} {got} rows (expected {want})")
    for table, want in expected_vectors.items():
        if table in present:
            got = scalar(conn, f"SELECT COUNT(embedding) FROM {table.lower()}")
            if got != want:
                wrong.append(f"{table} {got} embeddings (expected {want})")
    if wrong:
        return CheckResult("row counts", False, "; ".join(wrong),
                           f"{RUN_SETUP} (adds missing rows and embeddings); if rows were changed, {RUN_RESET}")
    return CheckResult("row counts", True, ", ".join(f"{t} {n}" for t, n in expected.items()))


def check_indexes(conn) -> CheckResult:
    present = existing_indexes(conn)
    missing = [i.name for i in schema.INDEXES if i.name not in present]
    if missing:
        return CheckResult("indexes", False, "missing: " + ", ".join(missing), RUN_SETUP)
    return CheckResult("indexes", True, ", ".join(i.name for i in schema.INDEXES))


def check_oracle_text(conn) -> CheckResult:
    name = "Oracle Text (CONTAINS)"
    try:
        hits = scalar(conn, "SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0",
                      {"q": "memory"})
    except oracledb.DatabaseError as exc:
        if not is_embedded(conn) and not oracle_text_installed(conn):
            return CheckResult(name, False, f"CTXSYS schema missing: {_error_line(exc)}", SLIM_IMAGE_ADVICE)
        if "DRG-10599" in str(exc):
            return CheckResult(name, False, "RESEARCH_CHUNKS.TEXT has no Oracle Text index (DRG-10599)", RUN_SETUP)
        raise
    if not hits:
        return CheckResult(name, False, "CONTAINS(text, 'memory') found no chunk",
                           f"{RUN_SETUP}; if rows were changed, {RUN_RESET}")
    return CheckResult(name, True, f"CONTAINS(text, 'memory') found {hits} chunks")


def check_property_graph(conn) -> CheckResult:
    name = schema.RESEARCH_GRAPH.name
    if name not in existing_graphs(conn):
        return CheckResult("property graph", False, f"{name} is not in USER_PROPERTY_GRAPHS", RUN_SETUP)
    edges = scalar(conn, "SELECT COUNT(*) FROM GRAPH_TABLE(research_graph MATCH (a IS author) -[w IS wrote]-> "
                         "(p IS paper) COLUMNS (a.author_id AS author_id))")
    want = expected_counts()["PAPER_AUTHORS"]
    if edges != want:
        return CheckResult("property graph", False, f"{name}: {edges} wrote edges (expected {want})",
                           f"{RUN_SETUP}; if rows were changed, {RUN_RESET}")
    return CheckResult("property graph", True, f"{name}: GRAPH_TABLE matched {edges} wrote edges")


def check_data_version(conn) -> CheckResult:
    meta = read_meta(conn)
    found = meta.get("data_version")
    if found != DATA_VERSION:
        detail = "WORKSHOP_META has no data_version" if found is None else \
            f"database has data version {found}, this checkout ships {DATA_VERSION}"
        return CheckResult("data version", False, detail, RUN_SETUP if found is None else RUN_RESET)
    return CheckResult("data version", True, f"{DATA_VERSION} (workshop.data)")


def check_model_matches_tables(conn) -> CheckResult:
    recorded = read_meta(conn).get("embedding_model")
    chosen = config.embedding_model_name()
    if recorded == chosen:
        return CheckResult("tables embedded with", True, f"{chosen} (WORKSHOP_META), the model EMBED_MODEL selects")
    if recorded is None:
        return CheckResult("tables embedded with", False, "WORKSHOP_META does not name the embedding model", RUN_SETUP)
    return CheckResult("tables embedded with", False,
                       f"tables were embedded with {recorded}, EMBED_MODEL selects {chosen}",
                       f"unset EMBED_MODEL (or set it to {recorded}), or rebuild with the new model: {RUN_RESET}")


def check_vector_pool(conn) -> CheckResult:
    name = "vector memory pool"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: the embedded engine keeps vector indexes in process memory")
    try:
        allocated = scalar(conn, "SELECT NVL(SUM(alloc_bytes), 0) FROM v$vector_memory_pool")
    except oracledb.DatabaseError as exc:
        hnsw = [i.name for i in schema.INDEXES if i.kind == "VECTOR"]
        if all(i in existing_indexes(conn) for i in hnsw):
            return CheckResult(name, True, f"V$VECTOR_MEMORY_POOL not readable ({_error_line(exc)}); the HNSW "
                                           "indexes exist, so the pool was large enough to build them")
        return CheckResult(name, False, f"V$VECTOR_MEMORY_POOL not readable and HNSW indexes missing",
                           VECTOR_POOL_ADVICE)
    if not allocated:
        return CheckResult(name, False, "vector_memory_size is 0: HNSW indexes fail with ORA-51962",
                           VECTOR_POOL_ADVICE)
    return CheckResult(name, True, f"{allocated / 2**20:.0f} MB allocated (V$VECTOR_MEMORY_POOL)")


CHECKS: tuple[tuple[str, Check, str], ...] = (
    ("connection", check_connection, "check ORACLE_DSN / ORACLE_USER / ORACLE_PASSWORD, or unset ORACLE_DSN"),
    ("embedding model", check_embedding_model, RUN_SETUP),
    ("VECTOR_EMBEDDING works", check_embedding_smoke, RUN_SETUP),
    ("reranker", check_reranker, RUN_SETUP),
    ("tables", check_tables, RUN_SETUP),
    ("row counts", check_row_counts, RUN_SETUP),
    ("indexes", check_indexes, RUN_SETUP),
    ("Oracle Text (CONTAINS)", check_oracle_text, RUN_SETUP),
    ("property graph", check_property_graph, RUN_SETUP),
    ("data version", check_data_version, RUN_SETUP),
    ("tables embedded with", check_model_matches_tables, RUN_SETUP),
    ("vector memory pool", check_vector_pool, VECTOR_POOL_ADVICE),
)


# --------------------------------------------------------------------------- Oracle-only prerequisites
# (what a devcontainer or a DBA must provide; on the embedded engine there is nothing to provide)
def check_oracle_text_installed(conn) -> CheckResult:
    """The image variant: slim images have no Oracle Text (no CTXSYS), so CONTAINS, CONTEXT indexes and
    DBMS_VECTOR_CHAIN (OracleEmbeddings) cannot work."""
    name = "Oracle Text installed"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: the embedded engine implements Oracle Text itself")
    if not oracle_text_installed(conn):
        return CheckResult(name, False, "no CTXSYS schema: this is a slim image", SLIM_IMAGE_ADVICE)
    return CheckResult(name, True, "CTXSYS present (full or regular image)")


def check_workshop_grants(conn) -> CheckResult:
    """Every privilege of workshop.oracle_grants, directly, through a role or through PUBLIC."""
    name = "workshop grants"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: the embedded engine has no privileges")
    missing = missing_grants(conn)
    if not missing:
        return CheckResult(name, True, f"all {len(GRANTS)} privileges the series needs are held")
    user = scalar(conn, "SELECT USER FROM dual") or "<user>"
    detail = "missing: " + "; ".join(f"{g.label} ({g.reason})" for g in missing)
    advice = ("as SYSDBA in the PDB run: " + "; ".join(g.sql(user) for g in missing) +
              " (in the devcontainer, restarting the oracle service re-applies them)")
    return CheckResult(name, False, detail, advice)


#: V$OPTION's name for the feature DBMS_RLS needs (Virtual Private Database).
RLS_OPTION = "Fine-grained access control"


def edition(conn) -> str:
    """The product line, e.g. 'Oracle AI Database 26ai Free' (PRODUCT_COMPONENT_VERSION is readable by PUBLIC)."""
    try:
        return scalar(conn, "SELECT product FROM product_component_version WHERE product LIKE 'Oracle%' "
                            "ORDER BY product FETCH FIRST 1 ROWS ONLY") or banner(conn)
    except oracledb.DatabaseError:
        return banner(conn)


def check_edition(conn) -> CheckResult:
    """Row-level security (DBMS_RLS, parts 05 and 07) needs an edition with Fine-grained access control."""
    name = "edition (DBMS_RLS)"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: the embedded engine implements DBMS_RLS (restricted form)")
    product = edition(conn)
    try:
        value = scalar(conn, "SELECT value FROM v$option WHERE parameter = :p", {"p": RLS_OPTION})
    except oracledb.DatabaseError as exc:
        return CheckResult(name, True, f"{product}; V$OPTION not readable ({_error_line(exc)}), so {RLS_OPTION} is "
                                       "unverified: python -m workshop.verify_oracle tests RLS itself")
    if value == "TRUE":
        return CheckResult(name, True, f"{product}: {RLS_OPTION} available (V$OPTION)")
    return CheckResult(name, False, f"{product}: V$OPTION says {RLS_OPTION} = {value}",
                       "parts 05 and 07 use DBMS_RLS, which this edition lacks: run them on the embedded engine "
                       "(unset ORACLE_DSN) or on Oracle AI Database Free / Enterprise Edition")


READONLY_SETUP = ("set ORACLE_READONLY_USER and ORACLE_READONLY_PASSWORD (the devcontainer's compose.yaml sets "
                  "WORKSHOP_RO; without the devcontainer see docs/troubleshooting.md, Part 07)")
RESTART_ORACLE = ("restart the database container so its start-up script creates the user with the password of "
                  "compose.yaml: docker compose -f .devcontainer/compose.yaml restart oracle")


def _open_reader() -> oracledb.Connection:
    return db.connect(readonly=True, retries=1)


def check_readonly_user(conn, opener: Callable[[], oracledb.Connection] | None = None) -> CheckResult:
    """Part 07's tools and part 05's retriever run on a second user with only READ grants (H1 of issue 20):
    it must be configured, connect, and see every object of workshop.oracle_grants.reader_grants that exists."""
    name = "read-only user"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: the embedded engine opens the same file read-only")
    reader = readonly_user()
    if reader is None or not os.environ.get("ORACLE_READONLY_PASSWORD"):
        return CheckResult(name, False, "ORACLE_READONLY_USER / ORACLE_READONLY_PASSWORD not set: part 07 cannot "
                                        "open its tools' read-only session", READONLY_SETUP)
    try:
        ro = (opener or _open_reader)()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        text = str(exc)
        advice = RESTART_ORACLE if "ORA-01017" in text or "ORA-28000" in text else READONLY_SETUP
        return CheckResult(name, False, f"{reader} cannot connect: {_error_line(exc).removeprefix('Could not connect to Oracle AI Database: ')}",
                           advice)
    try:
        missing = missing_reader_grants(conn, ro)
    finally:
        ro.close()
    if missing:
        return CheckResult(name, False, f"{reader} cannot read: " + ", ".join(g.object_name for g in missing),
                           f"{RUN_SETUP} (as the owner it grants {reader} what workshop.oracle_grants."
                           "reader_grants names)")
    return CheckResult(name, True, f"{reader} connects and reads what part 07 needs (READ grants only)")


ORACLE_CHECKS: tuple[tuple[str, Check, str], ...] = (
    ("Oracle Text installed", check_oracle_text_installed, SLIM_IMAGE_ADVICE),
    ("workshop grants", check_workshop_grants, "see .devcontainer/README.md, 'The workshop user'"),
    ("read-only user", check_readonly_user, READONLY_SETUP),
    ("edition (DBMS_RLS)", check_edition, "run parts 05 and 07 on the embedded engine"),
)
CHECKS = CHECKS + ORACLE_CHECKS


def run_checks(conn: oracledb.Connection) -> list[CheckResult]:
    """Every check, in order. A check whose SQL fails unexpectedly is reported failed with the error."""
    results = []
    for name, check, fallback_advice in CHECKS:
        try:
            results.append(check(conn))
        except oracledb.Error as exc:
            results.append(CheckResult(name, False, f"error: {_error_line(exc)}", fallback_advice))
    return results


def as_frame(results: list[CheckResult]) -> pd.DataFrame:
    return pd.DataFrame({"check": [r.name for r in results],
                         "status": ["info" if r.info else "ok" if r.ok else "FAIL" for r in results],
                         "detail": [r.detail for r in results]})


def pasteable_python() -> str:
    """The interpreter a learner should paste: the project's .venv when there is one (run from the project folder)."""
    if (config.PROJECT_ROOT / ".venv" / "bin" / "python").exists():
        return ".venv/bin/python"
    return shlex.quote(sys.executable)


def pasteable(advice: str) -> str:
    """Advice with its `python -m workshop...` commands spelled as a learner can paste them."""
    return advice.replace("python -m workshop.", f"{pasteable_python()} -m workshop.")


def report(results: list[CheckResult]) -> str:
    """The results as text: a table, then what to do. Checks that the set-up fixes share one line, and the command
    is printed once, ready to paste."""
    frame = as_frame(results)
    left = {c: (lambda v, w=int(frame[c].str.len().max()): f"{v:<{w}}") for c in frame.columns}
    table = "\n".join(line.rstrip() for line in
                      frame.to_string(index=False, justify="left", formatters=left).splitlines())
    failed = [r for r in results if not r.ok]
    lines = [table, ""]
    optional = [f"  - {r.name}: {pasteable(r.advice)}" for r in results if r.info and r.advice]
    if optional:
        lines += ["Optional (not needed for parts 00-07):", *optional, ""]
    if not failed:
        lines.append("All checks passed: the database is ready for the workshop.")
        return "\n".join(lines)
    lines.append(f"{len(failed)} check(s) failed. What to do:")
    by_setup = [r.name for r in failed if r.advice == RUN_SETUP]
    lines += [f"  - {r.name}: {pasteable(r.advice)}" for r in failed if r.advice != RUN_SETUP]
    if by_setup:
        lines += [f"  - {', '.join(by_setup)}: the set-up creates or repairs these. Paste this in a terminal, in "
                  "the project folder:", "", f"      {pasteable_python()} -m workshop.setup"]
    return "\n".join(lines)


def show(conn: oracledb.Connection | None = None) -> None:
    """Print the checks as a table (for notebook 00). Opens and closes its own connection when none is given."""
    own = conn is None
    conn = conn or db.connect()
    try:
        print(report(run_checks(conn)))
    finally:
        if own:
            conn.close()


# --------------------------------------------------------------------------- the notebooks' first cell
TROUBLESHOOTING = "docs/troubleshooting.md"
#: The workshop tables each part's notebook reads (a part not listed needs them all). Part 03 creates its own
#: memory tables and needs only the embedding model.
PREFLIGHT_TABLES: dict[str, list[str]] = {
    "01": ["WORKSHOP_META", "PAPERS"],
    "02": ["WORKSHOP_META", "PAPERS", "AUTHORS", "PAPER_AUTHORS", "PAPER_SIMILARITY", "RESEARCH_CHUNKS"],
    "03": [],
    "04": ["WORKSHOP_META", *(t.name for t in FINANCE_TABLES)],       # part 04 reads the FINANCE schema
    "07": ["WORKSHOP_META", *(t.name for t in FINANCE_TABLES)],       # part 07's tools read the FINANCE schema
}


#: A message line that starts with this is a command to paste, shown whole however long the path.
COMMAND_INDENT = "      "


class PreflightFailed(RuntimeError):
    """The database or the model a notebook needs is missing: one readable message, no stack (Jupyter, nbval)."""

    def _render_traceback_(self) -> list[str]:
        lines = ["❌ preflight: the notebook cannot run yet"]
        for line in str(self).splitlines():
            if line.startswith(COMMAND_INDENT):        # a command to paste: never split across lines
                lines.append(line)
                continue
            lines += textwrap.wrap(line, 96, initial_indent="   ", subsequent_indent="     ", break_long_words=False)
        return lines


def preflight(part: str | None = None) -> None:
    """The first cell of every notebook: can this notebook run? Quick (three dictionary look-ups), and it never
    creates anything: a missing embedded database file is reported, not created empty.

    Raises PreflightFailed with what to run; prints one line when all is well.
    """
    setup = f"{pasteable_python()} -m workshop.setup"
    after = f"then run this notebook again from the top. More help: {TROUBLESHOOTING}."
    if not config.oracle_dsn() and not config.embedded_db_path().exists():
        raise PreflightFailed(f"The workshop database is not set up yet (no file {config.embedded_db_path()}).\n"
                              f"In a terminal, in the project folder, run:\n{COMMAND_INDENT}{setup}\n{after}")
    try:
        conn = db.connect()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        raise PreflightFailed(f"{str(exc).strip()}\nFix that, then {after}") from None
    try:
        needed = PREFLIGHT_TABLES.get(part or "", [t.name for t in schema.TABLES])
        missing = [name for name in needed if name not in existing_tables(conn)]
        problems = [r for r in (CheckResult("tables", not missing, "missing: " + ", ".join(missing)),
                                check_embedding_model(conn)) if not r.ok]
        engine = engine_of(conn)
    finally:
        conn.close()
    if problems:
        found = "; ".join(f"{r.name}: {r.detail}" for r in problems)
        raise PreflightFailed(f"The database is not ready ({found}).\nIn a terminal, in the project folder, run:\n"
                              f"{COMMAND_INDENT}{setup}\n{after}")
    print(f"✅ preflight: {engine} engine, the workshop tables and {config.embedding_model_name()} are there"
          f"{' for part ' + part if part else ''}. Stuck later? See {TROUBLESHOOTING}.", flush=True)


def main() -> int:
    try:
        conn = db.connect()
    except (ConnectionError, RuntimeError, oracledb.Error) as exc:
        print(report([CheckResult("connection", False, _error_line(exc), CHECKS[0][2])]))
        return 1
    try:
        results = run_checks(conn)
    finally:
        conn.close()
    print(report(results))
    return 0 if all(r.ok for r in results) else 1

# --------------------------------------------------------------------------- part 08: Oracle AI Agent Memory
OAMP_VENV = ".venv-oamp"
#: The command that adds the optional OAMP kernel (part 08's Oracle section); in a Codespace as well.
OAMP_ADD = "bash scripts/setup_oamp_env.sh (its own virtualenv .venv-oamp and the Jupyter kernel workshop-oamp)"
OAMP_PRIVILEGES = ("CREATE TABLE", "CREATE JOB")


def oamp_environment() -> str | None:
    """The oracleagentmemory version installed in the OAMP virtualenv (OAMP_VENV or $OAMP_VENV), or None."""
    import os
    venv = Path(os.environ.get("OAMP_VENV") or config.PROJECT_ROOT / OAMP_VENV)
    found = sorted(venv.glob("lib/python*/site-packages/oracleagentmemory-*.dist-info"))
    return found[-1].name.removesuffix(".dist-info").split("-")[1] if found else None


def check_oamp(conn) -> CheckResult:
    """Can part 08's OAMP cells run: Oracle, the package in its own environment, the privileges for its schema
    objects and its purge job, and a default tablespace that is not SYSTEM (OAMP creates JSON objects)."""
    name = "OAMP (part 08)"
    if is_embedded(conn):
        return CheckResult(name, True, "not applicable: OAMP needs Oracle; part 08 runs its mirror on this engine")
    version = oamp_environment()
    if version is None:
        return CheckResult(name, True, f"optional, not installed: {OAMP_VENV} (part 08's Oracle section only)",
                           OAMP_ADD, info=True)
    with conn.cursor() as cur:
        cur.execute("SELECT privilege FROM session_privs ORDER BY privilege")
        held = {r[0] for r in cur.fetchall()}
        cur.execute("SELECT default_tablespace FROM user_users")
        tablespace = (cur.fetchone() or [None])[0]
    missing = [p for p in OAMP_PRIVILEGES if p not in held]
    if missing:
        user = scalar(conn, "SELECT USER FROM dual") or "<user>"
        return CheckResult(name, False, f"oracleagentmemory {version} installed; missing {', '.join(missing)} (CREATE "
                                        "JOB runs its expired-record purge)",
                           "as SYSDBA in the PDB run: " + "; ".join(f"GRANT {p} TO {user}" for p in missing))
    if tablespace == "SYSTEM":
        return CheckResult(name, False, "the default tablespace is SYSTEM, which cannot hold OAMP's JSON objects",
                           "use a dedicated application schema (the devcontainer's workshop user), not SYSTEM")
    return CheckResult(name, True, f"oracleagentmemory {version} in {OAMP_VENV}; CREATE TABLE and CREATE JOB held; "
                                   f"default tablespace {tablespace}")


CHECKS = CHECKS + (("OAMP (part 08)", check_oamp, OAMP_ADD),)


if __name__ == "__main__":
    sys.exit(main())

