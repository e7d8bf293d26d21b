"""Part 04's checkpoints (knowledge retrieval), driven by the notebooks' own cells.

For every TODO: the solution cell passes, another correct answer passes, the generated student stub fails
with a friendly CheckpointFailed, and every plausible wrong answer in WRONG_ANSWERS fails with a reason that
names the mistake. The cells come from solutions/ and notebooks/ and run here, in one namespace per test,
against the shared set-up build. The notebook is run once per module up to `prepare_search` (the sync embeds
~160 facts, the slow step); the tests reuse that store and never reset part 04, and the module drops part 04's
objects again at the end. Each test also proves the checkpoint left the database as it found it.
"""
from __future__ import annotations

import oracledb
import pytest

from checkpoints import part04
from checkpoints.framework.render import in_ipython
from checkpoints.framework import CheckpointError, CheckpointFailed
from tests.checkpoints.shared import cells, copy_db
from workshop.config import PROJECT_ROOT

NAME = "04_knowledge_retrieval.ipynb"
SOLUTION_CELLS = cells(PROJECT_ROOT / "solutions" / NAME)
STUDENT_CELLS = cells(PROJECT_ROOT / "notebooks" / NAME)
RESET = "reset_part(4, conn, log=None)"
#: TODO number -> (its cell, the cells that must have run before it, its checkpoint call)
TODOS = {
    1: ("p04-todo1", (), lambda ns: part04.check_scan_schema(ns["conn"], ns["scan_schema"])),
    2: ("p04-todo2", ("p04-store",), lambda ns: part04.check_sync_knowledge(ns["conn"], ns["sync_knowledge"])),
    3: ("p04-todo3", ("p04-store", "p04-prepare"), lambda ns: part04.check_retrieve_knowledge(ns["conn"], ns["retrieve_knowledge"])),
}
#: What the module runs once (solution cells) to have a filled, indexed AML_KNOWLEDGE_VS.
PREPARE = ("p04-todo1", "p04-scan-show", "p04-write-facts", "p04-store", "p04-todo2", "p04-sync-run", "p04-prepare")

pytestmark = pytest.mark.slow


def cell_name(todo: int) -> str:
    return {1: "scan_schema", 2: "sync_knowledge", 3: "retrieve_knowledge"}[todo]


def _namespace() -> dict:
    return {"__name__": "notebook", "display": lambda *args, **kwargs: None}


def _run(namespace: dict, source: str, name: str) -> None:
    exec(compile(source, f"{NAME}:{name}", "exec"), namespace)  # noqa: S102 - the notebook's own cells


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
        fetch_lobs = oracledb.defaults.fetch_lobs
        ns = _namespace()
        for cell in ("p04-path", "p04-connect", *PREPARE):
            _run(ns, SOLUTION_CELLS[cell], cell)
        ns["conn"].close()
        _clear_mirrors()
        oracledb.defaults.fetch_lobs = fetch_lobs
    return path


@pytest.fixture
def notebook(prepared_db, monkeypatch):
    """run(cell_id, source=None) executes a notebook cell (by default the solution's) in one namespace that has
    run the setup cells without their reset."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.delenv("EMBED_MODEL", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(prepared_db))
    fetch_lobs = oracledb.defaults.fetch_lobs
    ns = _namespace()

    def run(cell_id: str, source: str | None = None) -> dict:
        _run(ns, SOLUTION_CELLS[cell_id] if source is None else source, cell_id)
        return ns

    run("p04-path")
    run("p04-connect", SOLUTION_CELLS["p04-connect"].replace(RESET, "pass"))
    yield run
    conn = ns.get("conn")
    if conn is not None and conn.is_healthy():
        conn.rollback()
        conn.close()
    _clear_mirrors()
    oracledb.defaults.fetch_lobs = fetch_lobs


def variant(todo: int, *replacements: tuple[str, str]) -> str:
    """The solution cell of `todo` with text replaced; each old text must occur (a changed solution breaks the
    test loudly instead of silently testing something else)."""
    source = SOLUTION_CELLS[TODOS[todo][0]]
    for old, new in replacements:
        assert old in source, f"{old!r} is not in the solution of TODO {todo}"
        source = source.replace(old, new)
    return source


def run_todo(notebook, todo: int, source: str) -> dict:
    """Run the cells TODO `todo` depends on, then `source` as its cell, then its checkpoint."""
    cell, before, check = TODOS[todo]
    for name in before:
        notebook(name)
    ns = notebook(cell, source)
    check(ns)
    return ns


def snapshot(conn) -> tuple:
    """What a checkpoint must leave as it found it: the tables, the store's rows, the facts."""
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables ORDER BY table_name")
        tables = tuple(r[0] for r in cur.fetchall())
        cur.execute("SELECT JSON_VALUE(metadata, '$.fact_id'), JSON_VALUE(metadata, '$.fingerprint') "
                    "FROM aml_knowledge_vs ORDER BY 1")
        store = tuple(cur.fetchall())
        cur.execute("SELECT COUNT(*) FROM knowledge_facts")
        facts = cur.fetchone()
    return tables, store, facts


