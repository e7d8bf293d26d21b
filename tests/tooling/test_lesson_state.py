"""Lesson code keeps no module-level mutable state that outlives `reset_part` (issue 21, friction 1).

A notebook's setup cell calls `reset_part(n)` so that "Run All" works again in the same kernel. Part 04 broke
that: its fact mirrors lived in a module global (`workshop.knowledge.facts._MIRRORS`) that the reset did not
clear. These tests scan the lesson packages (AST) for module-level mutable objects -- dict/list/set displays and
comprehensions, calls of mutable container types, `functools.cache`/`lru_cache` on module functions, mutable
class attributes, `global` statements -- and require each one to be either registered with
`workshop.lesson_state` (so `reset_part` clears it) or listed in CONSTANTS with the reason it is never mutated
(checked too: a constant that some lesson code mutates fails).
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

from workshop import lesson_state
from workshop.config import PROJECT_ROOT

LESSON_PACKAGES = ("memory", "retrieval", "knowledge", "pipeline", "evaluation", "harness", "agent_memory")
MUTABLE_CALLS = {"dict", "list", "set", "bytearray", "defaultdict", "OrderedDict", "deque", "Counter", "ChainMap",
                 "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "count", "local"}
CACHE_DECORATORS = {"cache", "lru_cache", "cached_property"}
MUTATING_METHODS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
                    "add", "discard", "sort", "reverse", "appendleft", "extendleft", "__setitem__", "__delitem__",
                    "difference_update", "intersection_update", "symmetric_difference_update"}

#: Module-level mutable objects that are constants: tables of the lesson, never changed after import. Name ->
#: why it is a constant. (Making them tuples / MappingProxyType would touch the notebooks that index them.)
CONSTANTS = {
    "workshop.memory.context.SECTIONS": "the section titles of a built context",
    "workshop.memory.overview.MEMORY_TYPES": "part 03's table of memory types, shown once",
    "workshop.memory.overview.OPERATIONS": "part 03's table of operations, shown once",
    "workshop.memory.stores.STORE_TABLES": "store name -> table name",
    "workshop.memory.tools._OPERATORS": "AST operator -> function of the calculator tool",
    "workshop.retrieval.keywords.JOINERS": "operator name -> Oracle Text joiner",
    "workshop.pipeline.query.THESAURUS": "the rule-based expansions of stage 1",
    "workshop.pipeline.query.COLLECTION_WORDS": "words -> collection of stage 1",
    "workshop.pipeline.query.TOKEN_BUDGETS": "intent -> token budget",
    "workshop.evaluation.ablation.COLUMNS": "metric -> column name of the ablation table",
    "workshop.evaluation.metrics.METRICS": "metric name -> function",
    "workshop.evaluation.strategies.STRATEGIES": "strategy name -> function",
    "workshop.harness.identity.CASES": "part 07's authored cases of the RLS demo",
    "workshop.harness.memory.MEMORY_TOOL_SCHEMAS": "the memory tools' JSON schemas",
    "workshop.harness.runlog._SECRET_VALUES": "the redaction patterns",
    "workshop.agent_memory.conversation._META": "the metadata every message of the conversation inherits",
    "workshop.agent_memory.conversation._TOOL_META": "the metadata of the tool message",
    "workshop.agent_memory.conversation.SUPPORT_CONVERSATION": "part 08's authored conversation",
    "workshop.agent_memory.evaluation.MEMORIES": "part 08's authored memories",
    "workshop.agent_memory.evaluation.OTHER_USER_MEMORIES": "part 08's authored memories of another user",
    "workshop.agent_memory.evaluation.QUERIES": "part 08's five evaluation queries",
    "workshop.agent_memory.oamp_static.TYPED_NAMES": "the OAMP API names the static check knows",
    "workshop.agent_memory.oamp_static.RETURNS": "the OAMP API return types the static check knows",
}

#: State held per live object and weakly keyed, so it goes with its object (a closed session): name -> why a reset
#: must not clear it. Checked: each is a Weak* container.
PER_OBJECT = {
    "workshop.harness.identity._LOCKS": "one lock per live session, weakly keyed by the connection: it goes with "
                                        "the session, and clearing it while a tool holds a lock would let two "
                                        "tools bind one session at once",
}


def _call_name(node: ast.AST) -> str:
    return ast.unparse(node.func if isinstance(node, ast.Call) else node).split(".")[-1]


#: Calls whose value differs per import: a module global made with one is state of the kernel, like a cache.
PER_IMPORT_CALLS = {"uuid1", "uuid4", "time", "time_ns", "monotonic", "now", "utcnow", "today", "random", "randint",
                    "token_hex", "urandom"}


def _is_mutable(value: ast.AST | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if value is not None and any(isinstance(n, ast.Call) and _call_name(n) in PER_IMPORT_CALLS
                                 for n in ast.walk(value)):
        return True
    return isinstance(value, ast.Call) and _call_name(value) in MUTABLE_CALLS


def _assigned(node: ast.AST) -> list[str]:
    """Names bound by a module- or class-level assignment of a mutable value."""
    if isinstance(node, ast.Assign) and _is_mutable(node.value):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and _is_mutable(node.value):
        targets = [node.target]
    else:
        return []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def module_state(source: str, module: str) -> list[str]:
    """The module-level mutable objects of a module's source, as `module.name` (`module.Class.name`)."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in tree.body:
        found += [f"{module}.{name}" for name in _assigned(node) if name != "__all__"]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any(_call_name(d) in CACHE_DECORATORS for d in node.decorator_list):
                found.append(f"{module}.{node.name}")
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                found += [f"{module}.{node.name}.{name}" for name in _assigned(item)]
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                        _call_name(d) in CACHE_DECORATORS for d in item.decorator_list):
                    found.append(f"{module}.{node.name}.{item.name}")
    found += [f"{module}.{name}" for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names]
    return list(dict.fromkeys(found))


