"""The student-notebook generator on small notebooks: stubs, tags, metadata, determinism, markup errors."""
from __future__ import annotations

import textwrap

import nbformat
import pytest

from tooling_notebooks import code, markdown, notebook, todo
from workshop.notebooks import MarkupError, analyse, render, student_notebook


def _src(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def stub_of(source: str) -> str:
    """The student version of one solution cell (TODO 1 of a one-TODO notebook)."""
    student = student_notebook(notebook(*todo(_src(source))))
    return student.cells[0].source


def run(source: str, namespace: dict | None = None) -> dict:
    namespace = {} if namespace is None else namespace
    exec(compile(source, "<stub>", "exec"), namespace)
    return namespace


# ------------------------------------------------------------------ stubs

def test_cell_level_assignment_becomes_none_with_todo_and_hint():
    stub = stub_of('''
        # BEGIN SOLUTION answer
        # HINT: write the CREATE TABLE statement for NOTES
        notes_ddl = """
        CREATE TABLE notes (id NUMBER PRIMARY KEY)
        """
        # END SOLUTION
        print(notes_ddl)
    ''')
    assert stub == _src('''
        # TODO 1: write the CREATE TABLE statement for NOTES
        notes_ddl = None  # TODO 1
        print(notes_ddl)
    ''')
    assert run(stub)["notes_ddl"] is None


def test_region_in_function_body_keeps_def_and_docstring_and_raises():
    stub = stub_of('''
        def top_k(conn, k=3):
            """Return the k newest notes."""
            # BEGIN SOLUTION answer
            # HINT: ORDER BY id DESC, then FETCH FIRST :k ROWS ONLY
            with conn.cursor() as cur:
                cur.execute("SELECT id FROM notes ORDER BY id DESC FETCH FIRST :k ROWS ONLY", k=k)
                return cur.fetchall()
            # END SOLUTION
    ''')
    assert stub == _src('''
        def top_k(conn, k=3):
            """Return the k newest notes."""
            # TODO 1: ORDER BY id DESC, then FETCH FIRST :k ROWS ONLY
            raise NotImplementedError("TODO 1: ORDER BY id DESC, then FETCH FIRST :k ROWS ONLY")
    ''')
    namespace = run(stub)
    with pytest.raises(NotImplementedError, match="TODO 1: ORDER BY id DESC"):
        namespace["top_k"](None)


def test_whole_function_in_region_keeps_decorators_signature_and_docstring():
    stub = stub_of('''
        import functools
        # BEGIN SOLUTION answer
        # HINT: score = weight times the first column
        @functools.lru_cache(maxsize=None)
        def score(row: tuple,
                  weight: float = 1.0) -> float:
            """Weight times id."""
            value = weight * row[0]
            return value
        # END SOLUTION
    ''')
    assert stub == _src('''
        import functools
        # TODO 1: score = weight times the first column
        @functools.lru_cache(maxsize=None)
        def score(row: tuple,
                  weight: float = 1.0) -> float:
            """Weight times id."""
            raise NotImplementedError("TODO 1: score = weight times the first column")
    ''')
    with pytest.raises(NotImplementedError):
        run(stub)["score"]((2,))


def test_function_without_docstring_and_one_line_def():
    stub = stub_of('''
        # BEGIN SOLUTION answer
        def double(x): return 2 * x
        async def fetch(conn):
            return await conn.fetch()
        # END SOLUTION
    ''')
    assert stub == _src('''
        # TODO 1: write your code here
        def double(x):
            raise NotImplementedError("TODO 1: write your code here")
        async def fetch(conn):
            raise NotImplementedError("TODO 1: write your code here")
    ''')
    assert "2 * x" not in stub and "await" not in stub


def test_class_members_are_stubbed_by_the_same_rules():
    stub = stub_of('''
        # BEGIN SOLUTION answer
        # HINT: a ranker that sorts rows
        class Ranker:
            """Ranks rows."""
            limit = 10

            def rank(self, rows):
                """Sorted rows."""
                return sorted(rows)[: self.limit]
        # END SOLUTION
    ''')
    assert stub == _src('''
        # TODO 1: a ranker that sorts rows
        class Ranker:
            """Ranks rows."""
            limit = None  # TODO 1
            def rank(self, rows):
                """Sorted rows."""
                raise NotImplementedError("TODO 1: a ranker that sorts rows")
    ''')
    ranker = run(stub)["Ranker"]()
    assert ranker.limit is None
    with pytest.raises(NotImplementedError):
        ranker.rank([2, 1])


def test_every_assigned_name_is_stubbed_but_not_loop_or_with_targets():
    stub = stub_of('''
        # BEGIN SOLUTION answer
        best, *rest = [3, 1, 2]
        total = 0
        for value in rest:
            total += value
        with open("/dev/null") as handle:
            text: str = "x"
        if (count := len(rest)) > 1:
            flag = True
        # END SOLUTION
    ''')
    lines = stub.splitlines()
    assert lines[0] == "# TODO 1: write your code here"
    assert lines[1:] == [f"{name} = None  # TODO 1" for name in ("best", "rest", "total", "text", "count", "flag")]
    namespace = run(stub)
    assert "value" not in namespace and "handle" not in namespace


def test_side_effect_region_becomes_ellipsis_and_keeps_scaffold_around_it():
    stub = stub_of('''
        rows = [(1, "a")]
        # BEGIN SOLUTION answer
        # HINT: insert rows, then commit
        cur.executemany("INSERT INTO notes VALUES (:1, :2)", rows)
        conn.commit()
        # END SOLUTION
        print("done")
    ''')
    assert stub == _src('''
        rows = [(1, "a")]
        # TODO 1: insert rows, then commit
        ...
        print("done")
    ''')


def test_region_inside_a_block_at_cell_level_keeps_the_block_valid():
    stub = stub_of('''
        for number in range(3):
            # BEGIN SOLUTION answer
            print(number)
            # END SOLUTION
    ''')
    assert stub == _src('''
        for number in range(3):
            # TODO 1: write your code here
            ...
    ''')
    run(stub)


def test_several_regions_in_one_cell_share_the_todo_number_and_keep_their_hints():
    stub = stub_of('''
        def nearest(conn, q, k=2):
            """Nearest first."""
            # BEGIN SOLUTION answer
            # HINT: ORDER BY VECTOR_DISTANCE
            # HINT: and FETCH FIRST :k ROWS ONLY
            sql = """
        SELECT id FROM notes
        ORDER BY VECTOR_DISTANCE(embedding, :q) FETCH FIRST :k ROWS ONLY"""
            return sql
            # END SOLUTION


        # BEGIN SOLUTION answer
        # HINT: a dict per row
        def as_dict(row):
            return {"ID": row[0]}
        # END SOLUTION
        limit = 5
    ''')
    assert stub == _src('''
        def nearest(conn, q, k=2):
            """Nearest first."""
            # TODO 1: ORDER BY VECTOR_DISTANCE
            #   and FETCH FIRST :k ROWS ONLY
            raise NotImplementedError("TODO 1: ORDER BY VECTOR_DISTANCE")


        # TODO 1: a dict per row
        def as_dict(row):
            raise NotImplementedError("TODO 1: a dict per row")
        limit = 5
    ''')


def test_hint_text_with_quotes_is_a_valid_string_literal():
    stub = stub_of('''
        def f():
            # BEGIN SOLUTION answer
            # HINT: return {"ID": 1} \\ "quoted" — ünïcode
            return {"ID": 1}
            # END SOLUTION
    ''')
    with pytest.raises(NotImplementedError) as excinfo:
        run(stub)["f"]()
    assert str(excinfo.value) == 'TODO 1: return {"ID": 1} \\ "quoted" — ünïcode'


def test_line_magics_outside_the_region_are_allowed():
    stub = stub_of('''
        %load_ext autoreload
        # BEGIN SOLUTION answer
        answer = 42
        # END SOLUTION
        !echo done
    ''')
    assert stub == "%load_ext autoreload\n# TODO 1: write your code here\nanswer = None  # TODO 1\n!echo done"


# ------------------------------------------------------------------ notebook level

def _part() -> nbformat.NotebookNode:
    nb = notebook(
        markdown("# Part 1", id="intro"),
        code("from workshop.db import connect\nconn = connect()", "setup-tag", id="setup"),
        code("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION", "solution", "keep-me", id="t1"),
        code("check_set_x(x)", "checkpoint", id="k1"),
        markdown("The answer was `x = 1` because...", "solution-only", id="why"),
        code("assert x == 1", "solution-only", id="extra"),
        markdown("Your turn!", "student-only", id="turn"),
        code("# BEGIN SOLUTION set_y\ny = 2\n# END SOLUTION", "solution", id="t2"),
        code("check_set_y(y)", "checkpoint", id="k2"),
    )
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="connected")]
    nb.cells[1].execution_count = 7
    nb.cells[1].metadata["scrolled"] = True
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.4"}
    nb.metadata["widgets"] = {"state": {}}
    return nb


