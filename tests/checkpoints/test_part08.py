"""Part 08's checkpoints, driven by the notebook's own cells.

For every TODO of the mirror: the solution passes, another correct answer passes, the untouched student stub
fails with a friendly CheckpointFailed, and each plausible wrong answer (the table WRONG) fails with a reason that
names the mistake. The OAMP TODO is checked on Oracle with the package (marked `oracle`, the Oracle CI job) and
skips with its reason here. Cells run in one namespace per test, on a private copy of a set-up database.

Accepted on purpose: any order of the rules that gives the same records (the records are compared as a multiset);
extra columns in the search rows; the pool size and RRF k written as literals (20, 60) or as binds.
"""
from __future__ import annotations

import pytest

from checkpoints import part08
from checkpoints.framework import CheckpointFailed
from tests.checkpoints.shared import (NotebookCells, Todo, Wrong, copy_db, expect_passed, expect_reasoned_failure,
                                      expect_stub_failure, kinds_covered, notebook_namespace, wrong_params)
from workshop.config import PROJECT_ROOT

PART = NotebookCells("08_oracle_ai_agent_memory.ipynb", {
    "extract_memories": Todo(1, "p08-todo1", "p08-check1"),
    "search_memories": Todo(2, "p08-todo2", "p08-check2", ("store.create(conn)",)),
})
TODOS, run_todo = PART.todos, PART.run_todo   # run_todo(notebook, todo, source)
SOLUTION_CELLS, STUDENT_CELLS = PART.solution, PART.student

