"""Part 04's checkpoints (knowledge retrieval), driven by the notebooks' own cells.

For every TODO: the solution cell passes, another correct answer passes, the generated student stub fails
with a friendly CheckpointFailed, and every plausible wrong answer in WRONG_ANSWERS fails with a reason that
names the mistake. The cells come from solutions/ and notebooks/ and run here, in one namespace per test,
against the shared set-up build. The notebook is run once per module up to `prepare_search` (the sync embeds
~160 facts, the slow step); the tests reuse that store and never reset part 04, and the module drops part 04's
objects again at the end. Each test also proves the checkpoint left the database as it found it.
"""
from __future__ import annotations

import pytest

from checkpoints import part04
from checkpoints.framework import CheckpointError, CheckpointFailed
from tests.checkpoints.shared import (NotebookCells, Todo, copy_db, expect_passed, expect_reasoned_failure,
                                      expect_stub_failure, notebook_namespace)

PART = NotebookCells("04_knowledge_retrieval.ipynb", {
    1: Todo(1, "p04-todo1", "p04-check1"),
    2: Todo(2, "p04-todo2", "p04-check2", ("p04-store",)),
    3: Todo(3, "p04-todo3", "p04-check3", ("p04-store", "p04-prepare")),
})
TODOS = PART.todos
SOLUTION_CELLS, STUDENT_CELLS = PART.solution, PART.student
RESET = "reset_part(4, conn, log=None)"
#: What the module runs once (solution cells) to have a filled, indexed AML_KNOWLEDGE_VS.
PREPARE = ("p04-todo1", "p04-scan-show", "p04-write-facts", "p04-store", "p04-todo2", "p04-sync-run", "p04-prepare")
#: The notebook shows tables with display(); the tests have no front end to show them in.
NO_DISPLAY = {"display": lambda *args, **kwargs: None}
variant, run_todo = PART.variant, PART.run_todo   # run_todo(notebook, todo, source) -> namespace

pytestmark = pytest.mark.slow


def _clear_mirrors() -> None:
    from workshop.knowledge import facts
    facts._MIRRORS.clear()


@pytest.fixture(scope="module")
def prepared_db(built_db, tmp_path_factory):
    """A module's own copy of the shared build with part 04 run once up to prepare_search (facts written, store
    synced and indexed). Never the shared build itself: other xdist workers copy that file while this runs."""
    path = copy_db(built_db, tmp_path_factory.mktemp("part04") / "workshop.db")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("ORACLE_DSN", raising=False)
        mp.delenv("EMBED_MODEL", raising=False)
        mp.setenv("WORKSHOP_EMBEDDED_DB", str(path))
        with notebook_namespace(*(SOLUTION_CELLS[cell] for cell in ("p04-path", "p04-connect", *PREPARE)),
                                names=NO_DISPLAY):
            pass
        _clear_mirrors()
    return path


@pytest.fixture
def notebook(prepared_db, monkeypatch):
    """run(*sources) executes notebook cells in one namespace that has run the setup cells without their reset."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.delenv("EMBED_MODEL", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(prepared_db))
    with notebook_namespace(SOLUTION_CELLS["p04-path"], SOLUTION_CELLS["p04-connect"].replace(RESET, "pass"),
                            names=NO_DISPLAY) as run:
        yield run
    _clear_mirrors()


def snapshot(conn) -> tuple:
    """What a checkpoint must leave as it found it: the tables, the store's rows, the facts."""
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables ORDER BY table_name")
        tables = tuple(r[0] for r in cur.fetchall())
        cur.execute("SELECT view_name FROM user_views ORDER BY view_name")    # TODO 1's probe view is dropped again
        tables += tuple(r[0] for r in cur.fetchall())
        cur.execute("SELECT JSON_VALUE(metadata, '$.fact_id'), JSON_VALUE(metadata, '$.fingerprint') "
                    "FROM aml_knowledge_vs ORDER BY 1")
        store = tuple(cur.fetchall())
        cur.execute("SELECT COUNT(*) FROM knowledge_facts")
        facts = cur.fetchone()
    return tables, store, facts


