"""Solution-region markup in solution notebooks: finding, validating and describing regions.

A solution region is a run of lines in a code cell between two comment lines::

    # BEGIN SOLUTION search_papers
    # HINT: one or more optional hint lines, right after BEGIN
    ...the answer...
    # END SOLUTION

`search_papers` is the TODO's *name* (lower-case snake_case, unique in the notebook): its stable
identity. The checkpoint cell calls `check_<name>(...)`, and checkpoints, progress and the build
refer to the TODO by that name; the TODO's number is only its position. Every region of a cell
carries the cell's one name; `# END SOLUTION` may repeat it.

The region's indentation is that of its BEGIN line; END must have the same indentation and every
line in between must be indented at least as much. Markup mistakes raise `MarkupError` naming the
cell and the line, because a silently ignored marker would publish the answer to learners.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: Cell tags the build understands (see docs/authoring-notebooks.md).
TAG_SOLUTION = "solution"          # solution notebooks: a code cell with solution regions
TAG_TODO = "todo"                  # student notebooks: the stub made from a `solution` cell
TAG_CHECKPOINT = "checkpoint"      # both: the cell that runs the checkpoint for the TODO above
TAG_SOLUTION_ONLY = "solution-only"  # dropped from student notebooks
TAG_STUDENT_ONLY = "student-only"  # kept in student notebooks only (solutions still contain it)
BUILD_TAGS = frozenset({TAG_SOLUTION, TAG_TODO, TAG_SOLUTION_ONLY, TAG_STUDENT_ONLY})

BEGIN_MARKER = "# BEGIN SOLUTION"
END_MARKER = "# END SOLUTION"
#: A TODO's name: what `# BEGIN SOLUTION <name>` declares and `check_<name>` checks.
NAME_PATTERN = r"[a-z][a-z0-9_]*"
CHECK_PREFIX = "check_"

_MARKER = re.compile(r"^(?P<indent>[ \t]*)#[ \t]*(?P<kind>BEGIN|END) SOLUTION(?:[ \t]+(?P<name>\S+))?[ \t]*$")
_NAME = re.compile(rf"^{NAME_PATTERN}$")
_HINT = re.compile(r"^[ \t]*#[ \t]*HINT:[ \t]?(?P<text>.*?)[ \t]*$")
_LOOKS_LIKE_MARKER = re.compile(r"(BEGIN|END)[ \t_-]*SOLUTION", re.IGNORECASE)
_LOOKS_LIKE_HINT = re.compile(r"#[ \t]*HINT\b")  # upper case only: '# Hint: ...' is an ordinary comment


def _looks_like_markup(line: str) -> bool:
    return bool(_LOOKS_LIKE_MARKER.search(line) or _LOOKS_LIKE_HINT.search(line))


class MarkupError(ValueError):
    """Solution markup that the build refuses to guess about."""


@dataclass(frozen=True)
class Region:
    """One solution region; line numbers are 0-based indexes into the cell's lines."""

    begin: int           # the BEGIN SOLUTION line
    end: int             # the END SOLUTION line
    indent: str          # leading whitespace of the BEGIN line
    hints: tuple[str, ...]
    name: str = ""       # the TODO's name, from `# BEGIN SOLUTION <name>`

    @property
    def body_start(self) -> int:
        """First line after BEGIN and the hint lines."""
        return self.begin + 1 + len(self.hints)

    def body_lines(self, lines: list[str]) -> list[str]:
        return lines[self.body_start:self.end]


def cell_lines(source: str) -> list[str]:
    """The cell's lines, with Windows/old-Mac line ends normalised."""
    return source.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def has_markup(source: str) -> bool:
    """True if any line looks like solution markup (exact or misspelt)."""
    return any(_looks_like_markup(line) for line in cell_lines(source))


