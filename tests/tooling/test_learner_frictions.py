"""The frictions of the learner walk through parts 04-08 (issue 21), each with a test that fails while it is back.

Notebook claims are checked against the solution notebooks' stored outputs (they are re-executed whenever their
code changes, and nbval runs them) or against the code the prose describes, not against the prose's wording.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from tests.checkpoints.shared import student_path
from workshop import config
from workshop.config import PROJECT_ROOT
from workshop.display import GraphView, identity_table
from workshop.notebooks.stubs import STUB_WIDTH, not_implemented, todo_comment

SOLUTIONS = sorted((PROJECT_ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
LONG_RERANKER = ("RERANKER: training-free late-interaction (MaxSim) reranker over all-MiniLM-L6-v2 token states, "
                 "not a cross-encoder")


def _nb(name: str) -> nbformat.NotebookNode:
    return nbformat.read(PROJECT_ROOT / "solutions" / name, as_version=4)


def _cell(nb: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if c.get("id") == cell_id)


def _text_of(cell: nbformat.NotebookNode) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", "") if o.get("output_type") == "stream" else str(o.get("data", {}).get("text/plain", "")))
    return "".join(out)


# --------------------------------------------------------------------------- identity tables in full
IDENTITY_CASES = [
    ("a reranker label past 50 characters", {"reranker": LONG_RERANKER}, LONG_RERANKER),
    ("why OAMP is skipped", {"OAMP here": "the embedded engine cannot run OAMP (it installs its own PL/SQL package, "
                                          "DBMS_AGENT_MEMORY_STORE): run this part on Oracle"}, "DBMS_AGENT_MEMORY_STORE"),
    ("a short value", {"embedding model": "ALL_MINILM_L6_V2"}, "ALL_MINILM_L6_V2"),
]


@pytest.mark.parametrize("values, whole", [c[1:] for c in IDENTITY_CASES], ids=[c[0] for c in IDENTITY_CASES])
def test_the_identity_table_prints_every_value_in_full(values, whole):
    table = identity_table(values)
    assert whole in repr(table) and whole in table._repr_html_()
    assert all(v in repr(table) for v in values.values())


def test_the_identity_table_escapes_html():
    html = identity_table({"<b>engine</b>": "<script>x</script> & co"})._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;engine" in html


@pytest.mark.parametrize("name, cell_id, whole", [
    ("05_hybrid_pipeline.ipynb", "p05-setup", "not a cross-encoder"),
    ("06_evaluating_retrieval.ipynb", "p06-setup", "not a cross-encoder"),
    ("07_agent_harness.ipynb", "p07-setup", "scripted (deterministic; no model is called)"),
    ("08_oracle_ai_agent_memory.ipynb", "p08-setup", "run this part on Oracle (ORACLE_DSN) to see it"),
], ids=["part05", "part06", "part07", "part08"])
def test_the_parts_identity_output_is_not_cut(name, cell_id, whole):
    """The stored output of each header cell (the notebook as it last ran) holds the whole line."""
    shown = _text_of(_cell(_nb(name), cell_id))
    assert whole in shown, shown
    assert "..." not in shown.split("come from", 1)[-1], shown


# --------------------------------------------------------------------------- every part starts with the preflight
@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem[:2] for p in SOLUTIONS])
def test_every_part_runs_its_preflight_before_it_connects(path):
    nb = nbformat.read(path, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    part = path.name[:2]
    preflight = next((i for i, src in enumerate(code) if f'preflight("{part}")' in src), None)
    connects = next((i for i, src in enumerate(code) if re.search(r"\bconnect\(", src)), None)
    assert preflight is not None, f"{path.name} never calls preflight({part!r})"
    assert connects is None or preflight < connects, f"{path.name}: a cell connects before the preflight"


# --------------------------------------------------------------------------- hints that fit the screen
HINTS = [
    ("a 190-character SQL hint", ("SELECT table_name, comments FROM user_tab_comments WHERE table_type = 'TABLE' AND "
                                   "table_name LIKE :prefix ESCAPE '\\\\' AND comments IS NOT NULL AND more text "
                                   "to pass one hundred and ninety characters",)),
    ("quotes, braces and a backslash", ('return {"kept": [...], "dropped": [(id, reason)], "tokens": n} with "\\" '
                                        "and 'single' quotes, long enough to be wrapped onto a second line of hint",)),
    ("a word longer than the width", ("x" * 130,)),
    ("two hints", ("first hint", "a second hint " * 12)),
    ("short", ("ORDER BY, then FETCH FIRST :k ROWS ONLY",)),
]


@pytest.mark.parametrize("hints", [c[1] for c in HINTS], ids=[c[0] for c in HINTS])
def test_a_stub_wraps_its_hint_and_keeps_the_message(hints):
    comment, raising = todo_comment(3, hints), not_implemented(3, hints)
    words = [w for line in comment for w in line.lstrip("#").split()]
    assert words == ["TODO", "3:", *" ".join(hints).split()]           # nothing lost or added
    assert all(len(line) <= STUB_WIDTH or " " not in re.sub(r"^#( TODO \d+:)?\s*", "", line) for line in comment)
    source = "\n".join(raising)
    call = ast.parse(source).body[0].exc
    assert ast.literal_eval(call.args[0]) == f"TODO 3: {hints[0]}"     # the message is unchanged
    assert all(len(line) <= STUB_WIDTH or " " not in ast.literal_eval(line.strip().removeprefix(
        "raise NotImplementedError(").removesuffix(")")) for line in raising)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem[:2] for p in SOLUTIONS])
def test_no_stub_line_is_cut_at_the_right_edge(path):
    """JupyterLab at 1280 px shows about 110 characters of a code line; the walk met hints of 190."""
    nb = nbformat.read(student_path(path.name), as_version=4)
    long = [line for c in nb.cells if "todo" in c.metadata.get("tags", [])
            for line in c.source.splitlines()
            if len(line) > 110 and (line.lstrip().startswith(("#", "raise NotImplementedError(")))]
    assert not long, long[:3]


# --------------------------------------------------------------------------- prose checked against the code
def test_part_05_prose_example_of_escape_braces_is_what_the_function_returns():
    from workshop.retrieval import escape_braces
    prose = _cell(_nb("05_hybrid_pipeline.ipynb"), "p05-todo1-intro").source
    examples = re.findall(r"`escape_braces\(\"([^\"]+)\"\)` is `'([^']+)'`", prose)
    assert examples, "the TODO 1 prose shows what escape_braces returns"
    for term, shown in examples:
        assert escape_braces(term) == shown


def test_part_05_prose_names_the_tokens_key_the_checkpoint_requires():
    nb = _nb("05_hybrid_pipeline.ipynb")
    assert "**`tokens`** key" in _cell(nb, "p05-stage6").source
    assert '"tokens"' in _cell(nb, "p05-budget").source or "'tokens'" in _cell(nb, "p05-budget").source


def test_part_07_todo_8_prose_says_to_commit():
    assert "conn.commit()" in _cell(_nb("07_agent_harness.ipynb"), "p07-approval").source


def test_part_04_prose_has_no_authors_notes_and_doubles_the_escape_for_python():
    nb = _nb("04_knowledge_retrieval.ipynb")
    text = "\n".join(c.source for c in nb.cells)
    assert "source workshop" not in text
    assert "ESCAPE '\\\\'" in _cell(nb, "p04-scan-md").source     # as it must be written in a normal string


def test_part_08_every_oamp_cell_says_why_it_skips_on_the_embedded_engine():
    """The intro promises one line per OAMP cell; cells 29 and 37 printed nothing (stored outputs: embedded)."""
    nb = _nb("08_oracle_ai_agent_memory.ipynb")
    oamp_cells = [c for c in nb.cells if c.cell_type == "code" and re.search(r"\bOAMP\b|oamp\.ready", c.source)
                  and "identity_table" not in c.source and "solution" not in c.metadata.get("tags", [])]
    assert len(oamp_cells) >= 6
    silent = [c.id for c in oamp_cells if not _text_of(c).strip()]
    assert not silent, f"OAMP cells that print nothing: {silent}"


def test_part_08_scope_prose_explains_the_other_users_rows():
    nb = _nb("08_oracle_ai_agent_memory.ipynb")
    assert "**own**" in _cell(nb, "p08-22").source
    from workshop.agent_memory import evaluation as ev
    shown = _text_of(_cell(nb, "p08-scope"))
    assert all(text[:40] in shown for text in ev.OTHER_USER_MEMORIES.values())   # the rows are that user's own


def test_the_langgraph_diagram_is_short_text_and_mermaid_for_jupyterlab():
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        x: int

    graph = StateGraph(State)
    for name in ("assemble_context", "plan", "tools", "verify"):
        graph.add_node(name, lambda s: s)
    graph.add_edge(START, "assemble_context")
    graph.add_edge("assemble_context", "plan")
    graph.add_conditional_edges("plan", lambda s: "tools", ["tools", "verify"])
    graph.add_edge("tools", "plan")
    graph.add_edge("verify", END)
    view = GraphView(graph.compile().get_graph())
    bundle = view._repr_mimebundle_()
    assert bundle["text/vnd.mermaid"].lstrip().startswith(("---", "graph", "flowchart"))
    assert "plan -> ?tools | ?verify" in bundle["text/plain"] and len(bundle["text/plain"].splitlines()) <= 8
    stored = _text_of(_cell(_nb("07_agent_harness.ipynb"), "p07-graph-run"))
    assert "classDef" not in stored and "assemble_context -> plan" in stored


# --------------------------------------------------------------------------- the working copy
def test_the_working_copy_copies_missing_notebooks_and_never_overwrites(tmp_path):
    from workshop.working_copy import make_working_copy
    shipped, mine = tmp_path / "notebooks", tmp_path / "my-notebooks"
    shipped.mkdir()
    for name in ("00_a.ipynb", "01_b.ipynb"):
        (shipped / name).write_text(json.dumps({"shipped": name}))
    assert [line.split()[0] for line in make_working_copy(shipped, mine)] == ["copied", "copied"]
    (mine / "00_a.ipynb").write_text('{"my": "answers"}')
    (shipped / "02_c.ipynb").write_text("{}")
    lines = make_working_copy(shipped, mine)
    assert (mine / "00_a.ipynb").read_text() == '{"my": "answers"}'            # the learner's work is kept
    assert [line.split()[0] for line in lines] == ["kept", "kept", "copied"]
    assert (mine / "02_c.ipynb").exists()


def test_the_working_copy_is_ignored_by_git_and_opened_by_the_devcontainers():
    assert "my-notebooks/" in (PROJECT_ROOT / ".gitignore").read_text().splitlines()
    ignored = subprocess.run(["git", "check-ignore", "-q", "my-notebooks/00_setup_and_orientation.ipynb"],
                             cwd=PROJECT_ROOT, capture_output=True)
    assert ignored.returncode in (0, 128), "git does not ignore my-notebooks/"     # 128: not a git checkout
    assert str(config.working_copy_dir()) == __import__("os").environ["WORKSHOP_MY_NOTEBOOKS"]   # tests: a tmp folder
    for path in (PROJECT_ROOT / ".devcontainer").rglob("devcontainer.json"):
        text = path.read_text()
        assert '"openFiles": ["my-notebooks/00_setup_and_orientation.ipynb"]' in text, path
        assert '"notebooks/**": true' in text, path                    # the shipped ones read-only in VS Code
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert "my-notebooks/" in readme


def test_a_second_set_up_run_says_unchanged_in_one_line_instead_of_the_table():
    from workshop.setup import SetupReport
    counts = {"PAPERS": 162, "FINANCE_FX_RATES": 630}
    second = SetupReport("embedded", "b", "here", "M", "R", actions=[], counts=counts).text()
    assert "rows:      2 tables, 792 rows, unchanged" in second and "FINANCE_FX_RATES" not in second
    first = SetupReport("embedded", "b", "here", "M", "R", actions=["created table X"], counts=counts).text()
    assert "FINANCE_FX_RATES" in first and "630" in first


def test_the_set_up_ends_with_the_next_step():
    from workshop.working_copy import FIRST_NOTEBOOK, next_step
    line = next_step(config.PROJECT_ROOT / "my-notebooks")
    assert line.startswith("next:") and f"open my-notebooks/{FIRST_NOTEBOOK}" in line      # relative to the project


# --------------------------------------------------------------------------- troubleshooting
#: (part, the text the page quotes, a fragment of the code that prints it today): every error the walk met
WALK_ERRORS = [
    ("04", "scan_schema returned no facts: its query says ESCAPE ''", ("checkpoints/part04.py", "its query says ESCAPE ''")),
    ("04", '`ORA-00942: table or view "AML_KNOWLEDGE_VS" does not exist` from `write_facts`',
     ("workshop/reset.py", "lesson_state.clear_for_part(part)")),
    ("05", "has text outside braces", ("checkpoints/part05.py", "has text outside braces at")),
    ("05", "which has a TENANT_ID column, got no policy", ("checkpoints/part05.py", "which has a TENANT_ID column, got no policy")),
    ("05", "carry no (or a wrong) 'tokens' count", ("checkpoints/part05.py", "carry no (or a wrong) 'tokens' count")),
    ("05", "ORA-28101: policy already exists", ("workshop/embedded/rls.py", "28101")),
    ("06", "the gain is the grade itself (linear)", ("checkpoints/part06.py", "the gain is the grade itself (linear)")),
    ("06", "the ideal DCG comes from every labelled chunk of the query, not from the retrieved list",
     ("checkpoints/part06.py", "the ideal DCG comes from every labelled chunk of the query, not from the retrieved list")),
    ("07", "the consumption was not committed: a rollback (or a crash) after the call hands the approval back",
     ("checkpoints/part07.py", "the consumption was not committed: a rollback (or a crash) after the call hands the approval back")),
    ("07", 'ORA-00942: table or view "CHECKPOINTS" does not exist', ("workshop/schema.py", '"CHECKPOINTS"')),
    ("07", "guard_select refused write words and a ';' inside a string",
     ("checkpoints/part07.py", "write words and a ';' inside a string")),
    ("07", "guard_select let a schema-qualified table through", ("checkpoints/part07.py", '("a schema-qualified table"')),
    ("07", "the ORDER BY does not end with loan_id", ("checkpoints/part07.py", "the ORDER BY does not end with loan_id")),
    ("07", "the tool ran 4 times under a cap of 3", ("checkpoints/part07.py", "times under a cap of")),
    ("08", "returns memories of another user", ("checkpoints/part08.py", 'returns memories of {whose}')),
    ("08", "a memory keeps the one-time code", ("checkpoints/part08.py", 'a memory keeps {name}')),
    ("--", "NameError", ("workshop/notebooks/execute.py", "restart")),
    ("--", "leaks solution text", ("workshop/notebooks/leaks.py", "leaks solution text")),
    ("--", "not set up yet (no file", ("workshop/doctor.py", "is not set up yet (no file")),
]


def test_the_troubleshooting_page_covers_parts_00_to_08():
    page = (PROJECT_ROOT / "docs" / "troubleshooting.md").read_text()
    assert "parts 00–08" in page and "parts 00–03" not in page
    for part in ("04", "05", "06", "07", "08"):
        assert re.search(rf"^## Part {part}\b", page, re.M), f"no section for part {part}"


@pytest.mark.parametrize("part, quoted, code", WALK_ERRORS, ids=[f"{p}-{q[:40]}" for p, q, _ in WALK_ERRORS])
def test_the_troubleshooting_page_has_a_row_for_each_error_the_walk_met(part, quoted, code):
    page = (PROJECT_ROOT / "docs" / "troubleshooting.md").read_text()
    assert quoted in page, f"docs/troubleshooting.md has no row quoting {quoted!r}"
    path, fragment = code
    assert fragment in (PROJECT_ROOT / path).read_text(), f"{path} no longer says {fragment!r}: update the row"


def test_the_part_05_row_quotes_the_message_of_today():
    """The walk found a row quoting a %_MEMORY message the checkpoint no longer printed first."""
    page = (PROJECT_ROOT / "docs" / "troubleshooting.md").read_text()
    assert "the checkpoint's new table CKPT_" in page
    assert "the checkpoint's new table {probe}, which has a TENANT_ID column" in \
        (PROJECT_ROOT / "checkpoints" / "part05.py").read_text()


def test_readme_set_up_times_are_the_measured_ones():
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert "20-30 s" not in readme and "a fraction of a second" not in readme


def test_the_progress_view_shows_whole_names():
    from checkpoints.progress import PASS, TodoStatus, as_text
    name = "protect_tenant_tables_and_more"
    row = TodoStatus(part="05", number=2, name=name, title="t", status=PASS, reason="", checked="")
    assert name in as_text([row])


def test_student_path_is_the_build_not_the_file_on_disk(tmp_path):
    """The tests read notebooks/ as generated: a learner's saved answers in notebooks/ cannot change them."""
    from workshop.notebooks import build_text
    generated = student_path("05_hybrid_pipeline.ipynb")
    assert generated.read_text() == build_text(PROJECT_ROOT / "solutions" / "05_hybrid_pipeline.ipynb")
    assert not generated.is_relative_to(PROJECT_ROOT / "notebooks")
    assert isinstance(generated, Path)
