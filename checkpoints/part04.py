"""Checkpoints of part 04, knowledge retrieval (solutions/04_knowledge_retrieval.ipynb).

    from checkpoints import part04
    part04.finance_schema_ready(conn)                       # the set-up built FINANCE (not a TODO)
    part04.check_scan_schema(conn, scan_schema)             # schema scan -> facts
    part04.check_sync_knowledge(conn, sync_knowledge)       # facts -> AML_KNOWLEDGE_VS, idempotently
    part04.check_retrieve_knowledge(conn, retrieve_knowledge)   # oversample x4, kinds filter inside, rerank

Each check runs the learner's code on probe data of its own and judges what reached the database:
TODO 1 adds a commented probe table FINANCE_CKPT_<token> (so a hard-coded list of facts cannot pass),
TODO 2 syncs into a probe store AML_CKPT_<token>_VS through a *recording* store (so a sync that
rewrites everything, or appends, is seen even when its report looks right), TODO 3 swaps the
notebook's `knowledge_vs` and `rerank` for recording stand-ins during the call (so the oversampling
and the place of the kinds filter are measured, not guessed). Every probe object is dropped again.
"""
from __future__ import annotations

import inspect
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import oracledb

from workshop import config, schema

from .framework import (RecordingConnection, RecordingStore, StoreCall, check, checkpoint, expect, expect_at_most_k,
                        expect_bound, expect_filled, expect_keys, expect_queried, fail, table_exists)

NOTEBOOK = "04_knowledge_retrieval.ipynb"
OVERSAMPLE = 4
HIT_KEYS = ("kind", "subject", "body", "metadata", "distance", "rerank_score")
SURPRISING = {"FINANCE.TRANSACTIONS.AMOUNT_CENTS": ("FINANCE_TRANSACTIONS", "AMOUNT_CENTS"),
              "FINANCE.LOANS.RATE_BP": ("FINANCE_LOANS", "RATE_BP")}
FINANCE_MIN_TABLES = 15


# --------------------------------------------------------------------------- helpers
def _token() -> str:
    return uuid.uuid4().hex[:8].upper()


def _expect_function(value: Any, name: str) -> None:
    expect_filled(value, name)
    expect(callable(value), f"`{name}` is a {type(value).__name__}, not a function",
           f"Run the TODO cell that defines `def {name}(...)`, then this checkpoint.")


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _rows(conn: oracledb.Connection, sql: str, **binds) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds)
        return cur.fetchall()


def _model() -> str:
    return schema.identifier(config.embedding_model_name())


# --------------------------------------------------------------------------- the FINANCE schema (set-up)
def finance_schema_ready(conn: oracledb.Connection) -> None:
    """Not a TODO: the set-up built FINANCE, every table and both surprising columns carry a comment."""
    with check("FINANCE schema: built by the set-up, documented in the dictionary",
               hint="Run `python -m workshop.setup` in a terminal (it adds what is missing), then this cell "
                    "again.") as ctx:
        ctx.detail = _finance_schema(conn)


def _finance_schema(conn: oracledb.Connection) -> str:
    from workshop.data.finance import COUNTS, FINANCE_TABLES
    tables = dict(_rows(conn, "SELECT table_name, comments FROM user_tab_comments "
                              "WHERE table_name LIKE 'FINANCE\\_%' ESCAPE '\\' ORDER BY table_name"))
    missing = [t.name for t in FINANCE_TABLES if t.name not in tables]
    expect(not missing, f"FINANCE tables missing: {', '.join(missing)}")
    uncommented = [t for t in tables if t in {x.name for x in FINANCE_TABLES} and not tables[t]]
    expect(not uncommented, f"FINANCE tables without a comment: {', '.join(uncommented)}")
    for subject, (table, column) in SURPRISING.items():
        found = _rows(conn, "SELECT comments FROM user_col_comments WHERE table_name = :t AND column_name = :c",
                      t=table, c=column)
        expect(found and found[0][0], f"{table}.{column} has no column comment")
    off = []
    for t in FINANCE_TABLES:
        (count,), = _rows(conn, f"SELECT COUNT(*) FROM {t.name.lower()}")
        want = COUNTS[t.name[len("FINANCE_"):]]
        if abs(count - want) > 0.05 * want:
            off.append(f"{t.name} {count} rows (expected about {want})")
    expect(not off, "; ".join(off))
    return f"{len(FINANCE_TABLES)} tables, {sum(COUNTS.values()):,} rows, every table commented"


