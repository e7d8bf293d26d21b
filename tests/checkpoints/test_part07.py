"""Part 07's checkpoints, driven by the notebook's own cells.

For every TODO: the solution passes, another correct answer passes, the untouched student stub fails with a
friendly CheckpointFailed, and each plausible wrong answer (the table WRONG, by kind) fails with a reason that
names the mistake. Cells run in one namespace per test, in this process, on a private copy of a set-up
database (the FINANCE tables); the set-up cell creates the run tables and opens the read-only session.

Accepted on purpose: a toolset check that returns a set or a frozenset (the harness only iterates it); a guard
that returns the parsed tree instead of None; a verifier that returns the count 0/1 instead of a bool.
"""
from __future__ import annotations

import oracledb
import pytest

from checkpoints.framework import CheckpointFailed
from checkpoints.framework.render import in_ipython
from tests.checkpoints.shared import KINDS, Wrong, apply_edit, copy_db, kinds_covered, wrong_params
from workshop.config import PROJECT_ROOT
from workshop.notebooks import read_notebook

SOLUTION = PROJECT_ROOT / "solutions" / "07_agent_harness.ipynb"
STUDENT = PROJECT_ROOT / "notebooks" / "07_agent_harness.ipynb"
#: TODO name -> (number, its cell, its checkpoint cell)
TODOS = {
    "tool_allowlist": (1, "p07-todo1", "p07-check1"),
    "sql_guard": (2, "p07-todo2", "p07-check2"),
    "governed_report": (3, "p07-todo3", "p07-check3"),
    "verifier": (4, "p07-todo4", "p07-check4"),
}


def _cells(path) -> dict[str, str]:
    return {cell.id: cell.source for cell in read_notebook(path).cells if cell.cell_type == "code"}


SOLUTION_CELLS = _cells(SOLUTION)
STUDENT_CELLS = _cells(STUDENT)


@pytest.fixture
def notebook(built_db, tmp_path, monkeypatch):
    path = copy_db(built_db, tmp_path / "workshop.db")
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    monkeypatch.chdir(PROJECT_ROOT / "solutions")
    namespace: dict = {"__name__": "__notebook__"}

    def run(*sources: str) -> dict:
        for source in sources:
            exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's own cells
        return namespace

    run(SOLUTION_CELLS["p07-path"], SOLUTION_CELLS["p07-setup"])
    yield run
    for name in ("ro", "conn"):
        conn = namespace.get(name)
        if conn is not None and conn.is_healthy():
            conn.rollback()
            conn.close()


def run_todo(notebook, todo: str, source: str) -> None:
    _, cell, checkpoint_cell = TODOS[todo]
    notebook(source, SOLUTION_CELLS[checkpoint_cell])


def test_the_notebooks_pair_each_todo_with_its_checkpoint():
    student = read_notebook(STUDENT)
    tagged = {cell.id: cell.metadata.get("workshop", {}).get("todo") for cell in student.cells}
    for name, (number, cell, checkpoint_cell) in TODOS.items():
        assert tagged[cell] == number and tagged[checkpoint_cell] == number
        assert f"part07.check_{name}(" in SOLUTION_CELLS[checkpoint_cell]
        assert STUDENT_CELLS[cell] != SOLUTION_CELLS[cell]


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_solution_passes(notebook, todo, capsys):
    run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][1]])
    assert f"✅ TODO {TODOS[todo][0]}:" in capsys.readouterr().out


OTHER_CORRECT_ANSWERS = [
    ("tool_allowlist", "symmetric difference", (
        ("""    extra, missing = sorted(found - wanted), sorted(wanted - found)
    if extra or missing:""", """    if found ^ wanted:
        extra, missing = sorted(found - wanted), sorted(wanted - found)"""),)),
    ("sql_guard", "the library guard", (
        ("""    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]""",
         """    from workshop.harness.guard import guard_select as library_guard
    return library_guard(sql, allowed)
    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]"""),)),
    ("governed_report", "positional bind and fetchone loop", (
        ("WHERE rate_bp > :rate_bp", "WHERE :rate_bp < rate_bp"),
        ("ORDER BY rate_bp DESC, loan_id\"\"\", rate_bp=rate_bp)", "ORDER BY 4 DESC, 1\"\"\", [rate_bp])"),)),
    ("verifier", "EXISTS and fetchone", (
        ('"SELECT COUNT(*) FROM agent_findings WHERE run_id = :run_id AND case_ref = :case_ref"',
         '"SELECT 1 FROM dual WHERE EXISTS (SELECT 1 FROM agent_findings WHERE case_ref = :case_ref AND run_id = :run_id)"'),
        ("return cur.fetchone()[0] == 1", "return cur.fetchone() is not None"))),
]


