"""Static check of part 08's OAMP code against the installed oracleagentmemory package (no database, no LLM).

Run it with the OAMP environment's Python (it needs the package; the main .venv does not have it):

    .venv-oamp/bin/python -m workshop.agent_memory.oamp_static          # or /tmp/oamp-venv/bin/python

It reads the OAMP cells of solutions/08_oracle_ai_agent_memory.ipynb (every code cell from the "Oracle AI Agent
Memory" heading on), and checks that every `from oracleagentmemory... import` resolves, every attribute read on
an OAMP name (SearchStrategy.HYBRID, memory.search, thread.add_messages, result.content) exists, and every
keyword argument passed to an OAMP callable is one of its parameters. It prints one line per finding and exits
1 when anything is missing. Stdlib only (plus the package), so it runs in the OAMP environment.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.metadata
import inspect
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "solutions" / "08_oracle_ai_agent_memory.ipynb"
SECTION = "Oracle AI Agent Memory (Oracle"
PACKAGE = "oracleagentmemory"

#: Notebook names bound to OAMP objects (the check reads their attributes): name -> "module:Class".
TYPED_NAMES = {
    "memory": "oracleagentmemory.core:OracleAgentMemory",
    "baseline": "oracleagentmemory.core:OracleAgentMemory",
    "custom": "oracleagentmemory.core:OracleAgentMemory",
    "client": "oracleagentmemory.core:OracleAgentMemory",
    "thread": "oracleagentmemory.core:OracleThread",
    "escalation": "oracleagentmemory.core:OracleThread",
    "tool_thread": "oracleagentmemory.core:OracleThread",
    "result": "oracleagentmemory.core:OracleSearchResult",
    "r": "oracleagentmemory.core:OracleSearchResult",
}
#: Notebook functions that return an OAMP object.
RETURNS = {"make_hybrid_memory": "oracleagentmemory.core:OracleAgentMemory",
           "support_client": "oracleagentmemory.core:OracleAgentMemory"}


@dataclass
class Finding:
    cell: int
    line: int
    message: str

    def __str__(self) -> str:
        return f"cell {self.cell}, line {self.line}: {self.message}"


def oamp_cells(notebook: Path = NOTEBOOK) -> list[tuple[int, str]]:
    """(cell index, source) of the code cells from the OAMP section's heading on."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    start = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                  and SECTION in "".join(c["source"])), None)
    if start is None:
        raise SystemExit(f"{notebook.name}: no markdown heading containing {SECTION!r}")
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if i > start and c["cell_type"] == "code"]


def _load(target: str) -> object:
    module, _, name = target.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, name) if name else obj


def _parameters(callable_: object) -> tuple[set[str], bool]:
    """Its keyword parameter names, and whether it takes **kwargs."""
    try:
        signature = inspect.signature(callable_)
    except (TypeError, ValueError):
        return set(), True
    names = {p.name for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())


def check_source(index: int, source: str, imported: dict[str, object]) -> list[Finding]:
    findings: list[Finding] = []
    tree = compile(source, f"<cell {index}>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
            for alias in node.names:
                try:
                    imported[alias.asname or alias.name] = getattr(importlib.import_module(node.module), alias.name)
                except (ImportError, AttributeError) as exc:
                    findings.append(Finding(index, node.lineno, f"from {node.module} import {alias.name}: {exc}"))
    typed = {name: _load(target) for name, target in TYPED_NAMES.items()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = imported.get(node.value.id) or typed.get(node.value.id)
            if owner is not None and not hasattr(owner, node.attr):
                findings.append(Finding(index, node.lineno, f"{node.value.id}.{node.attr} does not exist "
                                                            f"({getattr(owner, '__name__', owner)})"))
        if isinstance(node, ast.Call):
            target = None
            if isinstance(node.func, ast.Name) and node.func.id in imported:
                target = imported[node.func.id]
            elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                owner = imported.get(node.func.value.id) or typed.get(node.func.value.id)
                target = getattr(owner, node.func.attr, None) if owner is not None else None
            if target is None or not callable(target):
                continue
            names, var_kw = _parameters(target.__init__ if inspect.isclass(target) else target)
            for keyword in node.keywords:
                if keyword.arg and not var_kw and keyword.arg not in names:
                    findings.append(Finding(index, keyword.value.lineno,
                                            f"{ast.unparse(node.func)}(... {keyword.arg}=...) is not a parameter"))
    return findings


def run(notebook: Path = NOTEBOOK) -> tuple[list[Finding], int]:
    """All findings, and how many API uses were looked at (imports + attributes + keywords)."""
    imported: dict[str, object] = {}
    findings: list[Finding] = []
    cells = oamp_cells(notebook)
    uses = 0
    for index, source in cells:
        findings += check_source(index, source, imported)
        tree = compile(source, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        uses += sum(1 for n in ast.walk(tree) if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and (n.value.id in imported or n.value.id in TYPED_NAMES)) or isinstance(n, ast.ImportFrom))
    return findings, uses


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK)
    parser.add_argument("--quiet-ok", action="store_true", help="print only the summary line when all is well")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        print(f"{PACKAGE} is not installed in {sys.executable}: run scripts/setup_oamp_env.sh and use its Python")
        return 2
    findings, uses = run(args.notebook)
    for finding in findings:
        print(f"MISSING {finding}")
    status = "FAIL" if findings else "OK"
    print(f"oamp static check {status}: {PACKAGE} {version}, {args.notebook.name}, {uses} API uses checked, "
          f"{len(findings)} missing")
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