WRONG = [
    # TODO extract_memories
    Wrong("extract_memories", "clause", "keeps-greeting", "keeps a greeting",
          edit=(("if is_greeting(sentence) or has_secret(sentence):", "if has_secret(sentence):"),)),
    Wrong("extract_memories", "clause", "keeps-secret", "keeps the one-time code",
          edit=(("if is_greeting(sentence) or has_secret(sentence):", "if is_greeting(sentence):"),)),
    Wrong("extract_memories", "clause", "loses-metadata", "loses inherited metadata",
          edit=(("metadata = inherited_metadata(message, inherit)", "metadata = {}"),)),
    Wrong("extract_memories", "probe", "ignores-inherit", "metadata keys the policy does not inherit",
          edit=(("metadata = inherited_metadata(message, inherit)",
                 "metadata = inherited_metadata(message, ('tenant', 'source', 'tags'))"),)),
    Wrong("extract_memories", "clause", "tool-fact-without-source", "loses inherited metadata",
          edit=(("metadata[\"confirmed_by\"] = f\"tool:{message['tool']}\"", "pass"),)),
    Wrong("extract_memories", "other", "no-preference-rule", "the policy drops 'I prefer",
          edit=(("            elif is_preference(sentence):\n                kind = \"preference\"\n", ""),)),
    Wrong("extract_memories", "other", "keeps-everything", "not durable",
          edit=(("            else:\n                continue\n", "            else:\n                kind = \"memory\"\n"),)),
    Wrong("extract_memories", "probe", "fixed-scope", "the scope passed in",
          edit=(("user_id=user_id, agent_id=agent_id, metadata", "user_id=\"customer_4471\", agent_id=agent_id, "
                                                             "metadata"),)),
    Wrong("extract_memories", "next-cell", "drops-identifiers", "the policy drops",
          edit=(("elif identifiers(sentence) or is_confirmed_state(sentence):", "elif is_confirmed_state(sentence):"),)),
    # TODO search_memories
    Wrong("search_memories", "clause", "vector-leg-unscoped", "another user",
          edit=(("    FROM agent_memories\n   WHERE user_id = :user_id AND agent_id = :agent_id\n   ORDER BY vec_rank",
                 "    FROM agent_memories\n   WHERE agent_id = :agent_id\n   ORDER BY vec_rank"),)),
    Wrong("search_memories", "clause", "lexical-leg-unscoped", "another user",
          edit=(("     AND user_id = :user_id AND agent_id = :agent_id\n", "     AND agent_id = :agent_id\n"),)),
    Wrong("search_memories", "clause", "no-lexical-leg", "lexical leg is missing",
          edit=(("COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0)",
                 "COALESCE(1 / (60 + v.vec_rank), 0)"),)),
    Wrong("search_memories", "clause", "no-vector-leg", "expected",
          edit=(("COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0)",
                 "COALESCE(1 / (60 + l.lex_rank), 0)"),)),
    Wrong("search_memories", "probe", "row-number-lexical-ties", "expected",
          edit=(("DENSE_RANK() OVER (ORDER BY SCORE(1) DESC)", "ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, memory_id)"),)),
    Wrong("search_memories", "probe", "fixed-k", "expected at most 2 rows",
          edit=((" FETCH FIRST :k ROWS ONLY\"\"\"", " FETCH FIRST 5 ROWS ONLY\"\"\""),
                ("agent_id=agent_id,\n                    k=int(k))", "agent_id=agent_id)"))),
    Wrong("search_memories", "method", "formatted-user", "into the SQL text",
          edit=(("   WHERE user_id = :user_id AND agent_id = :agent_id\n   ORDER BY vec_rank",
                 "   WHERE user_id = '{user_id}' AND agent_id = :agent_id\n   ORDER BY vec_rank"),
                ("sql = f\"\"\"WITH", "sql = f\"\"\"WITH"), (" FETCH FIRST :k ROWS ONLY\"\"\"",
                                                            " FETCH FIRST :k ROWS ONLY\"\"\".replace('{user_id}', user_id)"))),
    Wrong("search_memories", "method", "two-statements", "ONE statement",
          edit=(("    with conn.cursor() as cur:\n",
                 "    with conn.cursor() as cur:\n        cur.execute('SELECT COUNT(*) FROM agent_memories')\n"
                 "        cur.fetchall()\n"),)),
    Wrong("search_memories", "next-cell", "tuples-not-dicts", "'memory_id' and 'content'",
          edit=(("return [dict(zip(names, row)) for row in cur.fetchall()]", "return cur.fetchall()"),)),
    # adversarial review (parts 06-08): mistakes the first table did not hold
    Wrong("extract_memories", "clause", "tool-name-without-prefix", "loses inherited metadata",
          edit=(("metadata[\"confirmed_by\"] = f\"tool:{message['tool']}\"", "metadata[\"confirmed_by\"] = message['tool']"),)),
    Wrong("extract_memories", "method", "whole-messages", "the policy",
          edit=(("for sentence in sentences(message[\"content\"]):", "for sentence in [message[\"content\"]]:"),)),
    Wrong("extract_memories", "probe", "scope-swapped", "the scope passed in",
          edit=(("user_id=user_id, agent_id=agent_id, metadata", "user_id=agent_id, agent_id=user_id, metadata"),)),
    Wrong("extract_memories", "probe", "none-for-missing-keys", "does not inherit",
          edit=(("metadata = inherited_metadata(message, inherit)",
                 "metadata = {key: message.get(\"metadata\", {}).get(key) for key in inherit}"),)),
    Wrong("extract_memories", "other", "identifiers-before-preferences", "expected 'preference'",
          edit=(("            elif is_preference(sentence):\n                kind = \"preference\"\n"
                 "            elif identifiers(sentence) or is_confirmed_state(sentence):\n                kind = \"memory\"\n",
                 "            elif identifiers(sentence) or is_confirmed_state(sentence):\n                kind = \"memory\"\n"
                 "            elif is_preference(sentence):\n                kind = \"preference\"\n"),)),
    Wrong("extract_memories", "other", "assistant-skipped", "the policy drops",
          edit=(("    for message in messages:\n", "    for message in (m for m in messages if m[\"role\"] != \"assistant\"):\n"),)),
    Wrong("search_memories", "clause", "agent-scope-dropped", "another agent",
          edit=(("   WHERE user_id = :user_id AND agent_id = :agent_id\n   ORDER BY vec_rank",
                 "   WHERE user_id = :user_id\n   ORDER BY vec_rank"),
                ("     AND user_id = :user_id AND agent_id = :agent_id\n", "     AND user_id = :user_id\n"),
                ("user_id=user_id, agent_id=agent_id,\n", "user_id=user_id,\n"))),
    Wrong("search_memories", "clause", "inner-join", "expected",
          edit=(("FROM vec v FULL OUTER JOIN lex l", "FROM vec v JOIN lex l"),)),
    Wrong("search_memories", "method", "raw-query-for-text", "keyword_terms",
          edit=(("lex_query=lex_query,", "lex_query=query,"),)),
    # issue 21: RRF without its constant; a probe the five questions never exercised
    Wrong("search_memories", "probe", "rrf-without-constant", "without its constant",
          edit=(("COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0)",
                 "COALESCE(1 / v.vec_rank, 0) + COALESCE(1 / l.lex_rank, 0)"),)),
    Wrong("search_memories", "probe", "rrf-max-not-sum", "returned ids",
          edit=(("COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0)",
                 "GREATEST(COALESCE(1 / (60 + v.vec_rank), 0), COALESCE(1 / (60 + l.lex_rank), 0))"),)),
    Wrong("search_memories", "probe", "no-final-tie-break", "memory_id",
          edit=((" ORDER BY rrf_score DESC, m.memory_id\n", " ORDER BY rrf_score DESC\n"),)),
]