# --------------------------------------------------------------------------- TODO 1: scan_schema
SCAN_HINT = ("A schema scan reads the dictionary's comments: one fact per commented table and column (section 2, "
             "'Schema scan').",
             ("One fact per commented table (USER_TAB_COMMENTS) and per commented column (USER_COL_COMMENTS) of "
             "the FINANCE_% tables: Fact(\"table\", \"FINANCE.LOANS\", ...) and Fact(\"column\", "
             "\"FINANCE.LOANS.RATE_BP\", ...), each body the subject and its comment. Skip rows whose comment is "
             "NULL."))


@contextmanager
def _probe_table(conn: oracledb.Connection) -> Iterator[tuple[str, dict[str, str], str]]:
    """FINANCE_CKPT_<token>: a commented table with one commented, one uncommented and one commented column.
    Beside it two decoys no fact may come from: FINANCE_CKPT_<token>_V, a commented view, and FINANCEX<token>, a
    commented table with a commented column whose name matches an unescaped LIKE 'FINANCE_%' only."""
    token = _token()
    name, view, decoy = f"FINANCE_CKPT_{token}", f"FINANCE_CKPT_{token}_V", f"FINANCEX{token}"
    comments = {"": f"Checkpoint probe table {name}: dropped again by the checkpoint.",
                "PROBE_AMOUNT": "Probe column with a comment: amount in probe units.",
                "PROBE_NOTE": "Probe column with a comment: a free-text note."}
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {name.lower()} (probe_id NUMBER, probe_amount NUMBER, probe_note VARCHAR2(40))")
        try:
            cur.execute(f"COMMENT ON TABLE {name.lower()} IS '{comments['']}'")
            for column in ("PROBE_AMOUNT", "PROBE_NOTE"):
                cur.execute(f"COMMENT ON COLUMN {name.lower()}.{column.lower()} IS '{comments[column]}'")
            cur.execute(f"CREATE TABLE {decoy.lower()} (decoy_amount NUMBER)")
            cur.execute(f"COMMENT ON TABLE {decoy.lower()} IS 'Checkpoint decoy: not a FINANCE_ table.'")
            cur.execute(f"COMMENT ON COLUMN {decoy.lower()}.decoy_amount IS 'Checkpoint decoy column.'")
            cur.execute(f"CREATE VIEW {view.lower()} AS SELECT probe_id FROM {name.lower()}")
            cur.execute(f"COMMENT ON TABLE {view.lower()} IS 'Checkpoint probe view: a view, not a table.'")
            yield name, comments, decoy
        finally:
            for statement in (f"DROP VIEW {view.lower()}", f"DROP TABLE {decoy.lower()} PURGE"):
                try:
                    cur.execute(statement)
                except oracledb.DatabaseError:       # not created: the set-up above failed before it
                    pass
            cur.execute(f"DROP TABLE {name.lower()} PURGE")


def _reads_comments(sql: str) -> bool:
    """True when the statement reads a comment view (USER_/ALL_/DBA_ TAB_COMMENTS or COL_COMMENTS), read with
    sqlglot; a listing of USER_TABLES, say, is not counted."""
    from sqlglot import exp

    from .framework.sql import parse
    try:
        tree = parse(sql)
    except ValueError:
        return True
    return any(t.name.upper().endswith(("_TAB_COMMENTS", "_COL_COMMENTS")) for t in tree.find_all(exp.Table))


