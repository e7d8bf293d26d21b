"""Hints teach: a stub and a first failure name the concept and where to read; the code comes only when the same
kind of failure happens again.

* No `# HINT:` line of a solution region (the stub shows every one) and no first-level hint of a checkpoint (the
  decorator's first level, and the hint of every `fail`/`expect*` call, which a failure shows first) contains a
  run of LEAK_TOKENS consecutive code tokens of a solution region of its notebook: the solution's statement,
  written out.
* Every checkpoint of parts 00-08 has at least two distinct hint levels, and a repeated failure of the same kind
  escalates (the framework shows the failure's own hint, then the checkpoint's more specific levels).

The leak measure is deliberately simple (tokens: names, numbers, single punctuation marks; comments and HINT lines
of the region left out), so a reader can check a flagged hint by eye: the run it prints is in the solution.
"""
from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from checkpoints.framework import CheckpointFailed, checkpoint, escalation, fail
from workshop.config import PROJECT_ROOT

#: A hint that repeats this many consecutive tokens of the solution's code gives the statement away.
LEAK_TOKENS = 10
PARTS = [f"part{n:02d}" for n in range(9)]
_TOKEN = re.compile(r"[a-z_][a-z0-9_]*|\d+(?:\.\d+)?|[^\sa-z0-9_]")
#: Calls whose hint argument a failure shows first, and the position of that argument when it is positional.
_HINT_POSITION = {"fail": 1, "expect": 2, "expect_filled": 2, "expect_queried": 2, "expect_bound": 3,
                  "expect_database_limits": 3, "CheckpointFailed": 1}


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def longest_shared_run(hint: list[str], code: list[str]) -> list[str]:
    """The longest run of consecutive tokens the hint shares with the code (dynamic programming, both short)."""
    best, end, previous = 0, 0, {}
    for i, token in enumerate(hint):
        current = {}
        for j, other in enumerate(code):
            if token == other:
                current[j] = previous.get(j - 1, 0) + 1
                if current[j] > best:
                    best, end = current[j], i + 1
        previous = current
    return hint[end - best:end]


def solution_regions(notebook: Path) -> dict[str, tuple[list[str], str]]:
    """TODO name -> (its HINT lines, its code without comments) from a solution notebook's regions."""
    found: dict[str, tuple[list[str], str]] = {}
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        name, hints, code = None, [], []
        for line in cell.source.splitlines():
            text = line.strip()
            if text.startswith("# BEGIN SOLUTION"):
                name = text.split()[-1]
            elif text.startswith("# END SOLUTION"):
                old_hints, old_code = found.get(name, ([], ""))
                found[name] = (old_hints + hints, old_code + "\n".join(code) + "\n")
                name, hints, code = None, [], []
            elif name and text.startswith("# HINT:"):
                hints.append(text[len("# HINT:"):].strip())
            elif name and not text.startswith("#"):
                code.append(line)
    return found


def _leak(hint: str, regions: dict[str, tuple[list[str], str]]) -> tuple[str, str] | None:
    words = tokens(hint)
    for name, (_, code) in regions.items():
        run = longest_shared_run(words, tokens(code))
        if len(run) >= LEAK_TOKENS:
            return name, " ".join(run)
    return None


# ------------------------------------------------------------------ the stubs' hints

def stub_hints() -> Iterator:
    for notebook in sorted((PROJECT_ROOT / "solutions").glob("*.ipynb")):
        regions = solution_regions(notebook)
        for name, (hints, _) in regions.items():
            for hint in hints:
                yield pytest.param(notebook.name, name, hint, regions, id=f"{notebook.name[:2]}-{name}-{hint[:30]}")


@pytest.mark.parametrize("notebook, todo, hint, regions", list(stub_hints()))
def test_no_stub_hint_writes_out_the_solution(notebook, todo, hint, regions):
    leak = _leak(hint, {todo: regions[todo]})
    assert leak is None, (f"{notebook} TODO {todo}: the stub's hint {hint!r} repeats the solution's code "
                          f"({leak[1]!r}); name the concept and where to read instead, and leave the code to the "
                          "checkpoint's second hint level")


