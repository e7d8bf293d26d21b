"""Turn a parsed graph pattern into fixed-shape join branches.

Bounded quantifiers are unrolled: each combination of iteration counts becomes one *variant*,
a set of plain chains of vertex and edge bindings. Element patterns that must bind the same
element (a repeated variable, two adjacent vertex patterns, the two ends of a zero-length
quantified path) are merged into one *node*. Each variant is then expanded into *branches*:
one per choice of element table for every node and of orientation for every any-direction edge.
The union of all branches is exactly the set of pattern matches (homomorphism semantics), so the
compiler can emit `UNION ALL` without DISTINCT.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .errors import GROUP_VARIABLES_SAME_NAME, GraphError, INVALID_IDENTIFIER, unsupported
from .lexer import Token
from .model import ElementTable, GraphDef
from .pattern import ElementPattern, Group, GraphTableQuery, LabelExpr, PathItem

MAX_BRANCHES = 500   # SQLite's default limit on the terms of one compound SELECT
MAX_JOINED_TABLES = 64   # SQLite's limit on the tables of one join


@dataclass(frozen=True)
class Single:
    node: int


@dataclass(frozen=True)
class GroupBinding:
    nodes: tuple[int, ...]   # one node per iteration, in path order


Binding = Single | GroupBinding


@dataclass
class Condition:
    """An element-pattern or parenthesized-pattern WHERE with the variables it can see."""

    tokens: list[Token]
    scope: dict[str, Binding]
    in_quantifier: bool


@dataclass
class Node:
    id: int
    kind: str
    var: str | None
    labels: list[LabelExpr] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    candidates: list[ElementTable] = field(default_factory=list)


@dataclass
class Step:
    """One edge occurrence between two vertex nodes, as written (left to right)."""

    edge: int
    left: int
    right: int
    direction: str


@dataclass
class Variant:
    nodes: dict[int, Node]
    order: list[int]                       # nodes by first appearance
    steps: list[Step]
    scope: dict[str, Binding]              # for the graph WHERE and COLUMNS
    conditions: list[Condition]            # parenthesized-pattern WHERE clauses


@dataclass
class Branch:
    variant: Variant
    tables: dict[int, ElementTable]
    orientations: list[str]                # per step: "forward" (left is source) | "reverse" | "either"


@dataclass
class _Occurrence:
    key: tuple
    kind: str
    pattern: ElementPattern | None         # None for an implicit anonymous vertex


class _UnionFind:
    def __init__(self):
        self.parent: dict[int, int] = {}

    def add(self, x: int) -> None:
        self.parent.setdefault(x, x)

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def group_variables(query: GraphTableQuery) -> dict[str, int]:
    """Variables declared inside quantified groups, mapped to the group's index."""
    owners: dict[str, int] = {}
    singles: set[str] = set()
    groups = [g for path in query.paths for g in _groups(path) if g.quantified]
    for index, group in enumerate(groups):
        for element in elements(group.items):
            if element.var is None:
                continue
            if owners.get(element.var, index) != index:
                raise GraphError(GROUP_VARIABLES_SAME_NAME,
                                 f"Group variables contained in different quantified path patterns have the same name: {element.var}")
            owners[element.var] = index
    for path in query.paths:
        for element in elements(path, skip_quantified=True):
            if element.var is not None:
                singles.add(element.var)
    clash = singles & owners.keys()
    if clash:
        raise GraphError(GROUP_VARIABLES_SAME_NAME,
                         f"variable {sorted(clash)[0]} is used both inside and outside a quantified path pattern")
    return owners


def variants(query: GraphTableQuery) -> list[Variant]:
    """Every unrolling of the quantifiers (one variant for an unquantified pattern)."""
    groups = [g for path in query.paths for g in _groups(path) if g.quantified]
    counts = [range(g.low, g.high + 1) for g in groups]
    total = 1
    for c in counts:
        total *= len(c)
    if total > MAX_BRANCHES:
        raise unsupported(f"quantifiers expanding to {total} path shapes (the embedded engine allows {MAX_BRANCHES})")
    group_vars = group_variables(query)
    return [_build_variant(query, dict(zip(map(id, groups), combo)), group_vars)
            for combo in itertools.product(*counts)]