def mutated_names(source: str) -> set[str]:
    """Names (or attribute names) that a source changes in place: item assignment or deletion, augmented
    assignment, or a call of a mutating method."""
    names: set[str] = set()

    def base(node: ast.AST) -> str | None:
        while isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        return None

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) or isinstance(node, ast.AugAssign):
                    names.add(base(target) or "")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATING_METHODS:
            names.add(base(node.func.value) or "")
    return names - {""}


def lesson_modules() -> dict[str, Path]:
    modules = {}
    for package in LESSON_PACKAGES:
        folder = PROJECT_ROOT / "workshop" / package
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def lesson_state_found() -> list[str]:
    return [name for module, path in lesson_modules().items()
            for name in module_state(path.read_text(encoding="utf-8"), module)]


def _import_lessons() -> None:
    for package in LESSON_PACKAGES:
        pkg = importlib.import_module(f"workshop.{package}")
        for info in pkgutil.walk_packages(pkg.__path__, f"workshop.{package}."):
            importlib.import_module(info.name)


# ---------------------------------------------------------------- the scanner itself: what counts as state
SCANNER_CASES = [
    ("dict display", "_MIRRORS = {}", ["m._MIRRORS"]),
    ("annotated dict", "_MIRRORS: dict[str, int] = {}", ["m._MIRRORS"]),
    ("list display", "seen = []", ["m.seen"]),
    ("set comprehension", "S = {x for x in 'ab'}", ["m.S"]),
    ("defaultdict", "import collections\n_C = collections.defaultdict(list)", ["m._C"]),
    ("dict() call", "_C = dict()", ["m._C"]),
    ("a counter", "import itertools\n_IDS = itertools.count()", ["m._IDS"]),
    ("lru_cache", "import functools\n@functools.lru_cache(maxsize=None)\ndef f(x):\n    return x", ["m.f"]),
    ("cache", "from functools import cache\n@cache\ndef f(x):\n    return x", ["m.f"]),
    ("class attribute", "class A:\n    registry = {}", ["m.A.registry"]),
    ("a global statement", "n = 0\ndef bump():\n    global n\n    n += 1", ["m.n"]),
    ("an id drawn at import", "import uuid\nRUN_ID = uuid.uuid4().hex[:8]", ["m.RUN_ID"]),
    ("a timestamp taken at import", "import time\nSTARTED = time.time()", ["m.STARTED"]),
    ("tuple: a constant", "T = (1, 2)", []),
    ("frozenset: a constant", "F = frozenset({'a'})", []),
    ("a compiled pattern", "import re\nP = re.compile('x')", []),
    ("__all__", "__all__ = ['a']", []),
    ("a local dict", "def f():\n    d = {}\n    return d", []),
]


@pytest.mark.parametrize("source, expected", [c[1:] for c in SCANNER_CASES], ids=[c[0] for c in SCANNER_CASES])
def test_the_scanner_finds_module_level_state(source, expected):
    assert module_state(source, "m") == expected


