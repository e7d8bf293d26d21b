"""Part 05's checkpoints, driven by the notebook's own cells.

For every TODO: the solution passes, another correct answer passes, the untouched student stub fails
with a friendly CheckpointFailed, and each plausible wrong answer (the table WRONG_ANSWERS) fails with
a reason that names the mistake. Cells run in one namespace per test, in this process, on a private
copy of a set-up database that already holds the knowledge-base tables and the context package.
"""
from __future__ import annotations

import pytest

from tests.checkpoints.shared import (NotebookCells, Todo, expect_passed, expect_reasoned_failure,
                                      expect_stub_failure, notebook_namespace)
from tests.pipeline.kb_db import kb_db, kb_template  # noqa: F401
from workshop.config import PROJECT_ROOT

PART = NotebookCells("05_hybrid_pipeline.ipynb", {
    1: Todo(1, "p05-todo1", "p05-check1"),
    2: Todo(2, "p05-todo2", "p05-check2"),
    3: Todo(3, "p05-todo3", "p05-check3", ("p05-todo2", "protect_tenant_tables(conn)")),
    4: Todo(4, "p05-todo4", "p05-check4"),
})
TODOS = PART.todos
NAMES = {1: "understand_query", 2: "protect_tenant_tables", 3: "search_knowledge_base", 4: "budget_context"}
SOLUTION_CELLS, STUDENT_CELLS = PART.solution, PART.student
#: The notebook's set-up cell, minus its reset (the template database already holds what the reset would rebuild).
SETUP = SOLUTION_CELLS["p05-setup"].replace("reset_part(5, conn)", "pass")
assert SETUP != SOLUTION_CELLS["p05-setup"]
variant, run_todo = PART.variant, PART.run_todo   # run_todo(notebook, todo, source)


@pytest.fixture
def notebook(kb_db, monkeypatch):
    monkeypatch.chdir(PROJECT_ROOT / "solutions")
    with notebook_namespace(SOLUTION_CELLS["p05-path"], SETUP) as run:
        yield run


def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    PART.expect_paired("part05", NAMES)


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_solution_passes(notebook, todo, capsys):
    run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo].cell])
    expect_passed(capsys, todo)


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_a_todo_and_its_checkpoint_run_twice_still_pass(notebook, todo, capsys):
    """A learner re-runs the TODO cell and its checkpoint: the second run passes too (each checkpoint rolls back
    and drops its probes; the engine's own rollback case is tests/engine/test_rls.py)."""
    for _ in range(2):
        run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo].cell])
        expect_passed(capsys, todo)