# ------------------------------------------------------------------ the checkpoints' first hints

def _value(node: ast.AST, module) -> list[str]:
    """The first-level hint texts an expression can give (f-string holes become spaces); [] when unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else " " for v in node.values)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, module), _value(node.right, module)
        return [a + b for a in left for b in right] or left or right
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        return _value(node.elts[0], module)
    if isinstance(node, ast.IfExp):
        return _value(node.body, module) + _value(node.orelse, module)
    if isinstance(node, ast.BoolOp):
        return [text for value in node.values for text in _value(value, module)]
    if isinstance(node, ast.Name):
        value = getattr(module, node.id, None)
        if isinstance(value, str):
            return [value]
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], str):
            return [value[0]]
    return []


def _called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


def first_hints(module_name: str) -> list[tuple[int, str]]:
    """(line, text) of every hint a failure of the module's checkpoints shows first."""
    module = importlib.import_module(f"checkpoints.{module_name}")
    tree = ast.parse(Path(module.__file__).read_text())
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        candidates = [k.value for k in node.keywords if k.arg == "hint"]
        position = _HINT_POSITION.get(name)
        if position is not None and len(node.args) > position:
            candidates.append(node.args[position])
        for candidate in candidates:
            found += [(node.lineno, text) for text in _value(candidate, module)]
    return found


def checkpoint_hints() -> Iterator:
    for part in PARTS:
        module = importlib.import_module(f"checkpoints.{part}")
        regions = solution_regions(PROJECT_ROOT / "solutions" / module.NOTEBOOK)
        for line, hint in first_hints(part):
            yield pytest.param(part, line, hint, regions, id=f"{part}:{line}")


@pytest.mark.parametrize("part, line, hint, regions", list(checkpoint_hints()))
def test_no_first_hint_of_a_checkpoint_writes_out_the_solution(part, line, hint, regions):
    leak = _leak(hint, regions)
    assert leak is None, (f"checkpoints/{part}.py line {line}: the first hint {hint!r} repeats the code of TODO "
                          f"{leak[0]} ({leak[1]!r}); a first failure names the concept and where to read, the code "
                          "comes as the next level (hint=(concept, code))")


# ------------------------------------------------------------------ two levels, and escalation

def part_checkpoints() -> Iterator:
    for part in PARTS:
        module = importlib.import_module(f"checkpoints.{part}")
        for name in sorted(vars(module)):
            check = getattr(module, name)
            if name.startswith("check_") and callable(check) and getattr(check, "todo_name", None):
                yield pytest.param(check, id=f"{part}.{name}")


@pytest.mark.parametrize("check", list(part_checkpoints()))
def test_every_checkpoint_has_at_least_two_hint_levels(check):
    levels = list(dict.fromkeys(check.hint_levels))
    assert len(levels) >= 2, f"{check.key}: hint levels {levels}; give hint=(the concept and where to read, the fix)"


@pytest.mark.parametrize("check", list(part_checkpoints()))
def test_a_repeated_failure_of_the_same_kind_escalates(check):
    """The same failure twice in a row shows two different hints, the second one of the checkpoint's own levels;
    a failure of another kind starts again from its first hint. Driven through the checkpoint's own levels and key
    (the check body is the framework's, the levels are the checkpoint's)."""
    escalation.reset()
    own = "the failure's own first hint (the concept)"

    @checkpoint("escalation probe", hint=check.hint_levels)
    def probe(kind: str) -> None:
        if kind == "first":
            fail("the same mistake", own)
        fail("another mistake")

    probe.key = check.key
    shown = []
    for kind in ("first", "first", "other"):
        with pytest.raises(CheckpointFailed) as failure:
            probe(kind)
        shown.append(failure.value.hint)
    assert shown[0] == own and shown[1] != own and shown[1] in check.hint_levels, (check.key, shown)
    assert shown[2] == check.hint_levels[0], (check.key, shown)      # another kind: from its first level
    escalation.reset()