CORRECT = {
    "extract_memories": (("            elif is_preference(sentence):\n                kind = \"preference\"\n"
                          "            elif identifiers(sentence) or is_confirmed_state(sentence):\n",
                          "            elif is_preference(sentence) and not message[\"role\"] == \"tool\":\n"
                          "                kind = \"preference\"\n"
                          "            elif is_confirmed_state(sentence) or identifiers(sentence):\n"),),
    "search_memories": (("FETCH FIRST 20 ROWS ONLY),\nlex", "FETCH FIRST :pool ROWS ONLY),\nlex"),
                        ("user_id=user_id, agent_id=agent_id,\n                    k=int(k))",
                         "user_id=user_id, agent_id=agent_id,\n                    k=int(k), pool=20)"),
                        ("COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0) AS rrf_score",
                         "NVL(1 / (60 + l.lex_rank), 0) + NVL(1 / (60 + v.vec_rank), 0) AS rrf_score")),
}
#: More correct answers (adversarial review): the same policy with a lookup table of rules; RRF by UNION ALL and SUM
MORE_CORRECT = [
    ("extract_memories", (("            records.append(record(sentence, kind, user_id=user_id, agent_id=agent_id, "
                           "metadata=metadata))",
                           "            records += [record(sentence, kind, metadata=dict(metadata), agent_id=agent_id, "
                           "user_id=user_id)]"),)),
    ("search_memories", ((
        "SELECT m.memory_id, m.content, v.vec_rank, l.lex_rank,\n"
        "       COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0) AS rrf_score\n"
        "  FROM vec v FULL OUTER JOIN lex l ON l.memory_id = v.memory_id\n"
        "  JOIN agent_memories m ON m.memory_id = COALESCE(v.memory_id, l.memory_id)\n"
        " ORDER BY rrf_score DESC, m.memory_id\n",
        "SELECT m.memory_id, m.content, f.rrf_score\n"
        "  FROM (SELECT memory_id, SUM(score) AS rrf_score\n"
        "          FROM (SELECT memory_id, 1 / (60 + vec_rank) AS score FROM vec\n"
        "                UNION ALL\n"
        "                SELECT memory_id, 1 / (60 + lex_rank) AS score FROM lex)\n"
        "         GROUP BY memory_id) f\n"
        "  JOIN agent_memories m ON m.memory_id = f.memory_id\n"
        " ORDER BY f.rrf_score DESC, m.memory_id\n"),)),
]


@pytest.fixture
def db_copy(built_db, tmp_path, monkeypatch):
    path = copy_db(built_db, tmp_path / "workshop.db")
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    yield path
    for copy in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        copy.unlink(missing_ok=True)                # a copy per test: several GB over the module otherwise


@pytest.fixture
def notebook(db_copy, monkeypatch):
    monkeypatch.chdir(PROJECT_ROOT / "solutions")
    with notebook_namespace(SOLUTION_CELLS["p08-path"], SOLUTION_CELLS["p08-setup"]) as run:
        yield run


def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    PART.expect_paired("part08", {name: name for name in TODOS})


def test_every_todo_has_each_kind_of_wrong_answer_it_can_have():
    covered = kinds_covered(WRONG)
    for todo in TODOS:
        assert {"clause", "probe", "next-cell"} <= covered[todo], (todo, covered[todo])
    assert "method" in covered["search_memories"]