OTHER_CORRECT_ANSWERS = [
    (1, "hand-escaped braces", [('escape_braces(term)', '"{" + term.replace("}", "}}") + "}"')]),
    (2, "ORA-28101 caught instead of looked up",
     [("""            if table not in protected:
                cur.execute(security.ADD_POLICY_SQL, table_name=table)""",
       """            try:
                cur.execute(security.ADD_POLICY_SQL, table_name=table)
            except oracledb.DatabaseError as error:
                if "ORA-28101" not in str(error):
                    raise""")]),
    (3, "NVL and a literal 60", [("COALESCE(1 / (:rrf_k + v.vec_rank), 0) + COALESCE(1 / (:rrf_k + l.lex_rank), 0)",
                                  "NVL(1 / (60 + v.vec_rank), 0) + NVL(1 / (60 + l.lex_rank), 0)"),
                                 ("rrf_k=60,", "")]),
    (4, "a ratio cliff", [('rows[i - 1]["rerank_score"] - rows[i]["rerank_score"] > 0.25',
                           'rows[i]["rerank_score"] < 0.5 * rows[i - 1]["rerank_score"]')]),
    # adversarial review (adv0405)
    # stopwords in braces are dropped by the lexer (Oracle Text's default stoplist), so braced question words match
    # the same chunks as keyword_terms's content words: accepted on purpose
    (1, "content words from keyword_terms, then the entities and expansions",
     [("terms = list(dict.fromkeys(entities + expansions + content_terms(question)))",
       "terms = list(dict.fromkeys(entities + expansions))"),
      ('lex_query = " ACCUM ".join(escape_braces(term) for term in terms)',
       'lex_query = " ACCUM ".join([escape_braces(term) for term in terms] + [keyword_terms(question, "accum")])')]),
    (1, "terms de-duplicated by hand, braces built inline",
     [("terms = list(dict.fromkeys(entities + expansions + content_terms(question)))",
       "terms = entities + [e for e in expansions + content_terms(question) if e not in entities]"),
      ('" ACCUM ".join(escape_braces(term) for term in terms)',
       '"{" + "} ACCUM {".join(t.replace("}", "}}") for t in terms) + "}"')]),
    (2, "tables still unprotected, from one query",
     [("""        cur.execute("SELECT object_name FROM user_policies WHERE policy_name = 'TENANT_ISOLATION' ORDER BY object_name")
        protected = {row[0] for row in cur.fetchall()}""",
       """        cur.execute("SELECT table_name FROM user_tab_columns WHERE column_name = 'TENANT_ID' AND table_name NOT IN "
                    "(SELECT object_name FROM user_policies WHERE policy_name = 'TENANT_ISOLATION')")
        protected = set(tables) - {row[0] for row in cur.fetchall()}""")]),
    (3, "pools fused with UNION ALL and GROUP BY",
     [("""      SELECT COALESCE(v.id, l.id) AS id, v.vec_rank, l.lex_rank,
             COALESCE(1 / (:rrf_k + v.vec_rank), 0) + COALESCE(1 / (:rrf_k + l.lex_rank), 0) AS rrf_score
        FROM vec_pool v FULL OUTER JOIN lex_pool l ON l.id = v.id),""",
       """      SELECT id, MAX(vec_rank) AS vec_rank, MAX(lex_rank) AS lex_rank, SUM(1 / (:rrf_k + r)) AS rrf_score
        FROM (SELECT id, vec_rank, NULL AS lex_rank, vec_rank AS r FROM vec_pool
              UNION ALL SELECT id, NULL, lex_rank, lex_rank FROM lex_pool)
       GROUP BY id),""")]),
    (4, "visit order from a sort key", [("visit = sorted(best.values()) + [i for i in visit if i not in best.values()]",
                                         "firsts = set(best.values())\n        visit = sorted(visit, key=lambda i: (i not in firsts, i))")]),
    (1, "terms joined with OR (the ranking differs, the expression holds the same terms)",
     [('" ACCUM ".join(escape_braces(term) for term in terms)', '" OR ".join(escape_braces(term) for term in terms)')]),
    (1, "terms grouped in parentheses", [('" ACCUM ".join(escape_braces(term) for term in terms)',
                                          '"(" + " ACCUM ".join(escape_braces(term) for term in terms) + ")"')]),
    (3, "the tenant read from the session context", [
        ("AND (d.user_id IS NULL OR d.user_id = :user_id)",
         "AND (d.user_id IS NULL OR d.user_id = :user_id) AND d.tenant_id = SYS_CONTEXT('kb_ctx', 'tenant_id')")]),
]


@pytest.mark.parametrize("todo, name, replacements", OTHER_CORRECT_ANSWERS,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _ in OTHER_CORRECT_ANSWERS])
def test_another_correct_answer_passes(notebook, todo, name, replacements, capsys):
    run_todo(notebook, todo, variant(todo, *replacements))
    expect_passed(capsys, todo)


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_untouched_stub_fails_with_a_friendly_message(notebook, todo, capsys):
    expect_stub_failure(lambda: run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo].cell]), todo, capsys)