def find_regions(source: str, where: str) -> list[Region]:
    """Parse and validate the regions of one code cell (`where` names the cell in errors)."""
    lines = cell_lines(source)
    regions: list[Region] = []
    open_at: int | None = None
    indent = ""
    hints: list[str] = []
    name = ""
    collecting_hints = False
    for number, line in enumerate(lines):
        marker = _MARKER.match(line)
        hint = _HINT.match(line)
        if marker and marker["name"] is not None and not _NAME.match(marker["name"]):
            raise MarkupError(f"{where}, line {number + 1}: {marker['name']!r} is not a TODO name; write "
                              f"'# {marker['kind']} SOLUTION <name>' with a lower-case snake_case name such as "
                              "search_papers")
        if marker and marker["kind"] == "BEGIN":
            if open_at is not None:
                raise MarkupError(f"{where}, line {number + 1}: BEGIN SOLUTION inside the region opened at "
                                  f"line {open_at + 1}; regions cannot nest")
            if marker["name"] is None:
                raise MarkupError(f"{where}, line {number + 1}: the region has no name; write "
                                  "'# BEGIN SOLUTION <name>' (the TODO's name, e.g. search_papers, called by its "
                                  "checkpoint cell as check_<name>)")
            open_at, indent, hints, collecting_hints = number, marker["indent"], [], True
            name = marker["name"]
            continue
        if marker:  # END
            if open_at is None:
                raise MarkupError(f"{where}, line {number + 1}: END SOLUTION without a BEGIN SOLUTION")
            if marker["indent"] != indent:
                raise MarkupError(f"{where}, line {number + 1}: END SOLUTION is indented differently from its "
                                  f"BEGIN SOLUTION (line {open_at + 1})")
            if marker["name"] is not None and marker["name"] != name:
                raise MarkupError(f"{where}, line {number + 1}: END SOLUTION {marker['name']} closes the region "
                                  f"BEGIN SOLUTION {name} (line {open_at + 1})")
            region = Region(open_at, number, indent, tuple(hints), name)
            if not any(body.strip() and not body.strip().startswith("#") for body in region.body_lines(lines)):
                raise MarkupError(f"{where}, line {open_at + 1}: the solution region has no code")
            regions.append(region)
            open_at, collecting_hints = None, False
            continue
        if hint:
            if open_at is None or not collecting_hints:
                raise MarkupError(f"{where}, line {number + 1}: '# HINT:' is only allowed right after "
                                  "'# BEGIN SOLUTION'")
            if not hint["text"]:
                raise MarkupError(f"{where}, line {number + 1}: empty '# HINT:' line")
            hints.append(hint["text"])
            continue
        if _looks_like_markup(line):
            raise MarkupError(f"{where}, line {number + 1}: {line.strip()!r} looks like solution markup but is "
                              f"not; write exactly '{BEGIN_MARKER} <name>', {END_MARKER!r} or '# HINT: ...' on a "
                              "line of its own")
        collecting_hints = False
    if open_at is not None:
        raise MarkupError(f"{where}, line {open_at + 1}: BEGIN SOLUTION without an END SOLUTION")
    names = sorted({region.name for region in regions})
    if len(names) > 1:
        raise MarkupError(f"{where}: the cell's regions carry different names {names}; a cell is one TODO, so "
                          "every region in it carries the same name")
    if regions:
        _check_against_syntax(source, lines, regions, where)
    return regions


def python_source(source: str, where: str) -> str:
    """The cell as plain Python, line for line: IPython line magics and `!` commands become calls.

    Cell magics (`%%sql`, `%%time` ...) change the line structure, so regions in them are refused.
    """
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        pass
    if source.lstrip().startswith("%%"):
        raise MarkupError(f"{where}: solution regions are not supported in %% cell-magic cells")
    from IPython.core.inputtransformer2 import TransformerManager
    transformed = TransformerManager().transform_cell(source)
    if transformed.endswith("\n") and not source.endswith("\n"):
        transformed = transformed[:-1]
    if len(cell_lines(transformed)) != len(cell_lines(source)):
        raise MarkupError(f"{where}: the cell's IPython syntax changes its line structure; keep magics on "
                          "their own lines")
    return transformed


def parse_cell(source: str, where: str) -> ast.Module:
    """The cell's syntax tree (IPython magics allowed); a solution cell must be valid Python."""
    try:
        return ast.parse(python_source(source, where))
    except SyntaxError as exc:
        raise MarkupError(f"{where}, line {exc.lineno}: the solution cell is not valid Python: {exc.msg}") from None


def _check_against_syntax(source: str, lines: list[str], regions: list[Region], where: str) -> None:
    """Markers must be comments, not text inside a triple-quoted string, and a region's lines must be
    indented at least as much as its BEGIN line (only string continuation lines may be indented less)."""
    tree = parse_cell(source, where)
    spans = [(node.lineno, node.end_lineno) for node in ast.walk(tree)
             if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno and node.end_lineno > node.lineno]

    def in_string(line_no: int) -> bool:
        return any(start < line_no <= stop for start, stop in spans)

    for region in regions:
        for index in (region.begin, region.end):
            if in_string(index + 1):
                raise MarkupError(f"{where}, line {index + 1}: {lines[index].strip()!r} is inside a string; put "
                                  "the whole assignment of the string inside the region instead")
        for index in range(region.body_start, region.end):
            line = lines[index]
            if line.strip() and not line.startswith(region.indent) and not in_string(index + 1):
                raise MarkupError(f"{where}, line {index + 1}: line is indented less than the region's "
                                  f"BEGIN SOLUTION (line {region.begin + 1})")