# --------------------------------------------------------------------------- the pairing and the solution
def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    from workshop.notebooks import read_notebook
    student = read_notebook(PROJECT_ROOT / "notebooks" / NAME)
    tagged = {cell.id: cell.metadata.get("workshop", {}).get("todo") for cell in student.cells}
    for number, (cell, _, _) in TODOS.items():
        assert tagged[cell] == number and tagged[f"p04-check{number}"] == number
        assert f"part04.check_{cell_name(number)}(" in SOLUTION_CELLS[f"p04-check{number}"]
        assert STUDENT_CELLS[cell] != SOLUTION_CELLS[cell]


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_solution_passes_and_leaves_the_database_as_found(notebook, todo, capsys):
    ns = notebook("p04-path")
    before = snapshot(ns["conn"])
    ns = run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][0]])
    assert f"✅ TODO {todo}:" in capsys.readouterr().out
    assert snapshot(ns["conn"]) == before
    assert not ns["conn"].transaction_in_progress


def test_the_finance_check_passes_on_the_set_up_and_fails_without_a_surprising_comment(notebook):
    conn = notebook("p04-path")["conn"]
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
    (3, "4 * k and the filter written inline", [
        ("k=k * 4, filter=flt)", 'k=4 * k, filter={"kind": {"$in": kinds}} if kinds else None)')]),
]


@pytest.mark.parametrize("todo, name, replacements", OTHER_CORRECT,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _ in OTHER_CORRECT])
def test_another_correct_answer_passes(notebook, todo, name, replacements, capsys):
    run_todo(notebook, todo, variant(todo, *replacements))
    assert f"✅ TODO {todo}:" in capsys.readouterr().out


# --------------------------------------------------------------------------- stubs
@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_untouched_stub_fails_with_a_friendly_message(notebook, todo, capsys):
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo][0]])
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure        # a FAIL ("not yet"), not "the check could not run"
    assert str(failure).startswith(f"TODO {todo}:")
    assert failure.reason.startswith(f"not done yet: the code still raises NotImplementedError (TODO {todo}:")
    rendered = failure._render_traceback_()                  # the one message Jupyter and nbval show, no stack
    assert rendered[0].startswith(f"❌ TODO {todo}:") and not any("Traceback" in line for line in rendered)
    # printed once outside IPython; inside it (a shell made by an earlier test) IPython renders the raise itself
    assert (f"❌ TODO {todo}:" in capsys.readouterr().out) is not in_ipython()


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


def _region(todo: int) -> str:
    """The solution region of a TODO's cell (markers included), for variants that replace all of it."""
    source = SOLUTION_CELLS[TODOS[todo][0]]
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
    (1, "owner ignored", [("AND table_name LIKE :prefix ESCAPE '\\\\'\n", "AND :prefix IS NOT NULL\n")],
     "table facts that are not commented FINANCE tables"),
    (1, "prefix kept in the subject", [("{table[len(owner) + 1:]}", "{table}")], "subjects keep the table prefix"),
    (1, "comment left out of the body", [('f"Column {subject}: {comment}"', 'f"Column {subject}"')],
     "does not contain its column comment"),
    (1, "ids of its own", [('f"Column {subject}: {comment}", {"table": table, "column": column})',
                            'f"Column {subject}: {comment}", {"table": table, "column": column}, id=subject)')],
     "fact ids are not kind:subject"),
    (1, "hard-coded from the definitions", [(_region(1), HARD_CODED_SCAN)], "commented tables without a fact"),
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
]


@pytest.mark.parametrize("todo, name, replacements, reason", WRONG_ANSWERS,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _, _ in WRONG_ANSWERS])
def test_a_plausible_wrong_answer_fails_and_leaves_the_database_as_found(notebook, todo, name, replacements, reason):
    conn = notebook("p04-path")["conn"]
    before = snapshot(conn)
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, todo, variant(todo, *replacements))
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure        # a reasoned FAIL, not a crash of the check
    assert reason in failure.reason, failure.reason
    assert failure.hint and str(failure).startswith(f"TODO {todo}:")
    assert snapshot(conn) == before
    ns = notebook("p04-path")
    assert ns.get("knowledge_vs") is None or type(ns["knowledge_vs"]).__name__ == "OracleVS"   # recorder removed


def test_a_broken_statement_is_reported_with_its_oracle_error(notebook):
    with pytest.raises(CheckpointError) as excinfo:
        run_todo(notebook, 1, variant(1, ("FROM user_col_comments", "FROM user_col_comment")))
    assert excinfo.value.reason.startswith("ORA-00942") and excinfo.value.hint


def test_todo_3_says_so_when_the_store_has_not_been_prepared(notebook):
    notebook("p04-store")
    with pytest.raises(CheckpointFailed, match="the notebook has no `rerank` yet"):
        notebook("p04-todo3")
        ns = notebook("p04-path")
        part04.check_retrieve_knowledge(ns["conn"], ns["retrieve_knowledge"])
