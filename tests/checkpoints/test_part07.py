"""Part 07's checkpoints, driven by the notebook's own cells.

For every TODO: the solution passes, another correct answer passes, the untouched student stub fails with a
friendly CheckpointFailed, and each plausible wrong answer (the table WRONG, by kind) fails with a reason that
names the mistake. Cells run in one namespace per test, in this process, on a private copy of a set-up
database (the FINANCE tables); the set-up cell creates the run tables and opens the read-only session.

Accepted on purpose: a toolset check that returns a set or a frozenset (the harness only iterates it); a guard
that returns the parsed tree instead of None; a verifier that returns the count 0/1 instead of a bool; a budget
built on Budget's own charge_call/admit_text; a redact that turns tuples into lists (JSON has no tuples); a
tenant tool with a typed `limit` parameter that refuses a forged tenant argument with TypeError.
"""
from __future__ import annotations

import oracledb
import pytest

from checkpoints.framework import CheckpointFailed
from checkpoints.framework.render import in_ipython
from tests.checkpoints.shared import KINDS, Wrong, apply_edit, copy_db, kinds_covered, wrong_params, student_path
from workshop.config import PROJECT_ROOT
from workshop.notebooks import read_notebook

SOLUTION = PROJECT_ROOT / "solutions" / "07_agent_harness.ipynb"
STUDENT = student_path("07_agent_harness.ipynb")
#: TODO name -> (number, its cell, its checkpoint cell)
TODOS = {
    "tool_allowlist": (1, "p07-todo1", "p07-check1"),
    "sql_guard": (2, "p07-todo2", "p07-check2"),
    "governed_report": (3, "p07-todo3", "p07-check3"),
    "budget": (4, "p07-todo-budget", "p07-check-budget"),
    "verifier": (5, "p07-todo4", "p07-check4"),
    "run_record": (6, "p07-todo-record", "p07-check-record"),
    "identity": (7, "p07-todo-identity", "p07-check-identity"),
    "approval": (8, "p07-todo-approval", "p07-check-approval"),
}
#: Cells a TODO's checkpoint needs run first (the identity check reads AGENT_CASES and its policy).
BEFORE = {"identity": ("p07-identity-setup",), "approval": ("p07-approval-setup",)}


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
    for copy in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        copy.unlink(missing_ok=True)                # a copy per test: several GB over the module otherwise