@pytest.mark.parametrize("todo, name, edit", OTHER_CORRECT_ANSWERS,
                         ids=[f"{t}-{n.replace(' ', '-')}" for t, n, _ in OTHER_CORRECT_ANSWERS])
def test_another_correct_answer_passes(notebook, todo, name, edit, capsys):
    run_todo(notebook, todo, apply_edit(SOLUTION_CELLS[TODOS[todo][1]], edit))
    assert f"✅ TODO {TODOS[todo][0]}:" in capsys.readouterr().out


@pytest.mark.parametrize("todo", sorted(TODOS))
def test_the_untouched_stub_fails_with_a_friendly_message(notebook, todo, capsys):
    number = TODOS[todo][0]
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, todo, STUDENT_CELLS[TODOS[todo][1]])
    failure = excinfo.value
    assert type(failure) is CheckpointFailed
    assert str(failure).startswith(f"TODO {number}:") and f"NotImplementedError (TODO {number}:" in failure.reason
    # printed once outside IPython; inside it (a shell made by an earlier test) IPython renders the raise itself
    assert (f"❌ TODO {number}:" in capsys.readouterr().out) is not in_ipython()


_GUARD_LOCKS = ("""        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise GuardRefused("FOR UPDATE takes row locks")
""", "")
WRONG = [
    # TODO 1: the allowlist
    Wrong("tool_allowlist", "clause", "extra-tools-allowed", "accepted an extra tool",
          edit=(("if extra or missing:", "if missing:"),)),
    Wrong("tool_allowlist", "clause", "missing-tools-allowed", "accepted a missing tool",
          edit=(("if extra or missing:", "if extra:"),)),
    Wrong("tool_allowlist", "method", "order-sensitive-lists", "refused the same tools in another order",
          edit=(("if extra or missing:", "if extra or missing or list(available) != list(allowed):"),)),
    Wrong("tool_allowlist", "next-cell", "returns-nothing", "the next cell starts the harness",
          edit=(("return frozenset(wanted)", "return None"),)),
    Wrong("tool_allowlist", "probe", "empty-toolset-accepted", "accepted no tools at all",
          edit=(("if extra or missing:", "if found and (extra or missing):"),)),
    # TODO 2: the SQL guard
    Wrong("sql_guard", "method", "startswith-select", "let stacked statements through",
          edit=(("""    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]""",
                 """    if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
        raise GuardRefused("not a query")
    return
    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]"""),)),
    Wrong("sql_guard", "clause", "no-for-update", "let FOR UPDATE through", edit=(_GUARD_LOCKS,)),
    Wrong("sql_guard", "clause", "no-allowlist", "let a table not on the allowlist through",
          edit=(("if table.db or table.name.upper() not in permitted:", "if table.db:"),)),
    Wrong("sql_guard", "probe", "first-statement-only", "let stacked statements through",
          edit=(('if len(statements) != 1 or sql.strip().endswith(";"):', "if not statements:"),)),
    Wrong("sql_guard", "probe", "root-only-write-check", "let WITH ... DELETE through",
          edit=(("""        if isinstance(node, WRITE_NODES):
            raise GuardRefused(f"{node.key.upper()} inside a query")
""", ""),)),
    Wrong("sql_guard", "probe", "no-package-check", "let a DBMS_ call through",
          edit=(("""    if package_names(sql):
        raise GuardRefused(f"calls of {package_names(sql)[0]} are not allowed")
""", ""),)),
    Wrong("sql_guard", "next-cell", "cte-names-refused", "refused a WITH over its own CTE",
          edit=((' | {c.alias_or_name.upper() for c in tree.find_all(exp.CTE)}', ""),)),
    Wrong("sql_guard", "next-cell", "dual-refused", "refused SELECT 1 FROM dual",
          edit=((' | {"DUAL"}', ""),)),
    # TODO 3: the governed report
    Wrong("governed_report", "method", "formatted-sql", "into the SQL text",
          edit=(('cur.execute(\"\"\"SELECT', 'cur.execute(f\"\"\"SELECT'),
                ("WHERE rate_bp > :rate_bp", "WHERE rate_bp > {rate_bp}"),
                ("ORDER BY rate_bp DESC, loan_id\"\"\", rate_bp=rate_bp)", "ORDER BY rate_bp DESC, loan_id\"\"\")"))),
    Wrong("governed_report", "clause", "no-validation", "was accepted",
          edit=(("    if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:",
                 "    if rate_bp is None:"),)),
    Wrong("governed_report", "probe", "bool-accepted", "loans_above_rate(True) was accepted",
          edit=(("not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or", "not isinstance(rate_bp, int) or"),)),
    Wrong("governed_report", "probe", "at-or-above", "are not *above* it",
          edit=(("WHERE rate_bp > :rate_bp", "WHERE rate_bp >= :rate_bp"),)),
    Wrong("governed_report", "probe", "no-tie-break", "does not end with loan_id",
          edit=(("ORDER BY rate_bp DESC, loan_id", "ORDER BY rate_bp DESC"),)),
    Wrong("governed_report", "method", "python-filtering", "filter in the SQL, not in Python",
          edit=(("WHERE rate_bp > :rate_bp", "WHERE :rate_bp >= 0"),
                ("return [dict(zip(names, row)) for row in cur.fetchall()]",
                 "return [dict(zip(names, row)) for row in cur.fetchall() if row[3] > rate_bp]"))),
    Wrong("governed_report", "next-cell", "tuples-returned", "expected a list of dicts",
          edit=(("return [dict(zip(names, row)) for row in cur.fetchall()]", "return cur.fetchall()"),)),
    # TODO 4: the verifier
    Wrong("verifier", "method", "trusts-the-claim", "returned True for a finding another run saved",
          edit=(("    with conn.cursor() as cur:\n        cur.execute(\"SELECT COUNT(*)",
                 "    return True\n    with conn.cursor() as cur:\n        cur.execute(\"SELECT COUNT(*)"),)),
    Wrong("verifier", "clause", "case-only", "a finding another run saved",
          edit=(("WHERE run_id = :run_id AND case_ref = :case_ref\",\n                    run_id=run_id, case_ref=case_ref)",
                 "WHERE case_ref = :case_ref\",\n                    case_ref=case_ref)"),)),
    Wrong("verifier", "clause", "run-only", "a finding another run saved",
          edit=(("WHERE run_id = :run_id AND case_ref = :case_ref\",\n                    run_id=run_id, case_ref=case_ref)",
                 "WHERE run_id = :run_id\",\n                    run_id=run_id)"),)),
    Wrong("verifier", "method", "formatted-sql", "into the SQL text",
          edit=(('cur.execute("SELECT COUNT(*) FROM agent_findings WHERE run_id = :run_id AND case_ref = :case_ref",\n                    run_id=run_id, case_ref=case_ref)',
                 'cur.execute(f"SELECT COUNT(*) FROM agent_findings WHERE run_id = \'{run_id}\' AND case_ref = \'{case_ref}\'")'),)),
    Wrong("verifier", "probe", "any-row", "returned True for a finding another run saved",
          edit=(("return cur.fetchone()[0] == 1", "return cur.fetchone() is not None"),)),
]