MUTATION_CASES = [
    ("item assignment", "X['a'] = 1", {"X"}),
    ("item deletion", "del X['a']", {"X"}),
    ("augmented", "X += [1]", {"X"}),
    ("append", "X.append(1)", {"X"}),
    ("update through a module", "import m\nm.X.update(a=1)", {"X"}),
    ("nested item", "X['a']['b'] = 1", {"X"}),
    ("reading only", "y = X['a'] + len(X)", set()),
    ("rebinding a local name", "X = {}", set()),
]


@pytest.mark.parametrize("source, expected", [c[1:] for c in MUTATION_CASES], ids=[c[0] for c in MUTATION_CASES])
def test_the_mutation_scan(source, expected):
    assert mutated_names(source) == expected


# ---------------------------------------------------------------- the lesson code
def test_every_module_level_mutable_object_is_registered_or_a_constant():
    _import_lessons()
    registered = {s.name for s in lesson_state.registered()}
    unknown = [name for name in lesson_state_found()
               if name not in registered and name not in CONSTANTS and name not in PER_OBJECT]
    assert not unknown, (
        "module-level mutable state in lesson code that reset_part does not clear: " + ", ".join(unknown) +
        ". Register it with workshop.lesson_state.register(__name__, name, parts=(n,), clear=...) so reset_part(n) "
        "clears it, or, if it is a constant nobody changes, add it to CONSTANTS in this file with the reason")


def test_the_registry_and_the_constants_name_objects_that_exist():
    _import_lessons()
    found = set(lesson_state_found())
    stale = [n for n in [*CONSTANTS, *PER_OBJECT, *(s.name for s in lesson_state.registered())] if n not in found]
    assert not stale, f"listed but not found by the scan (renamed or removed?): {stale}"


@pytest.mark.parametrize("name", sorted(PER_OBJECT))
def test_per_object_state_is_weakly_keyed(name):
    module, attribute = name.rsplit(".", 1)
    value = getattr(importlib.import_module(module), attribute)
    assert type(value).__name__ in ("WeakKeyDictionary", "WeakValueDictionary", "WeakSet"), \
        f"{name} is listed as per-object state but holds its objects strongly: register it with lesson_state"


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_a_constant_is_never_changed_by_lesson_code(name):
    short = name.rsplit(".", 1)[1]
    changed_in = [module for module, path in lesson_modules().items()
                  if short in mutated_names(path.read_text(encoding="utf-8"))]
    assert not changed_in, f"{name} is listed as a constant but {changed_in} change it in place: register it"


def test_the_fact_mirrors_are_registered_for_part_04():
    from workshop.knowledge import facts
    state = {s.name: s for s in lesson_state.registered()}["workshop.knowledge.facts._MIRRORS"]
    assert state.parts == (4,)
    facts.add_mirror("store:PROBE", lambda written: None)
    lesson_state.clear_for_part(7)
    assert "store:PROBE" in facts._MIRRORS                      # another part's reset leaves them
    assert "workshop.knowledge.facts._MIRRORS" in lesson_state.clear_for_part(4)
    assert facts._MIRRORS == {}


def test_reset_part_clears_the_registered_state(tmp_path, monkeypatch):
    """Behaviour, not registration: reset_part(4) on a database forgets a mirror registered before it."""
    from workshop.embedded import connect
    from workshop.knowledge import facts
    from workshop.reset import reset_part
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    calls = []
    facts.add_mirror("store:PROBE", calls.append)
    conn = connect(tmp_path / "empty.db")
    try:
        reset_part(4, conn, log=None)
        facts.create_facts_table(conn)
        facts.write_facts(conn, [facts.Fact("table", "FINANCE.PROBE", "a probe")])
    finally:
        conn.close()
        facts._MIRRORS.clear()
    assert calls == [], "a mirror registered before reset_part(4) still received the write"


def test_registering_needs_a_part():
    with pytest.raises(ValueError, match="which parts"):
        lesson_state.register("m", "x", parts=(), clear=lambda: None)


def test_part_08_draws_a_new_run_id_when_it_is_reset(monkeypatch):
    """OAMP thread ids carry RUN_ID so that a rerun never meets the previous run's threads; a rerun in the same
    kernel kept the first id."""
    from workshop.agent_memory import oamp
    monkeypatch.delenv("OAMP_RUN_ID", raising=False)
    first = oamp.RUN_ID
    lesson_state.clear_for_part(8)
    assert oamp.RUN_ID != first and len(oamp.RUN_ID) == 8
    monkeypatch.setenv("OAMP_RUN_ID", "pinned01")
    lesson_state.clear_for_part(8)
    assert oamp.RUN_ID == "pinned01"