@checkpoint("scan the FINANCE schema into facts", hint=SCAN_HINT)
def check_scan_schema(conn: oracledb.Connection, scan_schema: Callable) -> str:
    from workshop.knowledge import Fact, fact_id
    _expect_function(scan_schema, "scan_schema")
    with _probe_table(conn) as (probe, probe_comments, decoy):
        recorder = RecordingConnection(conn)
        facts = scan_schema(recorder, "FINANCE")
        expect(facts is not None, "scan_schema returned None", "End the function with `return facts`.")
        expect(isinstance(facts, list), f"scan_schema returned a {type(facts).__name__}, expected a list of Facts: the "
               "next cells add it to other lists (schema_facts + policy_facts()) and read it twice",
               ("Return the facts themselves, as a list (section 2).",
                "facts = [] ... facts.append(Fact(...)) ... return facts"))
        # issue 21: `ESCAPE '\'` pasted into a normal Python string is `ESCAPE ''` (Python ate the backslash)
        empty_escape = next((st.sql for st in recorder.statements if re.search(r"ESCAPE\s*''", st.sql, re.I)), None)
        expect(facts or empty_escape is None, "scan_schema returned no facts: its query says ESCAPE '' (an empty "
               "escape character), so nothing matches. In a normal Python string '\\' is one backslash: the SQL "
               "got ESCAPE '' instead of ESCAPE '\\'",
               "Write ESCAPE '\\\\' inside a normal Python string, or use a raw string r\"...\".")
        expect(facts, "scan_schema returned no facts", SCAN_HINT)
        for f in facts:
            expect(isinstance(f, Fact), f"a fact is a {type(f).__name__}, not a Fact: {f!r}"[:160] + " (the next "
                   "cells read f.kind and f.id, and write_facts stores Fact objects)",
                   "Build each fact with Fact(kind, subject, body, metadata); it computes its id.")
            for name in ("kind", "subject", "body", "id"):
                expect(_field(f, name) is not None, f"a fact has no `{name}`: {f!r}",
                       "Build each fact with Fact(kind, subject, body, metadata); it computes its id.")
        expect_queried(recorder, 'scan_schema(conn, "FINANCE")')
        expect_bound(recorder, {"prefix": "FINANCE\\_%"}, 'scan_schema(conn, "FINANCE")',
                     "Bind the LIKE pattern: table_name LIKE :prefix ESCAPE '\\' with cur.execute(sql, prefix=prefix).")
        kinds = {_field(f, "kind") for f in facts}
        expect(kinds <= {"table", "column"}, f"unexpected fact kinds {sorted(kinds - {'table', 'column'})}; "
               "expected 'table' and 'column'")
        expect("column" in kinds, "no column facts: only tables were scanned, so FINANCE.TRANSACTIONS.AMOUNT_CENTS "
               "and FINANCE.LOANS.RATE_BP are missing", "Read USER_COL_COMMENTS too: one fact per commented column.")
        subjects = [_field(f, "subject") for f in facts]
        prefixed = [s for s in subjects if str(s).startswith("FINANCE.FINANCE_")]
        expect(not prefixed, f"subjects keep the table prefix, e.g. {prefixed[0]!r}" if prefixed else "",
               "The subject names the logical schema: FINANCE.LOANS.RATE_BP, not FINANCE.FINANCE_LOANS.RATE_BP.")
        from_decoy = [str(s) for s in subjects if str(s).startswith(f"FINANCE.{decoy[len('FINANCEX'):]}")]
        expect(not from_decoy, f"facts from {decoy}, which is not a FINANCE_ table: {from_decoy[:2]}",
               "In LIKE, _ matches any one character: bind the provided pattern (FINANCE\\_%) with ESCAPE '\\', "
               "table_name LIKE :prefix ESCAPE '\\'.")
        # every commented FINANCE table (the probe included: the scan must read the dictionary, not a list)
        commented = [t for t, in _rows(conn, "SELECT table_name FROM user_tab_comments WHERE table_type = 'TABLE' "
                                             "AND table_name LIKE 'FINANCE\\_%' ESCAPE '\\' AND comments IS NOT NULL "
                                             "ORDER BY table_name")]
        expected_tables = {f"FINANCE.{t[len('FINANCE_'):]}" for t in commented}
        extra = sorted(str(_field(f, "subject")) for f in facts
                       if _field(f, "kind") == "table" and _field(f, "subject") not in expected_tables)
        expect(not extra, f"table facts that are not commented FINANCE tables: {extra[:3]}",
               "Scan only the FINANCE_% tables with a comment (table_name LIKE :prefix ESCAPE '\\').")
        duplicates = sorted({s for s in subjects if subjects.count(s) > 1})
        expect(not duplicates, f"subjects appear more than once: {duplicates[:3]}",
               "Each commented table or column gives exactly one fact.")
        outside = [s for s in subjects if not str(s).startswith("FINANCE.")]
        expect(not outside, f"facts outside the FINANCE schema, e.g. {outside[:2]}",
               "Keep only the FINANCE_% tables (table_name LIKE 'FINANCE\\_%' ESCAPE '\\').")
        by_subject = {_field(f, "subject"): f for f in facts}

        missing = [t for t in commented if f"FINANCE.{t[len('FINANCE_'):]}" not in by_subject]
        expect(not missing, f"commented tables without a fact: {missing[:3]}",
               "Every row of USER_TAB_COMMENTS with a comment becomes one table fact (the checkpoint added "
               f"{probe} to see that the scan reads the dictionary).")
        probe_subject = f"FINANCE.{probe[len('FINANCE_'):]}"
        for column in ("PROBE_AMOUNT", "PROBE_NOTE"):
            expect(f"{probe_subject}.{column}" in by_subject, f"the probe column {probe}.{column} has a comment but "
                   "no fact", "Every row of USER_COL_COMMENTS with a comment becomes one column fact.")
        expect(f"{probe_subject}.PROBE_ID" not in by_subject, f"{probe}.PROBE_ID has no comment but got a fact "
               "(an empty body)", "Skip columns whose comment is NULL: AND comments IS NOT NULL.")
        empty = [s for s, f in by_subject.items() if not str(_field(f, "body") or "").strip()
                 or str(_field(f, "body")).strip() == s]
        expect(not empty, f"facts with an empty body: {empty[:3]}", "The body is the subject and the comment.")
        for subject, (table, column) in SURPRISING.items():
            expect(subject in by_subject, f"{subject} is missing", SCAN_HINT)
            f = by_subject[subject]
            expect(_field(f, "kind") == "column", f"{subject} has kind {_field(f, 'kind')!r}, expected 'column'")
            (comment,), = _rows(conn, "SELECT comments FROM user_col_comments WHERE table_name = :t "
                                      "AND column_name = :c", t=table, c=column)
            expect(comment in str(_field(f, "body")), f"the body of {subject} does not contain its column comment",
                   ("A fact's body is what the search embeds: it names its subject and says its comment (section 2).",
                "Put the comment text into the body: f\"Column {subject}: {comment}\"."))
        expect(probe_comments["PROBE_NOTE"] in str(_field(by_subject[f"{probe_subject}.PROBE_NOTE"], "body")),
               "a column fact's body does not contain its comment", "The body is the subject and the comment.")
        commented_columns = {f"FINANCE.{t[len('FINANCE_'):]}.{c}" for t, c in _rows(
            conn, "SELECT table_name, column_name FROM user_col_comments WHERE table_name LIKE 'FINANCE\\_%' "
                  "ESCAPE '\\' AND comments IS NOT NULL ORDER BY table_name, column_name")}
        stray = sorted(str(s) for s, f in by_subject.items() if _field(f, "kind") == "column"
                       and s not in commented_columns)
        expect(not stray, f"column facts that are not commented columns of FINANCE tables: {stray[:3]}",
               "Limit the USER_COL_COMMENTS query like the table query: table_name LIKE :prefix ESCAPE '\\' AND "
               "comments IS NOT NULL.")
        lost = sorted(commented_columns - set(by_subject))
        expect(not lost, f"commented columns without a fact: {lost[:3]}",
               "Every row of USER_COL_COMMENTS with a comment becomes one column fact.")
        unnamed = [s for s, f in by_subject.items() if str(s) not in str(_field(f, "body"))]
        expect(not unnamed, f"the body of {unnamed[0] if unnamed else ''} does not name its subject: a search for "
               "RATE_BP must find the text RATE_BP", ("A fact's body is what the search embeds: it names its subject "
                                                      "and says its comment (section 2).",
                "The body is the subject and the comment: "
               "f\"Column {subject}: {comment}\"."))
        fetched = sum(st.rows_fetched for st in recorder.statements if _reads_comments(st.sql))
        expect(fetched <= len(facts), f"scan_schema fetched {fetched} comment rows to make {len(facts)} facts: "
               "rows were filtered in Python after the query", "Let the database filter: comments IS NOT NULL and "
               "table_name LIKE :prefix ESCAPE '\\' in the WHERE clauses, so every fetched row is a fact.")
        wrong_ids = [s for s, f in by_subject.items() if _field(f, "id") != fact_id(_field(f, "kind"), s)]
        expect(not wrong_ids, f"fact ids are not kind:subject, e.g. {wrong_ids[:1]}",
               "Let Fact compute the id (do not pass id=...): a re-scan must give the same ids.")
    tables = sum(_field(f, "kind") == "table" for f in facts) - 1          # without the probe's facts
    columns = sum(_field(f, "kind") == "column" for f in facts) - 2
    return f"{tables} table facts and {columns} column facts, both surprising columns included"