def test_notebook_level_tags_numbering_and_dropped_cells():
    student = student_notebook(_part())
    assert [cell.id for cell in student.cells] == ["intro", "setup", "t1", "k1", "turn", "t2", "k2"]
    by_id = {cell.id: cell for cell in student.cells}
    assert by_id["t1"].metadata == {"tags": ["keep-me", "todo"], "workshop": {"todo": 1, "name": "set_x"}}
    assert by_id["k1"].metadata == {"tags": ["checkpoint"], "workshop": {"todo": 1, "name": "set_x"}}
    assert by_id["t2"].metadata == {"tags": ["todo"], "workshop": {"todo": 2, "name": "set_y"}}
    assert by_id["k2"].metadata == {"tags": ["checkpoint"], "workshop": {"todo": 2, "name": "set_y"}}
    assert by_id["t2"].source == "# TODO 2: write your code here\ny = None  # TODO 2"
    assert by_id["turn"].metadata == {}
    assert by_id["setup"].metadata == {"tags": ["setup-tag"]}


def test_outputs_counts_and_metadata_are_normalised():
    student = student_notebook(_part())
    setup = student.cells[1]
    assert setup.outputs == [] and setup.execution_count is None
    assert student.metadata == {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                               "name": "python3"}, "language_info": {"name": "python"}}
    assert (student.nbformat, student.nbformat_minor) == (4, 5)
    nbformat.validate(student)