# --------------------------------------------------------------------------- the pairing and the solution
def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    PART.expect_paired("part04", {1: "scan_schema", 2: "sync_knowledge", 3: "retrieve_knowledge"})


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_solution_passes_and_leaves_the_database_as_found(notebook, todo, capsys):
    ns = notebook()
    before = snapshot(ns["conn"])
    ns = run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo].cell])
    expect_passed(capsys, todo)
    assert snapshot(ns["conn"]) == before
    assert not ns["conn"].transaction_in_progress


def test_the_finance_check_passes_on_the_set_up_and_fails_without_a_surprising_comment(notebook):
    conn = notebook()["conn"]
    part04.finance_schema_ready(conn)
    with conn.cursor() as cur:
        cur.execute("SELECT comments FROM user_col_comments WHERE table_name = 'FINANCE_LOANS' "
                    "AND column_name = 'RATE_BP'")
        (comment,), = cur.fetchall()
        cur.execute("COMMENT ON COLUMN finance_loans.rate_bp IS ''")
        try:
            with pytest.raises(CheckpointFailed, match="FINANCE_LOANS.RATE_BP has no column comment"):
                part04.finance_schema_ready(conn)
        finally:
            cur.execute(f"COMMENT ON COLUMN finance_loans.rate_bp IS '{comment}'")


# --------------------------------------------------------------------------- other correct answers
OTHER_CORRECT = [
    (1, "ALL_ views with OWNER = USER", [
        ("FROM user_tab_comments\n", "FROM all_tab_comments\n"),
        ("WHERE table_type = 'TABLE'", "WHERE owner = USER AND table_type = 'TABLE'"),
        ("FROM user_col_comments\n", "FROM all_col_comments\n"),
        ("WHERE table_name LIKE :prefix ESCAPE '\\\\' AND comments", "WHERE owner = USER AND table_name LIKE :prefix "
                                                                     "ESCAPE '\\\\' AND comments")]),
    (1, "subject built with SUBSTR in SQL", [
        ("SELECT table_name, comments FROM user_tab_comments",
         "SELECT SUBSTR(table_name, LENGTH(:owner) + 2) AS t, comments FROM user_tab_comments"),
        ("ORDER BY table_name''', prefix=prefix)", "ORDER BY table_name''', prefix=prefix, owner=owner)"),
        ('subject = f"{owner}.{table[len(owner) + 1:]}"\n            facts.append(Fact("table"',
         'subject = f"{owner}.{table}"\n            facts.append(Fact("table"')]),
    (2, "stale ids by set difference, two writes", [
        ("stale = sorted(i for i in present if i not in wanted)", "stale = list(set(present) - set(wanted))"),
        ("""    if new or changed:
        store.add_texts([f.body for f in new + changed], metadatas=[f.store_metadata() for f in new + changed],
                        ids=[f.id for f in new + changed])""",
         """    for group in (new, changed):
        if group:
            store.add_texts([f.body for f in group], metadatas=[f.store_metadata() for f in group],
                            ids=[f.id for f in group])""")]),
    (1, "removeprefix, one body format of its own", [
        ('subject = f"{owner}.{table[len(owner) + 1:]}"\n            facts.append(Fact("table"',
         'subject = owner + "." + table.removeprefix(owner + "_")\n            facts.append(Fact("table"'),
        ('f"Column {subject}: {comment}"', 'f"{subject} (column): {comment}"')]),
    (2, "changed facts deleted, then added again; one delete per stale id", [
        ("    if new or changed:\n", "    if changed:\n        store.delete([f.id for f in changed])\n    if new or changed:\n"),
        ("    if stale:\n        store.delete(stale)\n", "    for i in stale:\n        store.delete([i])\n")]),
    (3, "the $or filter spelt out", [
        ("k=k * 4, filter=flt)", 'k=k * 4, filter={"$or": [{"kind": x} for x in kinds]} if kinds else None)')]),
    (3, "4 * k and the filter written inline", [
        ("k=k * 4, filter=flt)", 'k=4 * k, filter={"kind": {"$in": kinds}} if kinds else None)')]),
]