# --------------------------------------------------------------------------- TODO 2: sync_knowledge
SYNC_HINT = ("A sync compares what the store holds with what should be there, by id and fingerprint (section 3, "
             "'Keeping the store in step').",
             ("Upsert the publishable facts that are new or whose fingerprint changed with store.add_texts(..., "
             "ids=[f.id ...]), delete the ids the store holds that are no longer wanted with store.delete(...), and "
             "count inserted / updated / deleted / unchanged."))


def _count(call: StoreCall) -> int:
    """How many rows a recorded add_texts / add_documents / delete call wrote or removed."""
    items = call.args[0] if call.args else call.kwargs.get("texts", call.kwargs.get("documents",
                                                                                    call.kwargs.get("ids")))
    return len(list(items or []))


def _writes(store: RecordingStore) -> list[tuple[str, int]]:
    """(method, rows) of every write the store was asked to make."""
    calls = [(c.method, _count(c)) for c in store.calls if c.method in ("add_texts", "add_documents", "delete")]
    return [(method, n) for method, n in calls if n]


def _probe_facts(token: str) -> list:
    from workshop.knowledge import Fact
    base = f"CKPT{token}"
    return [
        Fact("table", f"{base}.LEDGER", f"Table {base}.LEDGER: probe ledger of the checkpoint."),
        Fact("column", f"{base}.LEDGER.AMOUNT_MILLS", f"Column {base}.LEDGER.AMOUNT_MILLS: amounts in mills."),
        Fact("column", f"{base}.LEDGER.FEE_BP", f"Column {base}.LEDGER.FEE_BP: fee in basis points."),
        Fact("policy", f"AML.{base}_HOLD", f"AML.{base}_HOLD: hold probe payments for review.", source="aml_policy"),
        Fact("policy", f"AML.{base}_LIMIT", f"AML.{base}_LIMIT: probe limit of 500 units.", source="aml_policy"),
        Fact("column", f"{base}.LEDGER.OLD_CODE", f"Column {base}.LEDGER.OLD_CODE: retired.", valid=False),
        Fact("tool_output", f"{base}.run_sql", f"{base} run_sql returned 3 rows.", source="tool_log"),
        Fact("chat_extraction", f"{base}.chat", f"{base} the user said the probe is urgent.", source="chat"),
    ]