def test_build_is_deterministic_and_canonical():
    first = render(student_notebook(_part()))
    second = render(student_notebook(_part()))
    assert first == second
    # What Jupyter would write back after opening the file is the same bytes: no churn on save.
    assert render(nbformat.reads(first, as_version=4)) == first
    assert first.endswith("}\n")


def test_notebook_without_cell_ids_gets_stable_ids():
    nb = _part()
    nb.nbformat_minor = 4
    for cell in nb.cells:
        del cell["id"]
    text = render(student_notebook(nb))
    assert text == render(student_notebook(nb))
    assert [cell.id for cell in nbformat.reads(text, as_version=4).cells] == [
        "cell-1", "cell-2", "cell-3", "cell-4", "cell-7", "cell-8", "cell-9"]


def test_raw_cells_keep_their_format_and_markdown_keeps_attachments():
    raw = nbformat.v4.new_raw_cell("**bold**", metadata={"format": "text/restructuredtext", "other": 1})
    raw.id = "raw"
    note = markdown("![img](attachment:a.png)", id="note")
    note.attachments = {"a.png": {"image/png": "iVBORw0KGgo="}}
    student = student_notebook(notebook(raw, note))
    assert student.cells[0].metadata == {"format": "text/restructuredtext"}
    assert student.cells[1].attachments == {"a.png": {"image/png": "iVBORw0KGgo="}}
    nbformat.validate(student)


def test_windows_line_endings_are_normalised():
    nb = notebook(*todo("x = 1\r\n# BEGIN SOLUTION answer\r\ny = 2\r\n# END SOLUTION\r\n"))
    assert student_notebook(nb).cells[0].source == "x = 1\n# TODO 1: write your code here\ny = None  # TODO 1\n"