def run_todo(notebook, todo: str, source: str) -> None:
    _, cell, checkpoint_cell = TODOS[todo]
    notebook(*(SOLUTION_CELLS[c] for c in BEFORE.get(todo, ())), source, SOLUTION_CELLS[checkpoint_cell])


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
    ("budget", "the Budget's own methods", (
        ("""    if budget.tool_calls >= budget.max_tool_calls:
        raise BudgetExhausted("tool_calls", f"tool-call cap of {budget.max_tool_calls} reached")
    budget.tool_calls += 1
    output = tool(**arguments)
    cost = estimate_tokens(str(output))
    if budget.tokens + cost > budget.max_tokens:
        raise BudgetExhausted("tokens", f"token budget of {budget.max_tokens} would be exceeded by {cost} more")
    budget.tokens += cost
    return output""", """    budget.charge_call()
    output = tool(**arguments)
    return budget.admit_text(str(output)) and output"""),)),
    ("budget", "remaining counts", (
        ("if budget.tool_calls >= budget.max_tool_calls:", "if budget.max_tool_calls - budget.tool_calls <= 0:"),
        ("if budget.tokens + cost > budget.max_tokens:", "if cost > budget.max_tokens - budget.tokens:"))),
    ("run_record", "map and reduce", (
        ("return [redact(v) for v in value]", "return list(map(redact, value))"),
        ("""        for pattern in SECRET_VALUES:
            value = pattern.sub(REDACTED, value)
        return value""", """        import functools
        return functools.reduce(lambda text, pattern: pattern.sub(REDACTED, text), SECRET_VALUES, value)"""))),
    ("identity", "a typed tool that rebinds only when needed", (
        ("""    def open_cases(**arguments: Any) -> list[dict]:
        security.set_tenant(conn, tenant)
        return OPEN_CASES.run(conn, **arguments)""", """    def open_cases(limit: int) -> list[dict]:
        if security.current_tenant(conn) != tenant:
            security.set_tenant(conn, tenant)
        return OPEN_CASES.run(conn, limit=limit)"""),)),
    ("approval", "positional binds and a truthy count", (
        ('''                       WHERE approval_id = :approval_id AND status = 'approved' AND run_id = :run_id
                         AND tool = :tool AND args_digest = :digest AND actor = :actor
                         AND expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP)""",
                    approval_id=approval_id, run_id=run_id, tool=tool, digest=digest(tool, arguments), actor=actor)
        consumed = cur.rowcount == 1''', '''                       WHERE expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP) AND approval_id = :1 AND actor = :2 AND run_id = :3
                         AND tool = :4 AND args_digest = :5 AND status = 'approved'""",
                    [approval_id, actor, run_id, tool, digest(tool, arguments)])
        consumed = cur.rowcount'''),)),
    # adversarial review (parts 06-08)
    ("tool_allowlist", "set inequality", (("if extra or missing:", "if set(available) != set(allowed):"),)),
    ("sql_guard", "the entry's own index", (
        ("earlier = node.expressions[:[id(e) for e in node.expressions].index(id(child))]",
         "earlier = node.expressions[:child.index]"),)),
    ("sql_guard", "visible names collected on the way up", (
        ("""        name, child, node = object_name(table), table, table.parent
        while node is not None:
            if isinstance(node, exp.With):          # inside entry k of a WITH: only entries 0..k-1 are visible
                earlier = node.expressions[:[id(e) for e in node.expressions].index(id(child))]
                if any(cte_name(cte) == name for cte in earlier):
                    return True
            elif isinstance(node, exp.Query) and not isinstance(child, exp.With):
                if any(cte_name(cte) == name for cte in node.ctes):    # its body sees all its WITH entries
                    return True
            child, node = node, node.parent
        return False""", """        visible, child, node = set(), table, table.parent
        while node is not None:
            if isinstance(node, exp.With):
                visible |= {cte_name(c) for c in node.expressions if c.index < child.index}
            elif isinstance(node, exp.Query) and not isinstance(child, exp.With):
                visible |= {cte_name(c) for c in node.ctes}
            child, node = node, node.parent
        return object_name(table) in visible"""),)),
    ("governed_report", "an exact type test", (
        ("if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:",
         "if type(rate_bp) is not int or rate_bp < 0 or rate_bp > 10000:"),)),
    ("budget", "the call that would pass the cap", (
        ("if budget.tool_calls >= budget.max_tool_calls:", "if budget.tool_calls + 1 > budget.max_tool_calls:"),)),
    ("verifier", "at least one row", (("return cur.fetchone()[0] == 1", "return cur.fetchone()[0] >= 1"),)),
    ("run_record", "tuples kept as tuples", (("return [redact(v) for v in value]",
                                              "return type(value)(redact(v) for v in value)"),)),
    ("identity", "forged tenants dropped", (
        ("        security.set_tenant(conn, tenant)\n        return OPEN_CASES.run(conn, **arguments)",
         "        for forged in ('tenant', 'tenant_id'):\n            arguments.pop(forged, None)\n"
         "        security.set_tenant(conn, tenant)\n        return OPEN_CASES.run(conn, **arguments)"),)),
    ("approval", "any row consumed", (("consumed = cur.rowcount == 1", "consumed = cur.rowcount > 0"),)),
    # issue 21: a positional bind; stock sqlglot cannot read `:1`, the check reads it with the engine's dialect
    ("governed_report", "positional bind :1", (
        ("WHERE rate_bp > :rate_bp", "WHERE rate_bp > :1"),
        ("ORDER BY rate_bp DESC, loan_id\"\"\", rate_bp=rate_bp)", "ORDER BY rate_bp DESC, loan_id\"\"\", [rate_bp])"))),
    ("tool_allowlist", "a ToolsetMismatch subclass", (
        ("    found, wanted = set(available), set(allowed)",
         "    class Refused(ToolsetMismatch):\n        pass\n    found, wanted = set(available), set(allowed)"),
        ("        raise ToolsetMismatch(f\"tool allowlist", "        raise Refused(f\"tool allowlist"))),
    ("budget", "the tool's failure caught and re-raised", (
        ("    output = tool(**arguments)\n",
         "    try:\n        output = tool(**arguments)\n    except Exception:\n        raise\n"),)),
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
          edit=(("if object_name(table) not in permitted and not cte_in_scope(table):", "if False:"),)),
    Wrong("sql_guard", "probe", "first-statement-only", "let stacked statements through",
          edit=(('if len(statements) != 1 or has_semicolon(sql):', "if not statements:"),)),
    Wrong("sql_guard", "probe", "root-only-write-check", "let WITH ... DELETE through",
          edit=(("""        if isinstance(node, WRITE_NODES):
            raise GuardRefused(f"{node.key.upper()} inside a query")
""", ""),)),
    Wrong("sql_guard", "probe", "no-package-check", "let a DBMS_ call through",
          edit=(("""    if package_names(sql):
        raise GuardRefused(f"calls of {package_names(sql)[0]} are not allowed")
""", ""),)),
    Wrong("sql_guard", "next-cell", "cte-names-refused", "refused a WITH over its own CTE",
          edit=((" and not cte_in_scope(table):", ":"),)),
    # issue 19: the scope of a WITH name, a UNION, a ';' that is data, Oracle's name comparison
    Wrong("sql_guard", "probe", "cte-scope-ignored", "shadowing the outer table through",
          edit=(("if object_name(table) not in permitted and not cte_in_scope(table):",
                 "if object_name(table) not in permitted | {cte_name(c) for c in tree.find_all(exp.CTE)}:"),)),
    Wrong("sql_guard", "probe", "cte-order-ignored", "an earlier WITH entry reading a table",
          edit=(("earlier = node.expressions[:[id(e) for e in node.expressions].index(id(child))]",
                 "earlier = node.expressions"),)),
    Wrong("sql_guard", "next-cell", "union-refused", "refused a UNION of two allowed tables",
          edit=(("    if not isinstance(tree, QUERY_NODES):",
                 "    if tree.find(exp.Union):\n        raise GuardRefused('no UNION')\n"
                 "    if not isinstance(tree, QUERY_NODES):"),)),
    Wrong("sql_guard", "method", "semicolon-anywhere", "refused write words and a ';' inside a string",
          edit=(("or has_semicolon(sql)", "or ';' in sql"),)),
    Wrong("sql_guard", "method", "names-upper-cased", "quoted CTE name",
          edit=(("name, child, node = object_name(table), table, table.parent",
                 "name, child, node = table.name.upper(), table, table.parent"),
                ("if any(cte_name(cte) == name for cte in earlier):", "if any(cte.alias.upper() == name for cte in earlier):"),
                ("if any(cte_name(cte) == name for cte in node.ctes):",
                 "if any(cte.alias.upper() == name for cte in node.ctes):"))),
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
    # TODO 4: the budget
    Wrong("budget", "method", "cap-checked-after-the-call", "the tool ran 4 times under a cap of 3",
          edit=(("""    if budget.tool_calls >= budget.max_tool_calls:
        raise BudgetExhausted("tool_calls", f"tool-call cap of {budget.max_tool_calls} reached")
    budget.tool_calls += 1
    output = tool(**arguments)""", """    output = tool(**arguments)
    if budget.tool_calls >= budget.max_tool_calls:
        raise BudgetExhausted("tool_calls", f"tool-call cap of {budget.max_tool_calls} reached")
    budget.tool_calls += 1"""),)),
    Wrong("budget", "probe", "cap-off-by-one", "the tool ran 4 times under a cap of 3",
          edit=(("if budget.tool_calls >= budget.max_tool_calls:", "if budget.tool_calls > budget.max_tool_calls:"),)),
    Wrong("budget", "clause", "tokens-never-counted", "the token budget never ran out",
          edit=(("    budget.tokens += cost\n", ""),)),
    Wrong("budget", "clause", "no-cap", "the cap never stopped the run",
          edit=(("""    if budget.tool_calls >= budget.max_tool_calls:
        raise BudgetExhausted("tool_calls", f"tool-call cap of {budget.max_tool_calls} reached")
""", ""),)),
    Wrong("budget", "probe", "full-budget-refused", "exactly fills the budget still fits",
          edit=(("if budget.tokens + cost > budget.max_tokens:", "if budget.tokens + cost >= budget.max_tokens:"),)),
    Wrong("budget", "method", "characters-not-tokens", "count in estimate_tokens units",
          edit=(("cost = estimate_tokens(str(output))", "cost = len(str(output))"),)),
    Wrong("budget", "clause", "charged-before-refusing", "over max_tokens",
          edit=(("""    if budget.tokens + cost > budget.max_tokens:
        raise BudgetExhausted("tokens", f"token budget of {budget.max_tokens} would be exceeded by {cost} more")
    budget.tokens += cost""", """    budget.tokens += cost
    if budget.tokens > budget.max_tokens:
        raise BudgetExhausted("tokens", f"token budget of {budget.max_tokens} exceeded")"""),)),
    Wrong("budget", "next-cell", "plain-error", "a plain error would crash the run",
          edit=(('raise BudgetExhausted("tool_calls", f"tool-call cap', 'raise RuntimeError(f"tool-call cap'),)),
    Wrong("budget", "next-cell", "output-dropped", "not the tool's output",
          edit=(("    budget.tokens += cost\n    return output", "    budget.tokens += cost"),)),
    # TODO 6: the run record
    Wrong("run_record", "probe", "first-secret-only", "left a secret in two keys in one string",
          edit=(("value = pattern.sub(REDACTED, value)", "value = pattern.sub(REDACTED, value, count=1)"),)),
    Wrong("run_record", "probe", "lists-not-searched", "left a secret in secrets nested in a list",
          edit=(("return [redact(v) for v in value]", "return list(value)"),)),
    Wrong("run_record", "clause", "keys-ignored", "left a secret in a value under a secret-looking key",
          edit=(("REDACTED if SECRET_KEYS.search(str(k)) else redact(v)", "redact(v)"),)),
    Wrong("run_record", "clause", "text-ignored", "left a secret in two keys in one string",
          edit=(("""        for pattern in SECRET_VALUES:
            value = pattern.sub(REDACTED, value)
""", ""),)),
    Wrong("run_record", "method", "exact-key-names", "a secret-looking key in another case",
          edit=(("SECRET_KEYS.search(str(k))", 'str(k) in ("password", "api_key", "token")'),)),
    Wrong("run_record", "next-cell", "changes-its-input", "redact changed its input",
          edit=(("""        return {k: REDACTED if SECRET_KEYS.search(str(k)) else redact(v) for k, v in value.items()}""",
                 """        for k, v in value.items():
            value[k] = REDACTED if SECRET_KEYS.search(str(k)) else redact(v)
        return value"""),)),
    Wrong("run_record", "next-cell", "everything-redacted", "redact changed a value with no secret in it",
          edit=(("REDACTED if SECRET_KEYS.search(str(k)) else redact(v)", "REDACTED"),)),
    Wrong("run_record", "next-cell", "json-text", "redact changed a value with no secret in it",
          edit=(("        return {k: REDACTED if SECRET_KEYS.search(str(k)) else redact(v) for k, v in value.items()}",
                 "        return str({k: REDACTED if SECRET_KEYS.search(str(k)) else redact(v) for k, v in value.items()})"),)),
    # TODO 7: identity
    Wrong("identity", "method", "tenant-from-the-argument", "identity was taken from a tool argument",
          edit=(("""    def open_cases(**arguments: Any) -> list[dict]:
        security.set_tenant(conn, tenant)""", """    def open_cases(tenant_id=None, **arguments: Any) -> list[dict]:
        security.set_tenant(conn, tenant_id or tenant)"""),)),
    Wrong("identity", "probe", "bound-once", "the tenant was bound once",
          edit=(("""    def open_cases(**arguments: Any) -> list[dict]:
        security.set_tenant(conn, tenant)""", """    security.set_tenant(conn, tenant)

    def open_cases(**arguments: Any) -> list[dict]:"""),)),
    Wrong("identity", "clause", "never-bound", "the session carried no tenant",
          edit=(("        security.set_tenant(conn, tenant)\n", ""),)),
    Wrong("identity", "clause", "nobody-accepted", "made a tool",
          edit=(("""    if not isinstance(tenant, str) or not tenant:
        raise ValueError("the harness opens the tools' session only for a verified tenant")
""", ""),)),
    Wrong("identity", "method", "formatted-tenant", "formatted into the SQL text",
          edit=(("        return OPEN_CASES.run(conn, **arguments)", """        with conn.cursor() as cur:
            cur.execute(f"SELECT case_ref, customer_id, status FROM agent_cases WHERE status = 'open' "
                        f"AND tenant_id = '{tenant}' ORDER BY case_ref FETCH FIRST :limit ROWS ONLY",
                        limit=arguments["limit"])
            return [dict(zip([d[0].lower() for d in cur.description], row)) for row in cur.fetchall()]"""),)),
    Wrong("identity", "method", "context-set-directly", "only the trusted package",
          edit=(("        security.set_tenant(conn, tenant)\n",
                 "        conn.cursor().execute(\"BEGIN DBMS_SESSION.SET_CONTEXT('kb_ctx', 'tenant_id', :t); END;\", t=tenant)\n"),)),
    # TODO 8: approvals
    Wrong("approval", "clause", "any-arguments", "other arguments than the ones approved",
          edit=((" AND args_digest = :digest", ""), (", digest=digest(tool, arguments)", ""))),
    Wrong("approval", "clause", "any-actor", "another actor than the one who approved",
          edit=((" AND actor = :actor", ""), (", actor=actor)", ")"))),
    Wrong("approval", "clause", "any-status", "a rejected approval",
          edit=((" AND status = 'approved'", ""),)),
    Wrong("approval", "probe", "no-expiry", "an approval that expired",
          edit=(("\n                         AND expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP)", ""),)),
    Wrong("approval", "probe", "never-consumed", "consumed twice",
          edit=(("UPDATE agent_approvals SET status = 'consumed'", "UPDATE agent_approvals SET status = 'approved'"),)),
    Wrong("approval", "method", "select-then-update", "check and consume in ONE UPDATE",
          edit=(('''    with conn.cursor() as cur:
        cur.execute("""UPDATE''', '''    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_approvals WHERE approval_id = :a", a=approval_id)
        cur.fetchone()
        cur.execute("""UPDATE'''),)),
    Wrong("approval", "method", "formatted-id", "into the SQL text",
          edit=(('cur.execute("""UPDATE', 'cur.execute(f"""UPDATE'), ("approval_id = :approval_id", "approval_id = '{approval_id}'"),
                ("approval_id=approval_id, run_id=run_id", "run_id=run_id"))),
    Wrong("approval", "next-cell", "own-digest", "the approved call itself",
          edit=(("digest=digest(tool, arguments)", "digest=str(sorted(arguments.items()))"),)),
    Wrong("identity", "next-cell", "tuples", "expected a list of dicts",
          edit=(("        return OPEN_CASES.run(conn, **arguments)",
                 "        return [tuple(r.values()) for r in OPEN_CASES.run(conn, **arguments)]"),)),
    # adversarial review (parts 06-08): mistakes the first table did not hold
    Wrong("tool_allowlist", "probe", "case-folded-names", "accepted a tool named in another case",
          edit=(("found, wanted = set(available), set(allowed)",
                 "found, wanted = {n.lower() for n in available}, {n.lower() for n in allowed}"),)),
    Wrong("tool_allowlist", "method", "length-only", "accepted one tool swapped for another",
          edit=(("if extra or missing:", "if len(found) != len(wanted):"),)),
    Wrong("tool_allowlist", "method", "duplicates-refused", "refused a tool listed twice",
          edit=(("if extra or missing:", "if extra or missing or sorted(available) != sorted(allowed):"),)),
    Wrong("tool_allowlist", "next-cell", "returns-false", "accepted an extra tool",
          edit=(('        raise ToolsetMismatch(f"tool allowlist mismatch: unexpected {extra}, missing {missing}; refusing to start")',
                 "        return False"),)),
    Wrong("sql_guard", "clause", "no-root-check", "a statement that is not a query",
          edit=(("""    if not isinstance(tree, QUERY_NODES):
        raise GuardRefused(f"{tree.key.upper()} is not a query")
""", ""),)),
    Wrong("sql_guard", "method", "blocklist-of-roots", "a statement that is not a query",
          edit=(("if not isinstance(tree, QUERY_NODES):",
                 "if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Drop, exp.Create)):"),)),
    Wrong("sql_guard", "probe", "trailing-semicolon-allowed", "let a trailing ';' through",
          edit=(('if len(statements) != 1 or has_semicolon(sql):', "if len(statements) != 1:"),)),
    Wrong("sql_guard", "clause", "schema-qualified-allowed", "let a schema-qualified table through",
          edit=(("if table.db or table.catalog:", "if False:"),)),
    Wrong("sql_guard", "method", "dbms-text-search", "refused write words and a ';' inside a string",
          edit=(("    if package_names(sql):", "    if 'DBMS_' in sql.upper() or package_names(sql):"),)),
    Wrong("sql_guard", "method", "prefix-allowlist", "let a table not on the allowlist through",
          edit=(("if object_name(table) not in permitted and not cte_in_scope(table):",
                 "if not (object_name(table).startswith('FINANCE_') or object_name(table) in permitted) "
                 "and not cte_in_scope(table):"),)),
    Wrong("governed_report", "probe", "zero-refused", "loans_above_rate(0) was refused",
          edit=(("not 0 <= rate_bp <= 10000", "not 0 < rate_bp < 10000"),)),
    Wrong("governed_report", "probe", "strings-coerced", "loans_above_rate('1400') was accepted",
          edit=(("    if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:",
                 "    rate_bp = int(rate_bp) if isinstance(rate_bp, str) and rate_bp.isdigit() else rate_bp\n"
                 "    if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:"),)),
    Wrong("governed_report", "next-cell", "upper-case-keys", "lower-case keys",
          edit=(("names = [d[0].lower() for d in cur.description]", "names = [d[0] for d in cur.description]"),)),
    Wrong("governed_report", "clause", "wrong-tie-break", "in another order",
          edit=(("ORDER BY rate_bp DESC, loan_id", "ORDER BY rate_bp DESC, customer_id"),)),
    Wrong("governed_report", "clause", "validated-after-sql", "ran SQL before refusing",
          edit=(("""    if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:
        raise ValueError(f"rate_bp must be an integer from 0 to 10000 basis points, not {rate_bp!r}")
    with conn.cursor() as cur:""", """    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM dual")
        if not isinstance(rate_bp, int) or isinstance(rate_bp, bool) or not 0 <= rate_bp <= 10000:
            raise ValueError(f"rate_bp must be an integer from 0 to 10000 basis points, not {rate_bp!r}")"""),)),
    Wrong("budget", "probe", "half-admitted", "half-admitted",
          edit=(("""    if budget.tokens + cost > budget.max_tokens:
        raise""", """    if budget.tokens + cost > budget.max_tokens:
        budget.tokens = budget.max_tokens
        raise"""),)),
    Wrong("budget", "clause", "refused-calls-not-counted", "after 4 calls",
          edit=(("    budget.tool_calls += 1\n    output = tool(**arguments)", "    output = tool(**arguments)"),
                ("    budget.tokens += cost\n    return output", "    budget.tokens += cost\n    budget.tool_calls += 1\n    return output"))),
    Wrong("budget", "method", "repr-not-str", "count in estimate_tokens units",
          edit=(("cost = estimate_tokens(str(output))", "cost = estimate_tokens(repr(output))"),)),
    Wrong("budget", "next-cell", "truncated-not-refused", "not the tool's output",
          edit=(('        raise BudgetExhausted("tokens", f"token budget of {budget.max_tokens} would be exceeded by {cost} more")',
                 "        return str(output)[:4 * (budget.max_tokens - budget.tokens)]"),)),
    Wrong("budget", "clause", "wrong-reason", "('tokens')",
          edit=(('raise BudgetExhausted("tool_calls", f"tool-call cap', 'raise BudgetExhausted("tokens", f"tool-call cap'),)),
    Wrong("verifier", "method", "case-filtered-in-python", "bound",
          edit=(('''        cur.execute("SELECT COUNT(*) FROM agent_findings WHERE run_id = :run_id AND case_ref = :case_ref",
                    run_id=run_id, case_ref=case_ref)
        return cur.fetchone()[0] == 1''', '''        cur.execute("SELECT case_ref FROM agent_findings WHERE run_id = :run_id", run_id=run_id)
        return case_ref in [row[0] for row in cur.fetchall()]'''),)),
    Wrong("verifier", "method", "reads-the-run-record", "returned False for this run's saved finding",
          edit=(("FROM agent_findings WHERE run_id = :run_id AND case_ref = :case_ref",
                 "FROM agent_run_events WHERE run_id = :run_id AND name = 'save_finding' AND status = :case_ref"),)),
    Wrong("verifier", "clause", "queried-then-ignored", "returned True for a finding another run saved",
          edit=(("return cur.fetchone()[0] == 1", "cur.fetchone()\n        return True"),)),
    Wrong("run_record", "method", "match-not-search", "a secret-looking key in another case",
          edit=(("SECRET_KEYS.search(str(k))", "SECRET_KEYS.match(str(k))"),)),
    Wrong("run_record", "probe", "only-text-under-secret-keys", "left a secret in a secret key holding a structure",
          edit=(("REDACTED if SECRET_KEYS.search(str(k)) else redact(v)",
                 "REDACTED if SECRET_KEYS.search(str(k)) and isinstance(v, str) else redact(v)"),)),
    Wrong("run_record", "probe", "non-text-keys", "a key that is not a string",
          edit=(("SECRET_KEYS.search(str(k))", "SECRET_KEYS.search(k)"),)),
    Wrong("run_record", "clause", "nested-dicts-not-searched", "left a secret in secrets nested in a list",
          edit=(("REDACTED if SECRET_KEYS.search(str(k)) else redact(v)",
                 "REDACTED if SECRET_KEYS.search(str(k)) else (redact(v) if isinstance(v, str) else v)"),)),
    Wrong("run_record", "next-cell", "list-changed-in-place", "redact changed its input",
          edit=(("        return [redact(v) for v in value]",
                 "        if isinstance(value, list):\n            value[:] = [redact(v) for v in value]\n"
                 "            return value\n        return [redact(v) for v in value]"),)),
    Wrong("identity", "clause", "arguments-ignored", "limit=1",
          edit=(("        return OPEN_CASES.run(conn, **arguments)", "        return OPEN_CASES.run(conn, limit=10)"),)),
    Wrong("identity", "probe", "checked-at-call-time", "made a tool",
          edit=(("""    if not isinstance(tenant, str) or not tenant:
        raise ValueError("the harness opens the tools' session only for a verified tenant")

    def open_cases(**arguments: Any) -> list[dict]:
""", """    def open_cases(**arguments: Any) -> list[dict]:
        if not tenant:
            raise ValueError("the harness opens the tools' session only for a verified tenant")
"""),)),
    Wrong("identity", "probe", "only-none-refused", "tenant_tool(conn, '') made a tool",
          edit=(("if not isinstance(tenant, str) or not tenant:", "if tenant is None:"),)),
    Wrong("approval", "clause", "any-run", "another run",
          edit=((" AND run_id = :run_id", ""), ("approval_id=approval_id, run_id=run_id,", "approval_id=approval_id,"))),
    Wrong("approval", "clause", "not-committed", "not committed",
          edit=(("    conn.commit()\n    return consumed", "    return consumed"),)),
    Wrong("approval", "method", "rowcount-ignored", "would run without a human's",
          edit=(("        consumed = cur.rowcount == 1", "        consumed = True"),)),
    # issue 21: mistakes by someone who had not read the tests, one class at a time
    Wrong("tool_allowlist", "next-cell", "valueerror-not-toolsetmismatch", "not ToolsetMismatch",
          edit=(("        raise ToolsetMismatch(f\"tool allowlist", "        raise ValueError(f\"tool allowlist"),)),
    Wrong("tool_allowlist", "next-cell", "assert-instead-of-raise", "not ToolsetMismatch",
          edit=(("    if extra or missing:\n        raise ToolsetMismatch(f\"tool allowlist mismatch: unexpected {extra}, "
                 "missing {missing}; refusing to start\")",
                 "    assert not (extra or missing), f\"unexpected {extra}, missing {missing}\""),)),
    Wrong("governed_report", "next-cell", "select-star", "SELECT * hands it every column",
          edit=(("SELECT loan_id, customer_id, product, rate_bp, status\n", "SELECT *\n"),)),
    Wrong("governed_report", "next-cell", "an-extra-column", "besides",
          edit=(("SELECT loan_id, customer_id, product, rate_bp, status\n",
                 "SELECT loan_id, customer_id, product, rate_bp, status, principal\n"),)),
    Wrong("governed_report", "probe", "positional-bind-no-tie-break", "does not end with loan_id",
          edit=(("WHERE rate_bp > :rate_bp", "WHERE rate_bp > :1"),
                ("ORDER BY rate_bp DESC, loan_id\"\"\", rate_bp=rate_bp)", "ORDER BY rate_bp DESC\"\"\", [rate_bp])"))),
    Wrong("budget", "probe", "counted-on-success", "a tool that always fails ran",
          edit=(("    budget.tool_calls += 1\n    output = tool(**arguments)\n",
                 "    output = tool(**arguments)\n    budget.tool_calls += 1\n"),)),
    Wrong("budget", "probe", "failures-refunded", "a tool that always fails ran",
          edit=(("    output = tool(**arguments)\n",
                 "    try:\n        output = tool(**arguments)\n    except Exception:\n        budget.tool_calls -= 1\n"
                 "        raise\n"),)),
    Wrong("approval", "probe", "actor-typed-into-the-sql", "another actor than the one who approved",
          edit=(("AND actor = :actor", "AND actor = 'ana'"), (", actor=actor)", ")"))),
    Wrong("verifier", "probe", "like-not-equals", "a claimed case 'CASE-%'",
          edit=(("AND case_ref = :case_ref", "AND case_ref LIKE :case_ref"),)),
    Wrong("verifier", "probe", "prefix-match", "only the start of a saved one",
          edit=(("AND case_ref = :case_ref", "AND INSTR(case_ref, :case_ref) = 1"),)),
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
    for _, sql, _ in part07.HOSTILE:
        with pytest.raises(GuardRefused):
            guard_select(sql, part07.ALLOWED_TABLES)
    for _, sql in part07.ACCEPTED:
        guard_select(sql, part07.ALLOWED_TABLES)