@pytest.mark.parametrize("todo", list(TODOS))
def test_the_solution_passes(notebook, todo, capsys):
    run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo].cell])
    expect_passed(capsys, TODOS[todo].number)


@pytest.mark.parametrize("todo", list(TODOS))
def test_another_correct_answer_passes(notebook, todo, capsys):
    run_todo(notebook, todo, PART.variant(todo, *CORRECT[todo]))
    expect_passed(capsys, TODOS[todo].number)


@pytest.mark.parametrize(("todo", "edit"), MORE_CORRECT, ids=[t for t, _ in MORE_CORRECT])
def test_more_correct_answers_pass(notebook, todo, edit, capsys):
    run_todo(notebook, todo, PART.variant(todo, *edit))
    expect_passed(capsys, TODOS[todo].number)


@pytest.mark.parametrize("todo", list(TODOS))
def test_the_student_stub_fails(notebook, todo, capsys):
    expect_stub_failure(lambda: run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo].cell]), TODOS[todo].number, capsys)


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "extract_memories"))
def test_wrong_extraction_fails(notebook, wrong):
    expect_reasoned_failure(lambda: run_todo(notebook, wrong.todo, PART.variant(wrong.todo, *wrong.edit)),
                            TODOS[wrong.todo].number, wrong.reason)


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "search_memories"))
def test_wrong_search_fails(notebook, wrong):
    expect_reasoned_failure(lambda: run_todo(notebook, wrong.todo, PART.variant(wrong.todo, *wrong.edit)),
                            TODOS[wrong.todo].number, wrong.reason)


def test_the_search_check_leaves_the_table_as_it_found_it(notebook):
    ns = notebook("store.create(conn)", SOLUTION_CELLS["p08-todo2"])
    with ns["conn"].cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_memories")
        before = cur.fetchone()[0]
    notebook(SOLUTION_CELLS["p08-check2"])
    with ns["conn"].cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_memories")
        assert cur.fetchone()[0] == before


def test_the_search_check_without_the_table_says_what_to_run(notebook):
    ns = notebook(SOLUTION_CELLS["p08-todo2"])
    with pytest.raises(CheckpointFailed, match="AGENT_MEMORIES"):
        notebook(SOLUTION_CELLS["p08-check2"])
    assert ns["conn"].is_healthy()


def test_the_oamp_check_skips_with_its_reason_on_the_embedded_engine(notebook, capsys):
    notebook(SOLUTION_CELLS["p08-oamp-imports"], SOLUTION_CELLS["p08-todo3"], SOLUTION_CELLS["p08-check3"])
    out = capsys.readouterr().out
    assert "skipped: the embedded engine cannot run OAMP" in out and "TODO 3" in out


def test_the_oamp_check_is_named_for_its_todo():
    assert part08.check_make_hybrid_memory.todo_name == "make_hybrid_memory"
    assert part08.check_make_hybrid_memory.label_now().startswith("TODO 3:")


@pytest.fixture
def oracle_conn():
    """A live Oracle connection (the Oracle CI job sets ORACLE_DSN), else the test skips with the reason."""
    import os
    if not os.environ.get("ORACLE_DSN"):
        pytest.skip("needs a live Oracle AI Database (ORACLE_DSN) and the OAMP environment (scripts/setup_oamp_env.sh)")
    from workshop import db
    conn = db.connect()
    yield conn
    conn.close()


@pytest.mark.oracle
def test_oamp_todo_on_oracle(oracle_conn):      # runs with .venv-oamp/bin/python on Oracle (not in CI)
    pytest.importorskip("oracleagentmemory", reason="oracleagentmemory is installed only in the OAMP environment")
    from workshop.agent_memory import oamp
    for cells, passes in ((SOLUTION_CELLS, True), (STUDENT_CELLS, False)):
        namespace: dict = {"__name__": "__notebook__", "MODEL": "ALL_MINILM_L6_V2", "oamp": oamp}
        exec(compile(cells["p08-todo3"], "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's own cell
        if passes:
            part08.check_make_hybrid_memory(oracle_conn, namespace["make_hybrid_memory"])
        else:
            with pytest.raises(CheckpointFailed):
                part08.check_make_hybrid_memory(oracle_conn, namespace["make_hybrid_memory"])