def _groups(items: list[PathItem]):
    for item in items:
        if isinstance(item, Group):
            yield item
            yield from _groups(item.items)


def elements(items: list[PathItem], skip_quantified: bool = False):
    for item in items:
        if isinstance(item, ElementPattern):
            yield item
        elif not (skip_quantified and item.quantified):
            yield from elements(item.items, skip_quantified)


class _VariantBuilder:
    def __init__(self, counts: dict[int, int], group_vars: dict[str, int]):
        self.counts = counts
        self.group_vars = group_vars
        self.occurrences: list[_Occurrence] = []
        self.uf = _UnionFind()
        self.key_first: dict[tuple, int] = {}
        self.iterations: dict[str, list[int]] = {}     # group var -> occurrence per iteration
        self.pending: list[tuple[int, list[Token], dict[str, tuple], bool]] = []   # element WHERE
        self.group_conditions: list[tuple[list[Token], dict[str, tuple], bool]] = []
        self.steps: list[tuple[int, int, int, str]] = []
        self.uid = itertools.count()

    def occurrence(self, key: tuple, kind: str, pattern: ElementPattern | None) -> int:
        index = len(self.occurrences)
        self.occurrences.append(_Occurrence(key, kind, pattern))
        self.uf.add(index)
        if key in self.key_first:
            self.uf.union(self.key_first[key], index)
        else:
            self.key_first[key] = index
        return index

    def chain(self, items: list[PathItem], iteration: dict[str, tuple] | None, in_quantifier: bool) -> list[int]:
        """Flatten items into occurrence indexes; `iteration` maps this iteration's group vars to keys."""
        out: list[int] = []
        for item in items:
            if isinstance(item, ElementPattern):
                out.append(self.element(item, iteration, in_quantifier))
                continue
            repeats = self.counts[id(item)] if item.quantified else 1
            for _ in range(repeats):
                inner = dict(iteration or {})
                if item.quantified:
                    uid = next(self.uid)
                    for element in elements(item.items):
                        if element.var is not None:
                            inner[element.var] = ("group", element.var, uid)
                body = self.chain(item.items, inner, in_quantifier or item.quantified)
                if item.where is not None:
                    self.group_conditions.append((item.where, inner, in_quantifier or item.quantified))
                out.extend(body)
        return out

    def element(self, pattern: ElementPattern, iteration: dict[str, tuple] | None, in_quantifier: bool) -> int:
        if pattern.var is None:
            key = ("anon", next(self.uid))
        elif iteration and pattern.var in iteration:
            key = iteration[pattern.var]
        else:
            key = ("single", pattern.var)
        index = self.occurrence(key, pattern.kind, pattern)
        if key[0] == "group":
            self.iterations.setdefault(pattern.var, [])
            if not any(self.occurrences[o].key == key for o in self.iterations[pattern.var]):
                self.iterations[pattern.var].append(index)
        if pattern.where is not None:
            self.pending.append((index, pattern.where, dict(iteration or {}), in_quantifier))
        return index

    def link(self, chain: list[int]) -> None:
        """Insert implicit vertices between edges, merge adjacent vertices, record edge steps."""
        normalized: list[int] = []
        for index in chain:
            kind = self.occurrences[index].kind
            if not normalized or self.occurrences[normalized[-1]].kind == "edge":
                if kind == "edge":
                    normalized.append(self.occurrence(("anon", next(self.uid)), "vertex", None))
                normalized.append(index)
            elif kind == "vertex":          # vertex after vertex: the same vertex
                self.uf.union(normalized[-1], index)
            else:
                normalized.append(index)
        if normalized and self.occurrences[normalized[-1]].kind == "edge":
            normalized.append(self.occurrence(("anon", next(self.uid)), "vertex", None))
        for k in range(1, len(normalized), 2):
            edge = normalized[k]
            self.steps.append((edge, normalized[k - 1], normalized[k + 1],
                               self.occurrences[edge].pattern.direction))