def _report(result: Any, step: str) -> dict[str, int]:
    expect(isinstance(result, dict), f"{step}: sync_knowledge returned {type(result).__name__}, expected a dict of "
           "counts", "Return {\"inserted\": n, \"updated\": n, \"deleted\": n, \"unchanged\": n}.")
    expect_keys(result, ("inserted", "updated", "deleted", "unchanged"), what="the sync report")
    return {k: result[k] for k in ("inserted", "updated", "deleted", "unchanged")}


def _store_rows(conn: oracledb.Connection, table: str) -> list[tuple]:
    return _rows(conn, f"""SELECT JSON_VALUE(metadata, '$.fact_id'), JSON_VALUE(metadata, '$.kind'), text
                          FROM {table} ORDER BY 1, 2""")


@checkpoint("sync the facts into the knowledge store", hint=SYNC_HINT)
def check_sync_knowledge(conn: oracledb.Connection, sync_knowledge: Callable) -> str:
    from langchain_oracledb.vectorstores.utils import drop_table_purge

    from workshop.knowledge import open_knowledge_store
    _expect_function(sync_knowledge, "sync_knowledge")
    token = _token()
    table = f"AML_CKPT_{token}_VS"
    facts = _probe_facts(token)
    publishable = [f for f in facts if f.publishable]
    want_ids = sorted(f.id for f in publishable)
    store = RecordingStore(open_knowledge_store(conn, _model(), table))
    try:
        def rows() -> list[tuple]:
            conn.rollback()
            return [(i, k, t.read() if hasattr(t, "read") else t) for i, k, t in _store_rows(conn, table)]

        first = _report(sync_knowledge(conn, store, facts), "first sync")
        held = rows()
        ids = [r[0] for r in held]
        expect(not [r for r in held if r[1] in ("tool_output", "chat_extraction")],
               "the store holds tool_output or chat_extraction records",
               "Publish only facts with f.publishable (valid, kind table/column/policy).")
        expect(facts[5].id not in ids, "the store holds an invalid fact (valid=False)",
               "Publish only facts with f.publishable.")
        bodies = {f.id: f.body for f in publishable}
        wrong_text = [(i, t) for i, _, t in held if i in bodies and t != bodies[i]]
        expect(not wrong_text, f"the store row of {wrong_text[0][0] if wrong_text else ''} holds "
               f"{(wrong_text[0][1] if wrong_text else '')!r} instead of the fact's body",
               ("The store embeds each fact's body, the text a search should find (section 3).",
                "Embed the body: store.add_texts([f.body for f in ...], ...)."))
        expect(sorted(ids) == want_ids, f"after the first sync the store holds {len(ids)} rows with ids "
               f"{sorted(set(ids))[:3]}..., expected the {len(want_ids)} publishable fact ids",
               "Pass ids=[f.id for f in ...] to add_texts so every row reuses its fact's id.")
        by_id = store._store.get_by_ids(want_ids)
        expect(len(by_id) == len(want_ids), f"only {len(by_id)} of the {len(want_ids)} rows can be found by their "
               "fact's id: the rows do not reuse the facts' ids",
               "Pass ids=[f.id for f in ...] to add_texts so every row reuses its fact's id.")
        expect(first == {"inserted": 5, "updated": 0, "deleted": 0, "unchanged": 0},
               f"first sync of 5 new facts reported {first}, expected 5 inserted")

        store.calls.clear()
        second = _report(sync_knowledge(conn, store, facts), "second sync")
        expect(len(rows()) == 5, f"a re-run left {len(rows())} rows instead of 5 (an append-only sync duplicates "
               "rows)", "Write under the facts' own ids and only what is new or changed.")
        writes = _writes(store)
        expect(not writes, "a re-run with nothing changed still wrote to the store "
               f"({writes[0][0] if writes else ''} of {writes[0][1] if writes else 0} rows)",
               "Compare each fact's fingerprint with the stored one (stored_fingerprints) and skip unchanged facts.")
        expect(second == {"inserted": 0, "updated": 0, "deleted": 0, "unchanged": 5},
               f"a re-run with nothing changed reported {second}, expected 5 unchanged")

        changed = facts[4].replace(body=facts[4].body + " Raised to 750 units.")
        invalidated = facts[1].replace(valid=False)                         # still passed in, no longer publishable
        kept = [facts[0], invalidated, facts[3], changed] + facts[5:]       # facts[2] is now stale
        store.calls.clear()
        third = _report(sync_knowledge(conn, store, kept), "sync after a change")
        held = rows()
        expect(facts[2].id not in [r[0] for r in held], "a fact that is no longer wanted is still in the store "
               "(stale rows are not deleted)", "Delete the stored ids that are not among the wanted facts: "
               "store.delete(stale_ids).")
        expect(invalidated.id not in [r[0] for r in held], "a fact that was invalidated (valid=False, still in the "
               "facts passed in) is still in the store", "Stale means: held by the store but not among the wanted "
               "(publishable) facts, so compare the stored ids with `wanted`, not with every fact passed in.")
        texts = {r[0]: r[2] for r in held}
        expect(texts.get(changed.id) == changed.body, "a changed fact still has its old text in the store",
               "Facts whose fingerprint differs from the stored one must be written again (add_texts with the "
               "same id updates the row).")
        expect(third == {"inserted": 0, "updated": 1, "deleted": 2, "unchanged": 2},
               f"after changing one fact, dropping one and invalidating one the sync reported {third}, expected "
               "1 updated, 2 deleted, 2 unchanged")
        written = sum(n for method, n in _writes(store) if method != "delete")
        expect(written == 1, f"the sync re-wrote {written} facts to update 1", "Write only new or changed facts.")

        store.calls.clear()
        fourth = _report(sync_knowledge(conn, store, kept), "third sync")
        expect(not _writes(store) and fourth == {"inserted": 0, "updated": 0, "deleted": 0, "unchanged": 3},
               f"a third sync changed something ({fourth}): the sync is not idempotent")

        store.calls.clear()                          # empty input: every fact withdrawn, so every row is stale
        fifth = _report(sync_knowledge(conn, store, []), "sync of no facts")
        expect(not rows() and fifth == {"inserted": 0, "updated": 0, "deleted": 3, "unchanged": 0},
               f"a sync of no facts at all reported {fifth} and left {len(rows())} rows: when every fact is withdrawn, "
               "every stored row is stale", ("Stale is whatever the store holds that is not wanted, also when nothing "
                                             "is wanted (section 3).", "stale = [i for i in present if i not in "
                                                                       "wanted]; "
                                             "store.delete(stale) when there is any."))
    finally:
        conn.rollback()
        drop_table_purge(conn, table)
    return "insert 5 → re-run unchanged → 1 updated, 2 deleted (stale, invalidated) → re-run unchanged"


