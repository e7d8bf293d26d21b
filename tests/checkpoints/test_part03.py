"""Part 03's checkpoints, driven by the notebooks themselves.

For every TODO: (a) the solution cell passes its checkpoint, (b) the generated student stub fails it
with a friendly CheckpointFailed (not an error, not a raw exception), and (c) plausible wrong answers
fail it with a reason that names the mistake. The cells are read from solutions/ and notebooks/ with
nbformat and executed in one namespace per test, in this process, against a copy of an embedded
database that already holds the embedding model (tests/memory/memory_db.py).
"""
from __future__ import annotations

import oracledb
import pytest

from checkpoints.framework import CheckpointError, CheckpointFailed
from tests.memory.memory_db import memory_db, memory_template  # noqa: F401
from workshop.config import PROJECT_ROOT
from workshop.notebooks import read_notebook

SOLUTION = PROJECT_ROOT / "solutions" / "03_agent_memory.ipynb"
STUDENT = PROJECT_ROOT / "notebooks" / "03_agent_memory.ipynb"
SETUP_CELLS = ("p03-path", "p03-connect")
#: TODO number -> (its cell, its checkpoint cell, the cells that must have run before it)
TODOS = {
    1: ("p03-todo1", "p03-check1", ()),
    2: ("p03-todo2", "p03-check2", ("p03-todo1",)),
    3: ("p03-todo3", "p03-check3", ("p03-todo1",)),
    4: ("p03-todo4", "p03-check4", ("p03-embeddings",)),
    5: ("p03-todo5", "p03-check5", ("p03-embeddings", "p03-todo4")),
    6: ("p03-todo6", "p03-check6", ("p03-embeddings", "p03-todo4")),
    7: ("p03-todo7", "p03-check7", ("p03-embeddings", "p03-todo4")),
    8: ("p03-todo8", "p03-check8", ("p03-embeddings", "p03-todo4")),
}


def _cells(path) -> dict[str, str]:
    return {cell.id: cell.source for cell in read_notebook(path).cells if cell.cell_type == "code"}


SOLUTION_CELLS = _cells(SOLUTION)
STUDENT_CELLS = _cells(STUDENT)


def variant(todo: int, *replacements: tuple[str, str]) -> str:
    """The solution cell of `todo` with text replaced (each old text must occur: the test breaks loudly
    when the solution changes instead of silently testing something else)."""
    source = SOLUTION_CELLS[TODOS[todo][0]]
    for old, new in replacements:
        assert old in source, f"{old!r} is not in the solution of TODO {todo}"
        source = source.replace(old, new)
    return source