@pytest.mark.parametrize("todo, name, replacements", OTHER_CORRECT,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _ in OTHER_CORRECT])
def test_another_correct_answer_passes(notebook, todo, name, replacements, capsys):
    run_todo(notebook, todo, variant(todo, *replacements))
    expect_passed(capsys, todo)


# --------------------------------------------------------------------------- stubs
@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_untouched_stub_fails_with_a_friendly_message(notebook, todo, capsys):
    failure = expect_stub_failure(lambda: run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo].cell]), todo, capsys)
    assert failure.reason.startswith(f"not done yet: the code still raises NotImplementedError (TODO {todo}:")


# --------------------------------------------------------------------------- wrong answers, one table
HARD_CODED_SCAN = '''    from workshop.data.finance import FINANCE_TABLES
    facts = []
    for table in FINANCE_TABLES:
        subject = f"{owner}.{table.name[len(owner) + 1:]}"
        facts.append(Fact("table", subject, f"Table {subject}: {table.comment}"))
        for col in table.columns:
            facts.append(Fact("column", f"{subject}.{col.name.upper()}", f"Column {subject}.{col.name.upper()}: "
                              f"{col.comment}"))
    return facts
'''
REBUILD_SYNC = '''    store.delete(list(present)) if present else None
    store.add_texts([f.body for f in wanted.values()], metadatas=[f.store_metadata() for f in wanted.values()],
                    ids=list(wanted))
    return {"inserted": len([i for i in wanted if i not in present]),
            "updated": len([i for i in wanted if i in present and present[i] != wanted[i].fingerprint]),
            "deleted": len([i for i in present if i not in wanted]),
            "unchanged": len([i for i in wanted if present.get(i) == wanted[i].fingerprint])}
'''

PER_TABLE_SCAN = """    facts = []
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables WHERE table_name LIKE :prefix ESCAPE '\\\\' ORDER BY 1",
                    prefix=prefix)
        for (table,) in cur.fetchall():
            cur.execute("SELECT comments FROM user_tab_comments WHERE table_name = :t AND comments IS NOT NULL", t=table)
            for (comment,) in cur.fetchall():
                subject = f"{owner}.{table[len(owner) + 1:]}"
                facts.append(Fact("table", subject, f"Table {subject}: {comment}", {"table": table}))
            cur.execute("SELECT column_name, comments FROM user_col_comments WHERE table_name = :t "
                        "AND comments IS NOT NULL ORDER BY column_name", t=table)
            for column, comment in cur.fetchall():
                subject = f"{owner}.{table[len(owner) + 1:]}.{column}"
                facts.append(Fact("column", subject, f"Column {subject}: {comment}", {"table": table, "column": column}))
    return facts
"""


def _region(todo: int) -> str:
    """The solution region of a TODO's cell (markers included), for variants that replace all of it."""
    source = SOLUTION_CELLS[TODOS[todo].cell]
    start = source.index("    # BEGIN SOLUTION")
    end = source.index("# END SOLUTION") + len("# END SOLUTION")
    return source[start:end]