# --------------------------------------------------------------------------- TODO 3: retrieve_knowledge
RETRIEVE_HINT = ('Retrieve more candidates than you keep, filter inside the search, and let the reranker choose '
                 '(section 5).',
                 ("hits = knowledge_vs.similarity_search_with_score(query, k=k * 4, filter=flt): oversample four "
                 "times, with the kinds filter inside the search, and let rerank cut the candidates down to k."))
#: (question, kind) pairs for the filter probe: the kind is rare among the question's nearest rows.
FILTER_PROBES = (("Where do we store transaction amounts?", "policy"),
                 ("How long must a SAR filing take?", "column"),
                 ("which column holds RATE_BP", "policy"),
                 ("sanctions screening disposition", "table"))


class RecordingReranker:
    def __init__(self, rerank: Callable):
        self.rerank = rerank
        self.calls: list[tuple[int, Any]] = []
        self.subjects: list[list[Any]] = []          # the subjects of each call's candidates

    def __call__(self, query, candidates, top_k=5, content_key="body", *args, **kwargs):
        candidates = list(candidates)
        self.calls.append((len(candidates), top_k))
        self.subjects.append([_field(c, "subject") for c in candidates])
        return self.rerank(query, candidates, top_k, content_key, *args, **kwargs)


@contextmanager
def _recording(function: Callable) -> Iterator[tuple[RecordingStore, RecordingReranker]]:
    """Swap the notebook's `knowledge_vs` and `rerank` (the globals the function reads) for recorders."""
    scope = getattr(function, "__globals__", {})
    missing = [n for n in ("knowledge_vs", "rerank") if scope.get(n) is None]
    expect(not missing, f"the notebook has no {' and no '.join(f'`{n}`' for n in missing)} yet",
           "Run the cells that open the store (knowledge_vs) and call prepare_search (rerank) first.")
    store, rerank = RecordingStore(scope["knowledge_vs"]), RecordingReranker(scope["rerank"])
    originals = scope["knowledge_vs"], scope["rerank"]
    scope["knowledge_vs"], scope["rerank"] = store, rerank
    try:
        yield store, rerank
    finally:
        scope["knowledge_vs"], scope["rerank"] = originals