def test_checkpoints_leave_the_tables_as_found(notebook):
    from workshop.pipeline import security
    ns = notebook()
    conn = ns["conn"]
    for todo in TODOS:
        run_todo(notebook, todo, SOLUTION_CELLS[TODOS[todo][1]])
    assert not conn.transaction_in_progress          # the verifier's probe transaction ended with it
    assert security.current_tenant(conn) is None     # the identity probes restored the session's tenant
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_findings")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM agent_runs")     # the budget and run-record probes deleted their runs
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*), SUM(rate_bp) FROM finance_loans")
        assert cur.fetchone()[0] > 0


def test_a_repeated_failure_of_the_same_kind_gets_the_code(notebook):
    """The same wrong answer twice: the concept and where to read first, the statement only the second time; the
    stub's own first hint names no SQL either."""
    from checkpoints import part07
    wrong = next(w for w in WRONG if w.id == "like-not-equals")
    source = apply_edit(SOLUTION_CELLS[TODOS["verifier"][1]], wrong.edit)
    hints = []
    for _ in range(2):
        with pytest.raises(CheckpointFailed) as excinfo:
            run_todo(notebook, "verifier", source)
        hints.append(excinfo.value.hint)
    assert hints == list(part07.VERIFIER_HINT), hints
    assert "SELECT" not in hints[0] and ":case_ref" in hints[1]