WRONG_ANSWERS = [
    # TODO 1: schema scan
    (1, "tables only", [("""        cur.execute('''SELECT table_name, column_name, comments FROM user_col_comments""",
                         """        return facts
        cur.execute('''SELECT table_name, column_name, comments FROM user_col_comments""")],
     "no column facts: only tables were scanned"),
    (1, "empty bodies", [("WHERE table_name LIKE :prefix ESCAPE '\\\\' AND comments IS NOT NULL",
                          "WHERE table_name LIKE :prefix ESCAPE '\\\\'")], "has no comment but got a fact"),
    # issue 21: the TODO's SQL pasted into a normal Python string: ESCAPE '\' becomes ESCAPE '' and nothing matches
    (1, "ESCAPE with one backslash in a normal Python string", [("ESCAPE '\\\\'", "ESCAPE '\\'")],
     "its query says ESCAPE ''"),
    (1, "owner ignored", [("AND table_name LIKE :prefix ESCAPE '\\\\'\n", "AND :prefix IS NOT NULL\n")],
     "which is not a FINANCE_ table"),
    (1, "prefix kept in the subject", [("{table[len(owner) + 1:]}", "{table}")], "subjects keep the table prefix"),
    (1, "comment left out of the body", [('f"Column {subject}: {comment}"', 'f"Column {subject}"')],
     "does not contain its column comment"),
    (1, "ids of its own", [('f"Column {subject}: {comment}", {"table": table, "column": column})',
                            'f"Column {subject}: {comment}", {"table": table, "column": column}, id=subject)')],
     "fact ids are not kind:subject"),
    (1, "hard-coded from the definitions", [(_region(1), HARD_CODED_SCAN)], "ran no query on the connection"),
    # adversarial review (adv0405): TODO 1
    (1, "views scanned too (no table_type)", [("WHERE table_type = 'TABLE' AND table_name LIKE", "WHERE table_name LIKE")],
     "table facts that are not commented FINANCE tables"),
    (1, "a hard-coded LIKE 'FINANCE_%' without ESCAPE",
     [("LIKE :prefix ESCAPE '\\\\'\n                         AND comments IS NOT NULL\n                       "
       "ORDER BY table_name''', prefix=prefix)",
       "LIKE 'FINANCE_%'\n                         AND comments IS NOT NULL\n                       ORDER BY table_name''')"),
      ("WHERE table_name LIKE :prefix ESCAPE '\\\\' AND comments IS NOT NULL\n                       "
       "ORDER BY table_name, column_name''', prefix=prefix)",
       "WHERE table_name LIKE 'FINANCE_%' AND comments IS NOT NULL\n                       "
       "ORDER BY table_name, column_name''')")],
     "which is not a FINANCE_ table"),
    (1, "the prefix formatted into the SQL",
     [("cur.execute('''SELECT table_name, comments", "cur.execute(f'''SELECT table_name, comments"),
      ("cur.execute('''SELECT table_name, column_name", "cur.execute(f'''SELECT table_name, column_name"),
      ("LIKE :prefix ESCAPE", "LIKE '{prefix}' ESCAPE"), ("''', prefix=prefix)", "''')")],
     "into the SQL text instead of binding"),
    (1, "comments filtered in Python",
     [("\n                         AND comments IS NOT NULL\n", "\n"), (" AND comments IS NOT NULL\n", "\n"),
      ("for table, comment in cur.fetchall():", "for table, comment in [r for r in cur.fetchall() if r[1]]:"),
      ("for table, column, comment in cur.fetchall():",
       "for table, column, comment in [r for r in cur.fetchall() if r[2]]:")],
     "filtered in Python"),
    (1, "dicts instead of Facts",
     [('facts.append(Fact("table", subject, f"Table {subject}: {comment}", {"table": table}))',
       'facts.append({"kind": "table", "subject": subject, "body": f"Table {subject}: {comment}", '
       '"id": "table:" + subject})'),
      ('facts.append(Fact("column", subject, f"Column {subject}: {comment}", {"table": table, "column": column}))',
       'facts.append({"kind": "column", "subject": subject, "body": f"Column {subject}: {comment}", '
       '"id": "column:" + subject})')],
     "not a Fact"),
    (1, "body without its subject", [('f"Column {subject}: {comment}"', "comment"),
                                     ('f"Table {subject}: {comment}"', "comment")], "does not name its subject"),
    (1, "column query not limited to the FINANCE tables",
     [("WHERE table_name LIKE :prefix ESCAPE '\\\\' AND comments IS NOT NULL\n                       "
       "ORDER BY table_name, column_name''', prefix=prefix)",
       "WHERE comments IS NOT NULL\n                       ORDER BY table_name, column_name''')")],
     "which is not a FINANCE_ table"),
    # TODO 2: sync
    (2, "append-only (no ids)", [("""metadatas=[f.store_metadata() for f in new + changed],
                        ids=[f.id for f in new + changed])""", "metadatas=[f.store_metadata() for f in new + changed])")],
     "the rows do not reuse the facts' ids"),
    (2, "rewrites unchanged facts", [("present[i] != f.fingerprint", "True")],
     "a re-run with nothing changed still wrote to the store"),
    (2, "no deletion of stale rows", [("    if stale:\n        store.delete(stale)\n", "")],
     "stale rows are not deleted"),
    (2, "deletes and rebuilds every time", [(_region(2), REBUILD_SYNC)],
     "a re-run with nothing changed still wrote to the store"),
    (2, "counts the wanted facts as unchanged", [('"unchanged": len(wanted) - len(new) - len(changed)',
                                                  '"unchanged": len(wanted)')], "expected 5 inserted"),
    (2, "no report", [("""    return {"inserted": len(new), "updated": len(changed), "deleted": len(stale),
            "unchanged": len(wanted) - len(new) - len(changed)}""", "    return None")], "returned NoneType"),
    # adversarial review (adv0405): TODO 2
    (2, "an invalidated fact stays (stale from all facts)",
     [("stale = sorted(i for i in present if i not in wanted)",
       "stale = sorted(i for i in present if i not in {f.id for f in facts})")], "invalidated"),
    (2, "metadata written by hand without the fingerprint",
     [("metadatas=[f.store_metadata() for f in new + changed]",
       'metadatas=[{"kind": f.kind, "subject": f.subject, "fact_id": f.id} for f in new + changed]')],
     "a re-run with nothing changed still wrote to the store"),
    (2, "new facts taken from all facts, not the publishable ones",
     [("new = [f for i, f in wanted.items() if i not in present]", "new = [f for f in facts if f.id not in present]")],
     "tool_output or chat_extraction"),
    (2, "initial load only", [("    if stale:\n        store.delete(stale)\n", ""),
                              ("changed = [f for i, f in wanted.items() if i in present and present[i] != f.fingerprint]",
                               "changed = []")], "stale rows are not deleted"),
    # TODO 3: retrieve
    (3, "no oversampling", [("k=k * 4, filter=flt)", "k=k, filter=flt)")], "expected 4 * k = 20"),
    (3, "a fixed candidate count", [("k=k * 4, filter=flt)", "k=20, filter=flt)")], "expected k=12 and 3 hits"),
    (3, "kinds filter ignored", [("k=k * 4, filter=flt)", "k=k * 4)")], "the kinds filter is ignored"),
    (3, "kinds filter applied after the search",
     [("hits = knowledge_vs.similarity_search_with_score(query, k=k * 4, filter=flt)",
       "hits = [(d, s) for d, s in knowledge_vs.similarity_search_with_score(query, k=k * 4)\n"
       "            if not kinds or d.metadata.get('kind') in kinds]")], "the filter ran after the search"),
    (3, "empty result", [("hits = knowledge_vs.similarity_search_with_score(query, k=k * 4, filter=flt)", "hits = []")],
     "returned no hits"),
    (3, "more than k hits", [("top_k=k,", "top_k=k * 4,")], "expected at most 5 rows, got 20"),
    (3, "missing keys", [("to_hit(doc, distance=float(dist))", "to_hit(doc)")], "missing the key(s) ['distance']"),
    (3, "kinds string not split", [("""    if isinstance(kinds, str):
        kinds = [s.strip() for s in kinds.split(",") if s.strip()]
""", "")], "is not split into a list"),
    # adversarial review (adv0405): TODO 3
    (3, "only the first kind ($eq)", [("k=k * 4, filter=flt)", 'k=k * 4, filter={"kind": kinds[0]} if kinds else None)')],
     "the filter must ask for every kind in kinds"),
    (3, "a filter on a key the metadata lacks", [("k=k * 4, filter=flt)",
                                                  'k=k * 4, filter={"kinds": {"$in": kinds}} if kinds else None)')],
     "the filter matches no row"),
    (3, "no scores (distance 0)",
     [("hits = knowledge_vs.similarity_search_with_score(query, k=k * 4, filter=flt)",
       "hits = [(d, 0.0) for d in knowledge_vs.similarity_search(query, k=k * 4, filter=flt)]")],
     "the distance is not the search's own"),
    (3, "a filter even without kinds", [("k=k * 4, filter=flt)", 'k=k * 4, filter={"kind": {"$in": kinds}})')],
     "without kinds: the store rejected the filter"),
    (3, "the kinds list as the filter value", [("k=k * 4, filter=flt)",
                                                'k=k * 4, filter={"kind": kinds} if kinds else None)')],
     "the store rejected the filter"),
    # issue 21: accepted, and the next cell broke
    (1, "a generator of facts [next]", [("    return facts\n", "    return (f for f in facts)\n")],
     "expected a list of Facts"),
    (1, "a tuple of facts [next]", [("    return facts\n", "    return tuple(facts)\n")], "expected a list of Facts"),
    (2, "nothing to do without facts [probe]", [("    new = [f for i, f in wanted.items() if i not in present]\n",
                                                  "    if not wanted:\n        return {\"inserted\": 0, \"updated\": 0, "
                                                  "\"deleted\": 0, \"unchanged\": 0}\n"
                                                  "    new = [f for i, f in wanted.items() if i not in present]\n")],
     "a sync of no facts at all"),
    # adversarial review (adv0405), second round
    (2, "subjects embedded instead of bodies", [("store.add_texts([f.body for f in new + changed]",
                                                 "store.add_texts([f.subject for f in new + changed]")],
     "instead of the fact's body"),
]