def _searches(store: RecordingStore) -> list[tuple[int | None, Any]]:
    """(k, filter) of every search the store was asked to run."""
    return [(c.k, c.filter) for c in store.searches()]


@checkpoint("retrieve knowledge: oversample, filter inside the search, rerank", hint=RETRIEVE_HINT)
def check_retrieve_knowledge(conn: oracledb.Connection, retrieve_knowledge: Callable) -> str:
    _expect_function(retrieve_knowledge, "retrieve_knowledge")
    params = inspect.signature(retrieve_knowledge).parameters
    expect(list(params)[:3] == ["query", "k", "kinds"], f"retrieve_knowledge takes {list(params)}, expected "
           "(query, k=5, kinds=None)")
    scope = retrieve_knowledge.__globals__
    real = scope.get("knowledge_vs")
    if real is not None and table_exists(conn, "AML_KNOWLEDGE_VS"):
        (held,), = _rows(conn, "SELECT COUNT(*) FROM aml_knowledge_vs")
        expect(held >= 40, f"AML_KNOWLEDGE_VS holds {held} row{'' if held == 1 else 's'}", "The store is empty or half-filled: run the scan, "
               "write_facts and sync cells above first.")
    with _recording(retrieve_knowledge) as (store, rerank):
        question = "Where do we store transaction amounts?"
        try:
            hits = retrieve_knowledge(question, k=5)
        except ValueError as exc:                      # langchain-oracledb rejects {"kind": {"$in": None}}
            if "filter" not in str(exc).lower() and "$in" not in str(exc):
                raise
            fail(f"retrieve_knowledge(question) without kinds: the store rejected the filter ({exc})",
                 "With kinds=None there is nothing to filter on: pass filter=flt, which the provided line sets to "
                 "None when kinds is empty.")
        expect(hits is not None, "retrieve_knowledge returned None", "End with `return rerank(...)`.")
        hits = list(hits)
        expect(hits, "retrieve_knowledge returned no hits", "An empty result: is AML_KNOWLEDGE_VS filled (sync)?")
        expect_at_most_k(hits, 5)
        expect(len(hits) == 5, f"{len(hits)} hits for k=5, expected 5")
        expect(all(isinstance(h, dict) for h in hits), "each hit must be a dict",
               "Turn every (document, distance) pair into a dict with to_hit(doc, distance=float(dist)).")
        expect_keys(hits, HIT_KEYS, what="a hit")
        searches = _searches(store)
        expect(searches, "retrieve_knowledge did not search `knowledge_vs`", RETRIEVE_HINT)
        expect(searches[0][0] == OVERSAMPLE * 5, f"the search asked for k={searches[0][0]} candidates for k=5; "
               f"expected {OVERSAMPLE} * k = 20 (oversampling, so the reranker has candidates to reorder)")
        expect(rerank.calls and rerank.calls[-1][0] == OVERSAMPLE * 5,
               f"rerank received {rerank.calls[-1][0] if rerank.calls else 0} candidates, expected 20",
               "Pass all the oversampled candidates to rerank(...).")
        nearest = {(d.metadata or {}).get("subject"): float(dist)
                   for d, dist in store._store.similarity_search_with_score(question, k=OVERSAMPLE * 5)}
        off = [(h.get("subject"), h.get("distance")) for h in hits
               if h.get("subject") not in nearest or not isinstance(h.get("distance"), (int, float))
               or abs(float(h["distance"]) - nearest[h.get("subject")]) > 1e-6]
        expect(not off, f"the hit {off[0][0] if off else ''} has distance {off[0][1] if off else ''!r}, but the store "
               f"gives {nearest.get(off[0][0]) if off else ''}: the distance is not the search's own",
               "similarity_search_with_score returns (document, distance) pairs; the provided line passes each "
               "distance to to_hit.")
        scores = [h["rerank_score"] for h in hits]
        expect(scores == sorted(scores, reverse=True), "hits are not ordered by rerank_score",
               "Return rerank(...)'s list as it is.")

        store.calls.clear()
        rerank.calls.clear()
        small = list(retrieve_knowledge(question, k=3) or [])
        expect(len(small) == 3 and _searches(store) and _searches(store)[0][0] == 12,
               f"for k=3 the search asked for k={_searches(store)[0][0] if _searches(store) else None} and "
               f"{len(small)} hits came back; expected k=12 and 3 hits", "Use k * 4, not a fixed number.")

        probe = None
        for q, kind in FILTER_PROBES:
            nearest = store._store.similarity_search_with_score(q, k=OVERSAMPLE * 5)
            matching = sum((d.metadata or {}).get("kind") == kind for d, _ in nearest)
            if matching < 5:
                probe = (q, kind, matching)
                break
        expect(probe is not None, "could not find a probe question for the kinds filter (is the store filled?)")
        q, kind, matching = probe
        store.calls.clear()
        rerank.subjects.clear()
        try:
            filtered = list(retrieve_knowledge(q, k=5, kinds=[kind]) or [])
        except ValueError as exc:                      # langchain-oracledb rejects a filter it cannot read
            if "filter" not in str(exc).lower():
                raise
            fail(f"kinds=['{kind}']: the store rejected the filter ({exc})",
                 "flt = {\"kind\": {\"$in\": kinds}} goes into the search: filter=flt.")
        expect(filtered, f"kinds=['{kind}'] returned no hits although the store holds {kind} facts: the filter "
               "matches no row", "Filter on the metadata key `kind`: filter=flt, flt = {\"kind\": {\"$in\": kinds}}.")
        other = sorted({h.get("kind") for h in filtered if h.get("kind") != kind})
        expect(not other, f"kinds=['{kind}'] returned hits of kind {other}: the kinds filter is ignored",
               "flt = {\"kind\": {\"$in\": kinds}} goes into the search: filter=flt.")
        expect(len(filtered) == 5, f"kinds=['{kind}'] gave {len(filtered)} hits for k=5, though the store holds "
               f"more: the filter ran after the search (only {matching} of the 20 nearest rows are {kind} facts)",
               "Filter inside the search (filter=flt), not in Python afterwards.")
        searched = _searches(store)
        expect(searched and searched[0][1], "the kinds filter is not passed to the search", RETRIEVE_HINT)

        unsplit = ("kinds='table,column' (a comma-separated string) is not split into a list",
                   "Keep the provided lines that split a string of kinds.")
        rerank.subjects.clear()
        try:
            both = list(retrieve_knowledge(q, k=4, kinds="table,column") or [])
        except ValueError as exc:                      # langchain-oracledb: "$in ... must be a non-empty list"
            if "$in" not in str(exc):
                raise
            fail(*unsplit)
        expect(both and {h.get("kind") for h in both} <= {"table", "column"}, *unsplit)
        wanted = {(d.metadata or {}).get("subject") for d, _ in store._store.similarity_search_with_score(
            q, k=OVERSAMPLE * 4, filter={"kind": {"$in": ["table", "column"]}})}
        got = set(rerank.subjects[-1]) if rerank.subjects else set()
        expect(got == wanted, f"kinds='table,column' reranked {len(got)} candidates that are not the 16 nearest table "
               f"and column facts (e.g. missing {sorted(map(str, wanted - got))[:2]}): the filter must ask for every "
               "kind in kinds", "flt = {\"kind\": {\"$in\": kinds}}: $in, with the whole list.")
    return f"k*4 = 20 candidates, reranked to 5; kinds filter inside the search ({kind}: 5 of 5)"