@pytest.fixture
def notebook(memory_db, monkeypatch):
    """Runs notebook cells in one namespace, with the notebook's own setup cells on this test's database."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(memory_db))
    monkeypatch.chdir(PROJECT_ROOT / "solutions")
    fetch_lobs = oracledb.defaults.fetch_lobs
    namespace: dict = {"__name__": "__notebook__"}

    def run(*sources: str) -> dict:
        for source in sources:
            exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's own cells
        return namespace

    run(*(SOLUTION_CELLS[cell] for cell in SETUP_CELLS))
    yield run
    conn = namespace.get("conn")
    if conn is not None and conn.is_healthy():
        conn.rollback()
        conn.close()
    oracledb.defaults.fetch_lobs = fetch_lobs


def run_todo(notebook, todo: int, todo_source: str) -> None:
    """Run the cells TODO `todo` depends on (solutions), then `todo_source`, then its checkpoint cell."""
    cell, checkpoint_cell, before = TODOS[todo]
    notebook(*(SOLUTION_CELLS[c] for c in before))
    notebook(todo_source)
    notebook(SOLUTION_CELLS[checkpoint_cell])


def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    student = read_notebook(STUDENT)
    tagged = {cell.id: cell.metadata.get("workshop", {}).get("todo") for cell in student.cells}
    for number, (cell, checkpoint_cell, _) in TODOS.items():
        assert tagged[cell] == number and tagged[checkpoint_cell] == number
        assert f"part03.check_" in SOLUTION_CELLS[checkpoint_cell]
        assert STUDENT_CELLS[cell] != SOLUTION_CELLS[cell]


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_solution_passes(notebook, todo, capsys):
    run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][0]])
    assert f"✅ TODO {todo}:" in capsys.readouterr().out


@pytest.mark.parametrize("todo, reason", [
    (1, "`conversation_ddl` is still empty (None)"),
    (2, "not done yet: the code still raises NotImplementedError (TODO 2: INSERT INTO conversation_memory"),
    (3, "not done yet: the code still raises NotImplementedError (TODO 3:"),
    (4, "`stores` is still empty (None)"),
    (5, "not done yet: the code still raises NotImplementedError (TODO 5:"),
    (6, "not done yet: the code still raises NotImplementedError (TODO 6:"),
    (7, "not done yet: the code still raises NotImplementedError (TODO 7:"),
    (8, "not done yet: the code still raises NotImplementedError (TODO 8:"),
])
def test_the_untouched_stub_fails_with_a_friendly_message(notebook, todo, reason, capsys):
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo][0]])
    failure = excinfo.value
    assert type(failure) is CheckpointFailed          # a FAIL ("not yet"), not "the check could not run"
    assert str(failure).startswith(f"TODO {todo}:") and reason in failure.reason and failure.hint
    assert failure._render_traceback_()[0] == f"❌ {failure.label} — not yet"   # one message in Jupyter and nbval
    assert f"❌ TODO {todo}:" in capsys.readouterr().out


WRONG_ANSWERS = [
    # TODO 1: the table
    (1, "content VARCHAR2", [("content     CLOB ", "content     VARCHAR2(4000) ")],
     "column CONVERSATION_MEMORY.CONTENT is VARCHAR2(4000), expected CLOB"),
    (1, "no time zone", [("TIMESTAMP WITH TIME ZONE", "TIMESTAMP")], "CREATED_AT is TIMESTAMP, expected TIMESTAMP WITH TIME ZONE"),
    (1, "no default", [("DEFAULT SYSTIMESTAMP ", "")], "CREATED_AT has no insert-time default"),
    (1, "id not identity", [("GENERATED ALWAYS AS IDENTITY ", "")], "ID is not an identity column"),
    (1, "thread_id nullable", [("thread_id   VARCHAR2(100) NOT NULL", "thread_id   VARCHAR2(100)")],
     "THREAD_ID is nullable, expected NOT NULL"),
    (1, "metadata CLOB", [("metadata    JSON", "metadata    CLOB")], "METADATA is CLOB, expected JSON"),
    (1, "not re-runnable", [("CREATE TABLE IF NOT EXISTS", "CREATE TABLE")], "fails with ORA-00955"),
    # TODO 2: RETURNING INTO
    (2, "forgot to commit", [("    conn.commit()\n", "")], "not committed"),
    (2, "returns the list", [("return new_id.getvalue()[0]", "return new_id.getvalue()")], "not one id"),
    (2, "returns lastrowid", [("return new_id.getvalue()[0]", "return cur.lastrowid")], "not the new row's id"),
    (2, "returns a string id", [("new_id = cur.var(int)", "new_id = cur.var(str)"),
                                ("return new_id.getvalue()[0]", "return str(new_id.getvalue()[0])")],
     "not an integer id"),
    (2, "drops the metadata", [("metadata=metadata", "metadata=None")], "the metadata came back as None"),
    # TODO 3: thread-scoped, ordered, limited reads
    (3, "ignores thread_id", [("WHERE thread_id = :thread_id", "WHERE :thread_id IS NOT NULL")],
     "returned turns of another thread"),
    (3, "no row limit", [("FETCH FIRST :limit ROWS ONLY", "OFFSET 0 ROWS"),
                         ("thread_id=thread_id, limit=limit", "thread_id=thread_id")], "expected at most 3 turns"),
    (3, "newest first", [("ORDER BY created_at, id", "ORDER BY created_at DESC, id DESC")],
     "the right turns in the wrong order"),
    (3, "oldest n", [("ORDER BY created_at DESC, id DESC", "ORDER BY created_at, id")],
     "expected the newest 3 turns, oldest first"),
    (3, "tuples", [("""return [{"id": turn_id, "role": role, "content": text_of(content), "created_at": created_at}
            for turn_id, role, content, created_at in rows]""", "return rows")], "expected each turn to be a dict"),
    # TODO 4: the stores
    (4, "default distance", [("DistanceStrategy.COSINE, ", "")], "measures EUCLIDEAN_DISTANCE, expected COSINE"),
    (4, "no upsert", [(", mutate_on_duplicate=True", "")], "skips a record whose id exists"),
    (4, "a missing store", [("for key, table in STORE_TABLES.items()}",
                             "for key, table in STORE_TABLES.items() if key != 'summary'}")],
     "expected ['knowledge_base', 'workflow', 'toolbox', 'entity', 'summary']"),
    (4, "wrong table name", [("OracleVS(conn, embeddings, table,", "OracleVS(conn, embeddings, table.lower(),")],
     'uses the table "knowledge_base_vs", expected KNOWLEDGE_BASE_VS'),
    (4, "embeddings outside the database",
     [("stores = {", "from langchain_core.embeddings import DeterministicFakeEmbedding\n"
                     "embeddings = DeterministicFakeEmbedding(size=384)\nstores = {")],
     "does not embed in the database"),
    # TODO 5: write_knowledge
    (5, "drops the metadata", [("metadatas=[metadata or {}]", "metadatas=None")], "the metadata is missing or differs"),
    (5, "wrong store", [('stores["knowledge_base"]', 'stores["workflow"]')], "the fact went to WORKFLOW_VS"),
    (5, "returns the list", [("return ids[0]", "return ids")], "returned the list"),
    # TODO 6: read_knowledge
    (6, "ignores the filter", [("k=k, filter=filter)", "k=k)")], "does not match the filter"),
    (6, "ignores k", [("k=k, filter=filter)", "k=4, filter=filter)")], "expected at most 2 results"),
    (6, "documents, not dicts", [("similarity_search_with_score(query", "similarity_search(query"),
                                 ("""return [{"id": doc.id, "text": doc.page_content, "metadata": doc.metadata, "distance": distance}
            for doc, distance in results]""", "return results")], "expected each result to be a dict"),
    (6, "no distance", [(', "distance": distance}', "}")], "missing the key(s) ['distance']"),
    # TODO 7: computed workflow metadata
    (7, "no timestamp", [(""",
                "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds")}""", "}")],
     "the workflow metadata is missing ['timestamp']"),
    (7, "success as text", [('"success": bool(success)', '"success": str(success)')],
     "metadata['success'] is 'True', expected True"),
    (7, "local time without zone", [("datetime.now(timezone.utc)", "datetime.now()")],
     "not an ISO 8601 time with a time zone"),
    (7, "hard-coded step count", [('"num_steps": len(steps)', '"num_steps": 3')],
     "metadata['num_steps'] is 3 for 1 steps"),
    (7, "steps left out of the text", [('] + [f"{n}. {step}" for n, step in enumerate(steps, start=1)]', "]")],
     "the workflow text does not contain 'Look up the index parameters'"),
    # TODO 8: entities
    (8, "no stable id", [(", ids=[entity_key]", "")], "writing the same entity twice left 2 rows"),
    (8, "no type", [(', "type": entity_type}', "}")], "missing or differs for ['type']"),
    (8, "drops the caller's metadata", [("{**(metadata or {}), ", "{")], "missing or differs for ['source']"),
]


@pytest.mark.parametrize("todo, name, replacements, reason", WRONG_ANSWERS,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _, _ in WRONG_ANSWERS])
def test_a_plausible_wrong_answer_fails(notebook, todo, name, replacements, reason):
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, todo, variant(todo, *replacements))
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure   # a reasoned FAIL, not a crash of the check
    assert reason in failure.reason and failure.hint and str(failure).startswith(f"TODO {todo}:")


def test_a_broken_sql_statement_is_reported_with_its_oracle_error(notebook):
    with pytest.raises(CheckpointError) as excinfo:
        run_todo(notebook, 2, variant(2, ("VALUES (:thread_id, :role, :content, :metadata)",
                                          "VALUES (:thread_id, :role, :content)")))
    assert excinfo.value.reason.startswith(("ORA-", "DPY-")) and excinfo.value.hint


def test_checkpoints_leave_no_probe_rows_behind(notebook):
    for todo in sorted(TODOS):
        run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][0]])
    conn = notebook()["conn"]
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM conversation_memory")
        assert cur.fetchone() == (0,)
        for table in ("KNOWLEDGE_BASE_VS", "WORKFLOW_VS", "TOOLBOX_VS", "ENTITY_VS", "SUMMARY_VS"):
            cur.execute(f"SELECT COUNT(*) FROM {table}")
            assert cur.fetchone() == (0,), table
    assert not conn.transaction_in_progress


def test_a_failing_check_cleans_up_and_leaves_no_open_transaction(notebook):
    with pytest.raises(CheckpointFailed):
        run_todo(notebook, 2, variant(2, ("    conn.commit()\n", "")))
    conn = notebook()["conn"]
    assert not conn.transaction_in_progress
    assert conn.cursor().execute("SELECT COUNT(*) FROM conversation_memory").fetchone() == (0,)