@pytest.mark.parametrize("todo, name, replacements, reason", WRONG_ANSWERS,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _, _ in WRONG_ANSWERS])
def test_a_plausible_wrong_answer_fails_and_leaves_the_database_as_found(notebook, todo, name, replacements, reason):
    conn = notebook()["conn"]
    before = snapshot(conn)
    expect_reasoned_failure(lambda: run_todo(notebook, todo, variant(todo, *replacements)), todo, reason)
    assert snapshot(conn) == before
    ns = notebook()
    assert ns.get("knowledge_vs") is None or type(ns["knowledge_vs"]).__name__ == "OracleVS"   # recorder removed


def test_a_broken_statement_is_reported_with_its_oracle_error(notebook):
    with pytest.raises(CheckpointError) as excinfo:
        run_todo(notebook, 1, variant(1, ("FROM user_col_comments", "FROM user_col_comment")))
    assert excinfo.value.reason.startswith("ORA-00942") and excinfo.value.hint


def test_todo_3_says_so_when_the_store_has_not_been_prepared(notebook):
    notebook(SOLUTION_CELLS["p04-store"])
    with pytest.raises(CheckpointFailed, match="the notebook has no `rerank` yet"):
        ns = notebook(SOLUTION_CELLS["p04-todo3"])
        part04.check_retrieve_knowledge(ns["conn"], ns["retrieve_knowledge"])


def test_a_per_table_scan_is_another_correct_answer(notebook, capsys):
    """A listing of USER_TABLES, then each table's comments: its listing rows are not comment rows filtered in
    Python (the check counts only rows read from the comment views)."""
    run_todo(notebook, 1, variant(1, (_region(1), PER_TABLE_SCAN)))
    expect_passed(capsys, 1)