@pytest.mark.parametrize("wrong", [p for todo in TODOS for p in wrong_params(WRONG, todo)])
def test_a_plausible_wrong_answer_fails(notebook, wrong):
    number = TODOS[wrong.todo][0]
    with pytest.raises(CheckpointFailed) as excinfo:
        run_todo(notebook, wrong.todo, apply_edit(SOLUTION_CELLS[TODOS[wrong.todo][1]], wrong.edit))
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure
    assert wrong.reason in failure.reason and str(failure).startswith(f"TODO {number}:"), failure.reason


def test_every_todo_has_a_wrong_answer_of_each_kind():
    covered = kinds_covered(WRONG)
    for todo in TODOS:
        missing = {"clause", "method", "probe", "next-cell"} - covered.get(todo, set())
        # the verifier returns a bool that nothing downstream reshapes: its next-cell case is the harness demo
        assert missing <= ({"next-cell"} if todo == "verifier" else set()), (todo, missing, KINDS)


def test_the_guard_checkpoint_fuzz_list_is_refused_by_the_library_guard():
    from checkpoints import part07
    from workshop.harness.guard import GuardRefused, guard_select
    for _, sql in part07.HOSTILE:
        with pytest.raises(GuardRefused):
            guard_select(sql, part07.ALLOWED_TABLES)
    for _, sql in part07.ACCEPTED:
        guard_select(sql, part07.ALLOWED_TABLES)


def test_checkpoints_leave_the_tables_as_found(notebook):
    ns = notebook()
    conn = ns["conn"]
    for todo in TODOS:
        run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][1]])
    assert not conn.transaction_in_progress          # the verifier's probe transaction ended with it
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_findings")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*), SUM(rate_bp) FROM finance_loans")
        assert cur.fetchone()[0] > 0