WRONG_ANSWERS = [
    # TODO 1: the plan
    (1, "unbraced terms", [('" ACCUM ".join(escape_braces(term) for term in terms)', '" ACCUM ".join(terms)')],
     "has text outside braces"),
    (1, "content words only as a fallback (issue 22)",
     [("terms = list(dict.fromkeys(entities + expansions + content_terms(question)))",
       "terms = list(dict.fromkeys(entities + expansions)) or content_terms(question)")],
     "leaves out the question's own words"),
    (1, "braces not escaped", [("escape_braces(term)", '"{" + term + "}"')], "inside a term must be doubled"),
    (1, "no diversity for comparisons", [('"document_id" if intent == "comparison" else None', "None")],
     "diversify_by is None for a comparison"),
    # TODO 2: the policy loop
    (2, "the %_MEMORY loop", [("WHERE column_name = 'TENANT_ID' ORDER BY",
                               "WHERE column_name = 'TENANT_ID' AND table_name LIKE '%_MEMORY' ORDER BY")],
     "KNOWLEDGE_BASE_CHUNK has tenant_id but no policy (your loop matched only %_MEMORY?)"),
    (2, "not rerunnable", [("            if table not in protected:\n                cur.execute",
                            "            if True:\n                cur.execute")], "a second time raised ORA-28101"),
    (2, "no update_check", [("cur.execute(security.ADD_POLICY_SQL,",
                             "cur.execute(security.ADD_POLICY_SQL.replace('update_check    => TRUE', "
                             "'update_check    => FALSE'),")], "the policy has no update_check"),
    # TODO 3: the statement
    (3, "ROW_NUMBER in the lexical pool", [("DENSE_RANK() OVER (ORDER BY SCORE(1) DESC)",
                                            "ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, c.id)")], "ROW_NUMBER"),
    (3, "an INNER JOIN", [("FROM vec_pool v FULL OUTER JOIN lex_pool l", "FROM vec_pool v JOIN lex_pool l")],
     "an INNER JOIN keeps only chunks both pools found"),
    (3, "rerank on the bare content", [("d.title || '. ' || c.content AS second_input", "c.content AS second_input")],
     "reranked on its bare content"),
    (3, "filters in the vector pool only", [("WHERE CONTAINS(c.content, :lex_query, 1) > 0 AND {scope}",
                                             "WHERE CONTAINS(c.content, :lex_query, 1) > 0")],
     "are the stage-2 filters in both pools?"),
    (3, "user_id without the NULL case", [("(d.user_id IS NULL OR d.user_id = :user_id)", "d.user_id = :user_id")],
     "`user_id = :user_id` alone hides them"),
    (3, "the user formatted into the SQL", [("d.user_id = :user_id)", "d.user_id = '{user_id}')"),
                                            ("user_id=user_id, ", "")],
     "writes user_id='jane' into the SQL text"),
    (3, "the question formatted into the SQL", [("USING :query AS data", "USING '{plan['question']}' AS data")],
     "into the SQL text instead of binding"),
    (3, "a hard-coded 40", [("FETCH FIRST :top_k ROWS ONLY)", "FETCH FIRST 40 ROWS ONLY)"),
                            ("\n                 top_k=top_k)", ")")], "writes top_k=40 into the SQL text"),
    (3, "fusion in Python", [("""    with conn.cursor() as cur:
        cur.execute(sql, binds)
        return fetch_dicts(cur)""", """    from workshop.pipeline.search import polyglot_search
    return polyglot_search(conn, plan, user_id=user_id, top_k=top_k)[0]""")], "expected one statement"),
    # TODO 4: budgeting
    (4, "plain truncation", [("    if diversify_by:\n", "    if False:\n")], "plain truncation ignores diversity"),
    (4, "duplicates kept", [(">= 0.8", ">= 1.1")], "two near-identical chunks were both kept"),
    (4, "over budget by a partial chunk", [("elif used + tokens > max_tokens:", "elif used >= max_tokens:")],
     "over the budget"),
    (4, "no cliff", [("> 0.25:", "> 99:")], "below a score cliff"),
    (4, "diversity order returned", [("for i in sorted(kept)]", "for i in kept]")], "not in rerank order"),
    # adversarial review (adv0405)
    # TODO 1
    (1, "a fixed token budget", [("TOKEN_BUDGETS[intent]", 'TOKEN_BUDGETS["lookup"]')], "token_budget is 600 for a comparison"),
    (1, "collections left out", [("choose_collections(question)", '["runbooks"]')], "(choose_collections(question))"),
    (1, "terms joined with AND", [('" ACCUM ".join(escape_braces(term) for term in terms)',
                                   '" AND ".join(escape_braces(term) for term in terms)')], "joins its terms with AND"),
    (1, "the question left out of the plan", [('{"question": question, "entities"', '{"entities"')], "missing the key(s) ['question']"),
    # TODO 2
    (2, "a hard-coded list of tables",
     [("""        cur.execute("SELECT table_name FROM user_tab_columns WHERE column_name = 'TENANT_ID' ORDER BY table_name")
        tables = [row[0] for row in cur.fetchall()]""",
       """        tables = ["KNOWLEDGE_BASE_CHUNK", "KNOWLEDGE_BASE_DOCUMENT"]""")], "a fixed list of table names"),
    (2, "the table name formatted into the PL/SQL",
     [("cur.execute(security.ADD_POLICY_SQL, table_name=table)",
       "cur.execute(security.ADD_POLICY_SQL.replace(':table_name', f\"'{table}'\"))")],
     "into the SQL text instead of binding"),
    (2, "nothing returned", [("    return tables\n", "")], "returned None"),
    (2, "SELECT statements only",
     [("cur.execute(security.ADD_POLICY_SQL,",
       "cur.execute(security.ADD_POLICY_SQL.replace(\"'SELECT,INSERT,UPDATE,DELETE'\", \"'SELECT'\"),")],
     "inserted a globex document"),
    # TODO 3
    (3, "the ranks left out of the result", [("           k.vec_rank, k.lex_rank, k.rrf_score,", "           k.rrf_score,")],
     "missing the key(s) ['vec_rank', 'lex_rank']"),
    (3, "top_k formatted into the SQL", [("FETCH FIRST :top_k ROWS ONLY)", "FETCH FIRST {top_k} ROWS ONLY)"),
                                         ("\n                 top_k=top_k)", ")")], "top_k=40 into the SQL text"),
    (3, "collections formatted into the SQL",
     [("collection_list, binds = collection_binds(plan[\"collections\"])",
       "binds = {}\n    collection_list = ', '.join(\"'\" + c + \"'\" for c in plan[\"collections\"])")],
     "into the SQL text instead of binding"),
    (3, "no COALESCE around the reciprocal ranks",
     [("COALESCE(1 / (:rrf_k + v.vec_rank), 0) + COALESCE(1 / (:rrf_k + l.lex_rank), 0)",
       "1 / (:rrf_k + v.vec_rank) + 1 / (:rrf_k + l.lex_rank)")], "rrf_score is NULL"),
    (3, "user_id OR without parentheses",
     [("AND (d.user_id IS NULL OR d.user_id = :user_id)", "AND d.user_id IS NULL OR d.user_id = :user_id")],
     "bibliography chunk"),
    (3, "an unlimited lexical pool", [("ORDER BY SCORE(1) DESC, c.id FETCH FIRST :pool_size ROWS ONLY)",
                                       "ORDER BY SCORE(1) DESC, c.id)")], "the lexical pool has no row limit"),
    # TODO 4
    (4, "the cliff measured from the top score",
     [('rows[i - 1]["rerank_score"] - rows[i]["rerank_score"] > 0.25', 'rows[0]["rerank_score"] - rows[i]["rerank_score"] > 0.25')],
     "no drop between neighbours is a cliff"),
    (4, "stops at the first row that does not fit",
     [("""            dropped.append((row["id"], "over budget"))""",
       """            dropped.append((row["id"], "over budget"))
            break""")], "the walk goes on"),
    (4, "one row per source only", [("visit = sorted(best.values()) + [i for i in visit if i not in best.values()]",
                                     "visit = sorted(best.values())")], "with budget left for A2"),
    (4, "a report without kept and tokens",
     [('return working_set, {"kept": [row["id"] for row in working_set], "dropped": dropped, "tokens": used}',
       'return working_set, {"dropped": dropped}')], "missing the key(s) ['kept', 'tokens']"),
    (4, "rows without their token counts",
     [("working_set = [dict(eligible[i], tokens=estimate_tokens(eligible[i][\"content\"])) for i in sorted(kept)]",
       "working_set = [eligible[i] for i in sorted(kept)]")], "carry no (or a wrong) 'tokens' count"),
    # adversarial review (adv0405), second round
    (1, "one of the expansions only", [("terms = list(dict.fromkeys(entities + expansions + content_terms(question)))",
                                        "terms = list(dict.fromkeys(entities + expansions[:1]))")],
     "of the plan's entities and expansions"),
    (3, "rerank on the lexical expression", [("PREDICTION({RERANKER} USING :query AS first_input",
                                              "PREDICTION({RERANKER} USING :lex_query AS first_input")], "rerank_score of"),
    (3, "filters in the lexical pool only", [("       WHERE {scope}\n", "\n")], "are the stage-2 filters in both pools?"),
    # issue 21: mistakes nobody listed, by class
    (3, "the tenant typed into the SQL", [("AND (d.user_id IS NULL OR d.user_id = :user_id)",
                                           "AND (d.user_id IS NULL OR d.user_id = :user_id) AND d.tenant_id = 'acme'")],
     "is a tenant written into the statement?"),
    (3, "the tenant bound from a constant", [("AND (d.user_id IS NULL OR d.user_id = :user_id)",
                                              "AND (d.user_id IS NULL OR d.user_id = :user_id) AND c.tenant_id = :tenant"),
                                             ("user_id=user_id, pool_size=50", "user_id=user_id, tenant='acme', pool_size=50")],
     "is a tenant written into the statement?"),
    (1, "one token budget for every intent", [("TOKEN_BUDGETS[intent]", "1200")], "it is not one number for all"),
    (1, "the intent fixed", [("intent = classify_intent(question)", 'intent = "comparison"')],
     "for a lookup"),
    (1, "the running question's budget for every question", [("TOKEN_BUDGETS[intent]", 'TOKEN_BUDGETS["comparison"]')],
     "it is not one number for all"),
    (4, "an empty list of rows breaks", [("    dropped = []\n", "    dropped = []\n    rows[0]\n")],
     "an empty list of rows"),
    (4, "tokens counted as words", [('row, tokens = eligible[i], estimate_tokens(eligible[i]["content"])',
                                     'row, tokens = eligible[i], len(eligible[i]["content"].split())')], "over the budget"),
]


