"""Turning solution regions into learner stubs: cells that run, but leave the TODO undone.

The stub for a region is its `# TODO N: <hint>` comment lines followed by placeholders chosen so
that the cell still runs and the checkpoint after it fails with a friendly message instead of a
NameError:

* region inside a function body   -> `raise NotImplementedError("TODO N: <hint>")`
* elsewhere (cell level, class body, inside `if`/`with`/`for` blocks at cell level):
    - `def f(...)` / `async def` -> decorators, signature and docstring kept, body raises
      NotImplementedError
    - `class C(...)`             -> header and docstring kept, members stubbed by these same rules
    - every name the region assigns with `=`, `+=`, `:=` or an annotated assignment
                                 -> `name = None  # TODO N`
    - nothing of the above       -> `...`
"""
from __future__ import annotations

import ast
import io
import json
import textwrap
import tokenize

from .markup import MarkupError, Region, cell_lines, parse_cell, python_source

DEFAULT_HINT = "write your code here"

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: Longest line of a stub's comment and message (before the cell's indentation): JupyterLab at 1280 px shows
#: about 110 characters of a code line, and a hint cut at the right edge is a hint nobody reads (issue 21).
STUB_WIDTH = 100


def todo_comment(todo: int, hints: tuple[str, ...]) -> list[str]:
    """The `# TODO N: ...` lines that open every stub (relative indentation), wrapped at STUB_WIDTH."""
    first, *rest = hints or (DEFAULT_HINT,)
    lines = textwrap.wrap(first, STUB_WIDTH, initial_indent=f"# TODO {todo}: ", subsequent_indent="#     ",
                          break_long_words=False, break_on_hyphens=False)
    for hint in rest:
        lines += textwrap.wrap(hint, STUB_WIDTH, initial_indent="#   ", subsequent_indent="#     ",
                               break_long_words=False, break_on_hyphens=False)
    return lines


def not_implemented(todo: int, hints: tuple[str, ...]) -> list[str]:
    """`raise NotImplementedError("TODO N: <first hint>")`, the message split into adjacent string literals when
    the line would pass STUB_WIDTH (the message itself is unchanged)."""
    message = f"TODO {todo}: {(hints or (DEFAULT_HINT,))[0]}"
    head = "raise NotImplementedError("
    width = STUB_WIDTH - len(head) - 3
    while True:                                    # narrower until the escaped literals fit (quotes, backslashes)
        pieces = textwrap.wrap(message, width, drop_whitespace=False, replace_whitespace=False,
                               break_long_words=False, break_on_hyphens=False) or [message]
        if width <= 30 or all(len(json.dumps(p, ensure_ascii=False)) <= STUB_WIDTH - len(head) - 1 or " " not in p
                              for p in pieces):
            break
        width -= 5
    if "".join(pieces) != message:                 # never change the text: one literal, however long
        pieces = [message]
    lines = [(head if i == 0 else " " * len(head)) + json.dumps(piece, ensure_ascii=False)
             for i, piece in enumerate(pieces)]
    lines[-1] += ")"
    return lines


def stub_cell(source: str, regions: list[Region], todo: int, where: str) -> str:
    """The cell with every region replaced by its stub; the result is checked to be valid Python."""
    lines = cell_lines(source)
    tree = parse_cell(source, where)
    statement_starts = {(node.lineno, node.col_offset) for node in ast.walk(tree) if isinstance(node, ast.stmt)}
    out = list(lines)
    for region in reversed(regions):
        body = _dedented_body(region, lines)
        body_tree = _parse_region(body, region, where)
        for stmt in body_tree.body:
            if (region.body_start + stmt.lineno, stmt.col_offset + len(region.indent)) not in statement_starts:
                raise MarkupError(f"{where}, line {region.body_start + stmt.lineno}: the solution region (from line "
                                  f"{region.begin + 1}) must hold complete statements, not part of an expression")
        first_line = region.body_start + body_tree.body[0].lineno  # 1-based line in the cell
        if _innermost_scope(tree, first_line) == "function":
            stub = not_implemented(todo, region.hints)
        else:
            stub = _cell_level_stub(body_tree.body, body, _tokens(body), "", todo, region.hints) or ["..."]
        replacement = todo_comment(todo, region.hints) + stub
        out[region.begin:region.end + 1] = [region.indent + line if line else "" for line in replacement]
    text = "\n".join(out)
    try:
        ast.parse(python_source(text, where))
    except (SyntaxError, MarkupError) as exc:
        raise MarkupError(f"{where}: the generated stub is not valid Python ({exc}); move the region so that it "
                          "holds complete statements") from None
    return text