def test_analyse_lists_todos_with_hints_and_checkpoints():
    nb = _part()
    nb.cells[2].source = "# BEGIN SOLUTION set_x\n# HINT: set x\nx = 1\n# END SOLUTION"
    _, todos = analyse(nb, "part")
    assert [(t.number, t.name, t.cell_id, t.hints, t.checkpoint_index) for t in todos] == [
        (1, "set_x", "t1", ("set x",), 3), (2, "set_y", "t2", ("",), 8)]


# ------------------------------------------------------------------ markup errors

@pytest.mark.parametrize("source, message", [
    ("# BEGIN SOLUTION answer\nx = 1", "BEGIN SOLUTION without an END SOLUTION"),
    ("x = 1\n# END SOLUTION", "END SOLUTION without a BEGIN SOLUTION"),
    ("# BEGIN SOLUTION answer\n# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION\n# END SOLUTION", "cannot nest"),
    ("# BEGIN SOLUTION answer\nx = 1\n# HINT: late\n# END SOLUTION", "only allowed right after"),
    ("# HINT: early\n# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "only allowed right after"),
    ("# Begin Solution\nx = 1\n# END SOLUTION", "looks like solution markup"),
    ("# BEGIN SOLUTION answer\nx = 1\n#END_SOLUTION", "looks like solution markup"),
    ("# BEGIN SOLUTION answer\n# HINT: nothing\n# END SOLUTION", "has no code"),
    ("if True:\n    # BEGIN SOLUTION answer\n    x = 1\n  # END SOLUTION", "indented differently"),
    ('s = """\n# BEGIN SOLUTION answer\nx\n# END SOLUTION\n"""', "inside a string"),
    ("# BEGIN SOLUTION answer\nif x:\n# END SOLUTION\n    y = 1", "must hold complete statements"),
    ("x = (\n# BEGIN SOLUTION answer\n1\n# END SOLUTION\n)", "must hold complete statements"),
    ("x = 1 +\n# BEGIN SOLUTION answer\ny = 1\n# END SOLUTION", "not valid Python"),
    ("for i in range(3):\n    # BEGIN SOLUTION answer\n    x = i\n# END SOLUTION\n", "indented differently"),
    ("%%time\n# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "cell-magic"),
])
def test_markup_errors_name_the_cell_and_line(source, message):
    with pytest.raises(MarkupError, match=message) as excinfo:
        student_notebook(notebook(*todo(source)), "solutions/01_part.ipynb")
    assert "solutions/01_part.ipynb cell 1" in str(excinfo.value)


def test_region_must_hold_complete_statements():
    source = "def f():\n    x = [\n        # BEGIN SOLUTION answer\n        1,\n        # END SOLUTION\n    ]\n    return x"
    with pytest.raises(MarkupError, match="complete statements"):
        student_notebook(notebook(*todo(source)))


@pytest.mark.parametrize("cells, message", [
    ([code("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION"), code("check_answer()", "checkpoint")], "no 'solution' tag"),
    ([code("x = 1", "solution"), code("check_answer()", "checkpoint")], "has no '# BEGIN SOLUTION <name>' region"),
    ([code("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "solution")], "next code cell must be the TODO's checkpoint"),
    ([code("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "solution"), code("print(x)"), code("check_answer()", "checkpoint")],
     "next code cell must be the TODO's checkpoint"),
    ([code("check()\n# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "checkpoint", "solution")], "not allowed in a cell"),
    ([markdown("# BEGIN SOLUTION answer\nanswer\n# END SOLUTION")], "markdown cell"),
    ([markdown("text", "solution-only", "student-only")], "tagged both"),
    ([code("x = 1", "todo")], "belongs to student notebooks"),
])
def test_tag_errors(cells, message):
    with pytest.raises(MarkupError, match=message):
        student_notebook(notebook(*cells))


def test_all_problems_are_reported_at_once():
    nb = notebook(code("# BEGIN SOLUTION answer\nx = 1"), markdown("# END SOLUTION"), code("y = 1", "solution"))
    with pytest.raises(MarkupError) as excinfo:
        student_notebook(nb, "part")
    assert len(str(excinfo.value).splitlines()) == 3


def test_solution_only_code_cell_between_todo_and_checkpoint_is_allowed():
    nb = notebook(code("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION", "solution"),
                  code("assert x == 1", "solution-only"), code("check_answer(x)", "checkpoint"))
    student = student_notebook(nb)
    assert [cell.source for cell in student.cells] == [
        "# TODO 1: write your code here\nx = None  # TODO 1", "check_answer(x)"]


def test_ordinary_hint_comments_in_lower_case_are_not_markup():
    nb = notebook(code("# Hint: this is just a comment\nx = 1"))
    assert student_notebook(nb).cells[0].source == "# Hint: this is just a comment\nx = 1"


# ------------------------------------------------------------------ TODO identity

@pytest.mark.parametrize("source, message", [
    ("# BEGIN SOLUTION\nx = 1\n# END SOLUTION", "the region has no name"),
    ("# BEGIN SOLUTION Search-Papers\nx = 1\n# END SOLUTION", "is not a TODO name"),
    ("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION set_y", "closes the region BEGIN SOLUTION set_x"),
    ("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION\n# BEGIN SOLUTION set_y\ny = 1\n# END SOLUTION",
     "carry different names"),
])
def test_region_names_are_required_and_consistent(source, message):
    with pytest.raises(MarkupError, match=message):
        student_notebook(notebook(*todo(source, "check_set_x(conn)")))


def test_end_marker_may_repeat_the_name():
    nb = notebook(*todo("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION set_x"))
    assert student_notebook(nb).cells[1].metadata["workshop"] == {"todo": 1, "name": "set_x"}


@pytest.mark.parametrize("first_check, second_check, message", [
    ("check_set_y(conn)", "check_set_y(conn)", r"calls the checkpoint of another TODO: check_set_y \(TODO 2\)"),
    ("checks.todo_1(conn)", "check_set_y(conn)", "calls todo_1; checkpoints are named after their TODO"),
    ("print('no check')", "check_set_y(conn)", "must call check_set_x(...)"),
    ("part01.check_set_x(conn); part01.check_set_y(conn)", "part01.check_set_y(conn)", "another TODO"),
])
def test_a_checkpoint_cell_calls_its_own_todos_check(first_check, second_check, message):
    nb = notebook(*todo("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION", first_check),
                  *todo("# BEGIN SOLUTION set_y\ny = 1\n# END SOLUTION", second_check))
    with pytest.raises(MarkupError, match=message):
        student_notebook(nb, "solutions/01_part.ipynb")


def test_names_are_unique_in_a_notebook():
    nb = notebook(*todo("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION"),
                  *todo("# BEGIN SOLUTION set_x\nx = 2\n# END SOLUTION"))
    with pytest.raises(MarkupError, match="'set_x' is already used by TODO 1"):
        student_notebook(nb)


def test_moving_a_todo_renumbers_it_and_its_checkpoint_together():
    first = todo("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION")
    second = todo("# BEGIN SOLUTION set_y\ny = 1\n# END SOLUTION")
    moved = student_notebook(notebook(*second, *first))
    assert [cell.metadata["workshop"] for cell in moved.cells] == [
        {"todo": 1, "name": "set_y"}, {"todo": 1, "name": "set_y"}, {"todo": 2, "name": "set_x"},
        {"todo": 2, "name": "set_x"}]


def test_prose_that_numbers_todos_must_follow_the_build():
    first = todo("# BEGIN SOLUTION set_x\nx = 1\n# END SOLUTION")
    second = todo("# BEGIN SOLUTION set_y\ny = 1\n# END SOLUTION")
    fine = notebook(markdown("You write TODO 1 and TODO 2."), markdown("**TODO 1:** set x"), *first,
                    markdown("**TODO 2:** set y (it uses TODO 1)"), *second)
    student_notebook(fine)
    moved = notebook(markdown("**TODO 2:** set y"), *second, markdown("**TODO 1:** set x"), *first)
    with pytest.raises(MarkupError, match=r"the prose before TODO 1 \(set_y\) names TODO 2 but not 1"):
        student_notebook(moved)
    beyond = notebook(markdown("**TODO 1:** set x; TODO 3 comes later"), *first)
    with pytest.raises(MarkupError, match="mentions TODO 3, but the notebook has 1 TODO"):
        student_notebook(beyond)