@pytest.mark.parametrize("todo, name, replacements, reason", WRONG_ANSWERS,
                         ids=[f"todo{t}-{n.replace(' ', '-')}" for t, n, _, _ in WRONG_ANSWERS])
def test_a_plausible_wrong_answer_fails(notebook, todo, name, replacements, reason):
    expect_reasoned_failure(lambda: run_todo(notebook, todo, variant(todo, *replacements)), todo, reason)


def test_checkpoints_leave_the_session_and_the_tables_as_found(notebook):
    ns = notebook()
    conn = ns["conn"]
    from workshop.pipeline import security
    security.set_tenant(conn, "initech")
    for todo in sorted(TODOS):
        run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo].cell])
    assert security.current_tenant(conn) == "initech"
    assert not conn.transaction_in_progress
    security.set_tenant(conn, "acme")
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM knowledge_base_document WHERE id LIKE 'CHK-%'")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name LIKE 'CKPT\\_%' ESCAPE '\\'")
        assert cur.fetchone() == (0,)                     # TODO 2's probe table is dropped again
        cur.execute("SELECT COUNT(*) FROM user_policies WHERE object_name LIKE 'CKPT\\_%' ESCAPE '\\'")
        assert cur.fetchone() == (0,)


def test_todo_3_with_todo_2_skipped_points_at_todo_2(notebook):
    """A learner who skipped the policies gets told to finish TODO 2, not that their search leaks tenants."""
    notebook(SOLUTION_CELLS[TODOS[3].cell])
    failure = expect_reasoned_failure(lambda: notebook(SOLUTION_CELLS[TODOS[3].check]), 3, "has no tenant policy yet")
    assert "TODO 2" in " ".join(failure.hint if isinstance(failure.hint, list) else [str(failure.hint)])