def _dedented_body(region: Region, lines: list[str]) -> list[str]:
    cut = len(region.indent)
    return [line[cut:] if line.startswith(region.indent) else line for line in region.body_lines(lines)]


def _parse_region(body: list[str], region: Region, where: str) -> ast.Module:
    try:
        tree = ast.parse(python_source("\n".join(body), where))
    except SyntaxError as exc:
        raise MarkupError(f"{where}, line {region.body_start + (exc.lineno or 1)}: the solution region (from line "
                          f"{region.begin + 1}) must hold complete statements: {exc.msg}") from None
    if not tree.body:
        raise MarkupError(f"{where}, line {region.begin + 1}: the solution region has no code")
    return tree


def _tokens(body: list[str]) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO("\n".join(body) + "\n").readline))


def _innermost_scope(tree: ast.Module, line_no: int) -> str:
    """'function' if the statement starting at line_no lies in a function body, else 'module'/'class'."""
    best: ast.AST | None = None
    for node in ast.walk(tree):
        if isinstance(node, _FUNCTIONS + (ast.ClassDef,)) and node.lineno < line_no <= (node.end_lineno or 0):
            if best is None or node.lineno >= best.lineno:
                best = node
    if best is None:
        return "module"
    return "function" if isinstance(best, _FUNCTIONS) else "class"


def _cell_level_stub(stmts: list[ast.stmt], lines: list[str], tokens: list[tokenize.TokenInfo], indent: str,
                     todo: int, hints: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, _FUNCTIONS + (ast.ClassDef,)):
            out += _definition_stub(stmt, lines, tokens, todo, hints)
            seen.add(stmt.name)
            continue
        for name in assigned_names(stmt):
            if name not in seen:
                seen.add(name)
                out.append(f"{indent}{name} = None  # TODO {todo}")
    return out


def _definition_stub(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str],
                     tokens: list[tokenize.TokenInfo], todo: int, hints: tuple[str, ...]) -> list[str]:
    """Decorators, header and docstring as written; the body becomes a stub."""
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    row, col = _header_end(tokens, node.lineno)
    out = lines[start - 1:row - 1] + [lines[row - 1][:col]]
    first = node.body[0]
    own_indent = _leading_space(lines[node.lineno - 1])
    body_indent = _leading_space(lines[first.lineno - 1]) if first.lineno > row else own_indent + "    "
    members = node.body
    if _is_docstring(first):
        if first.lineno > row:
            out += lines[first.lineno - 1:first.end_lineno]
        else:
            out.append(body_indent + repr(first.value.value))
        members = node.body[1:]
    if isinstance(node, ast.ClassDef):
        inner = _cell_level_stub(members, lines, tokens, body_indent, todo, hints)
        if not inner and not _is_docstring(first):
            inner = [body_indent + "..."]
        return out + inner
    return out + [body_indent + line for line in not_implemented(todo, hints)]


def _header_end(tokens: list[tokenize.TokenInfo], def_line: int) -> tuple[int, int]:
    """(row, col) just past the ':' that closes the `def`/`class` header starting on def_line."""
    depth, started = 0, False
    for tok in tokens:
        if tok.start[0] < def_line:
            continue
        if not started:
            started = tok.type == tokenize.NAME and tok.string in ("def", "class")
            continue
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                return tok.end
    raise MarkupError(f"could not find the end of the header that starts on line {def_line}")


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _leading_space(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def assigned_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds with `=`, `+=`, `:=` or `x: T = ...`, outside nested scopes, in order.

    Loop variables, `with ... as` targets and imports are deliberately not included: they are
    incidental to the exercise, and a stub that sets them would only hide mistakes.
    """
    names: list[str] = []

    def target(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                target(element)
        elif isinstance(node, ast.Starred):
            target(node.value)

    def walrus(node: ast.AST | None) -> None:
        if node is None:
            return
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr):
                target(sub.target)

    def visit(node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            walrus(node.value)
            for tgt in node.targets:
                target(tgt)
        elif isinstance(node, ast.AnnAssign):
            walrus(node.value)
            if node.value is not None:
                target(node.target)
        elif isinstance(node, ast.AugAssign):
            walrus(node.value)
            target(node.target)
        elif isinstance(node, _FUNCTIONS + (ast.ClassDef,)):
            names.append(node.name)
        else:
            for field, value in ast.iter_fields(node):
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.stmt):
                            visit(item)
                        elif isinstance(item, (ast.ExceptHandler, ast.match_case)):
                            for inner in item.body:
                                visit(inner)
                        elif isinstance(item, ast.withitem):
                            walrus(item.context_expr)
                elif isinstance(value, ast.expr) and field not in ("target",):
                    walrus(value)

    visit(stmt)
    return names