def _build_variant(query: GraphTableQuery, counts: dict[int, int], group_vars: dict[str, int]) -> Variant:
    builder = _VariantBuilder(counts, group_vars)
    for path in query.paths:
        builder.link(builder.chain(path, None, False))
    occ = builder.occurrences
    find = builder.uf.find

    nodes: dict[int, Node] = {}
    order: list[int] = []
    for index, o in enumerate(occ):
        root = find(index)
        if root not in nodes:
            nodes[root] = Node(root, o.kind, None)
            order.append(root)
        node = nodes[root]
        if node.kind != o.kind:
            name = o.pattern.var if o.pattern else "?"
            raise GraphError(INVALID_IDENTIFIER,
                             f"variable {name} is used both as a vertex variable and as an edge variable")
        if o.pattern is not None:
            if o.pattern.label is not None:
                node.labels.append(o.pattern.label)
            if o.pattern.var is not None and node.var is None:
                node.var = o.pattern.var

    def resolve(keys: dict[str, tuple]) -> dict[str, Binding]:
        return {var: Single(find(builder.key_first[key])) for var, key in keys.items() if key in builder.key_first}

    singles = {key[1]: Single(find(first)) for key, first in builder.key_first.items() if key[0] == "single"}
    groups = {var: GroupBinding(tuple(find(o) for o in builder.iterations.get(var, [])))
              for var in group_vars}
    scope: dict[str, Binding] = {**singles, **groups}

    for index, tokens, iteration, in_quantifier in builder.pending:
        local = {**singles, **resolve(iteration)}
        nodes[find(index)].conditions.append(Condition(tokens, local, in_quantifier))
    conditions = [Condition(tokens, {**singles, **resolve(iteration)}, in_quantifier)
                  for tokens, iteration, in_quantifier in builder.group_conditions]
    steps = [Step(find(e), find(l), find(r), d) for e, l, r, d in builder.steps]
    if len(order) > MAX_JOINED_TABLES:
        raise unsupported(f"a path shape joining {len(order)} element tables (the embedded engine joins at most "
                          f"{MAX_JOINED_TABLES})")
    return Variant(nodes, order, steps, scope, conditions)


def assign_candidates(variant: Variant, graph: GraphDef) -> None:
    """Element tables each node may bind to, after its label expressions."""
    for node in variant.nodes.values():
        tables = graph.vertex_tables if node.kind == "vertex" else graph.edge_tables
        node.candidates = [t for t in tables if all(l.matches(t.label_names()) for l in node.labels)]


def branches(variant: Variant, limit: int = MAX_BRANCHES) -> list[Branch]:
    """All consistent (table assignment, orientation) combinations of a variant (at most `limit`)."""
    out: list[Branch] = []
    order = variant.order
    steps_by_node: dict[int, list[int]] = {}
    for k, step in enumerate(variant.steps):
        for n in (step.edge, step.left, step.right):
            steps_by_node.setdefault(n, []).append(k)
    position = {n: k for k, n in enumerate(order)}

    def options(step: Step, tables: dict[int, ElementTable]) -> list[str]:
        edge, left, right = tables[step.edge], tables[step.left], tables[step.right]
        forward = edge.source.vertex_table == left.name and edge.destination.vertex_table == right.name
        backward = edge.destination.vertex_table == left.name and edge.source.vertex_table == right.name
        if step.direction == "right":
            return ["forward"] if forward else []
        if step.direction == "left":
            return ["reverse"] if backward else []
        if edge.source.vertex_table == edge.destination.vertex_table:
            # One join whose condition accepts both readings: a self-loop then matches once,
            # any other edge once per orientation, and the branch count does not double.
            return ["either"] if forward else []
        return ["forward"] if forward else (["reverse"] if backward else [])

    def search(k: int, tables: dict[int, ElementTable]) -> None:
        if k == len(order):
            per_step = [options(s, tables) for s in variant.steps]
            for combo in itertools.product(*per_step):
                out.append(Branch(variant, dict(tables), list(combo)))
                if len(out) > limit:
                    raise unsupported(f"a pattern expanding to more than {MAX_BRANCHES} join branches")
            return
        node = variant.nodes[order[k]]
        for table in node.candidates:
            tables[node.id] = table
            ok = True
            for s in steps_by_node.get(node.id, []):
                step = variant.steps[s]
                if all(position[n] <= k for n in (step.edge, step.left, step.right)) and not options(step, tables):
                    ok = False
                    break
            if ok:
                search(k + 1, tables)
            del tables[node.id]

    search(0, {})
    return out
