"""Recursive-descent parser for the body of `GRAPH_TABLE ( ... )`.

    graph [MATCH] path_pattern [, path_pattern ...]
          [WHERE condition]
          [ONE ROW PER MATCH]
          COLUMNS ( expression [AS name] | var.* [, ...] )

    path_pattern ::= element { element }
    element      ::= ( [var] [IS label_expr] [WHERE condition] )                 vertex
                   | -[spec]-> | <-[spec]- | -[spec]- | <-[spec]-> | -> | <- | - | <->   edge
                     [quantifier]
                   | ( path_pattern [WHERE condition] ) [quantifier]             parenthesized
    quantifier   ::= {n} | {m,n} | {,n} | ?
    label_expr   ::= term { | term } ; term ::= factor { & factor } ;
                     factor ::= label | % | !factor | ( label_expr )

Conditions and column expressions are kept as token lists; `expressions.py` rewrites them.
Constructs outside this subset raise ORA-03001 naming the construct.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .cursor import Cursor
from .errors import (GraphError, INVALID_START_OF_GRAPH_TABLE, MISSING_EXPRESSION, MUST_NAME_EXPRESSION,
                     QUANTIFIED_PATTERN_WITHOUT_EDGE, unsupported)
from .lexer import IDENT, NUMBER, QIDENT, Token, identifier_name, render

MAX_QUANTIFIER = 10   # Oracle's documented upper bound for bounded quantifiers

_PATH_PREFIX_WORDS = ("ANY", "ALL", "SHORTEST", "CHEAPEST", "TOP")
_PATH_MODE_WORDS = ("TRAIL", "ACYCLIC", "SIMPLE")
_CLAUSE_WORDS = ("WHERE", "COLUMNS", "ONE", "KEEP")


@dataclass
class LabelExpr:
    op: str                          # "label" | "or" | "and" | "not" | "any"
    name: str | None = None
    children: list[LabelExpr] = field(default_factory=list)

    def matches(self, labels: set[str]) -> bool:
        if self.op == "label":
            return self.name in labels
        if self.op == "any":
            return bool(labels)
        if self.op == "not":
            return not self.children[0].matches(labels)
        if self.op == "and":
            return all(c.matches(labels) for c in self.children)
        return any(c.matches(labels) for c in self.children)

    def names(self) -> set[str]:
        own = {self.name} if self.op == "label" else set()
        return own.union(*(c.names() for c in self.children)) if self.children else own


@dataclass
class ElementPattern:
    kind: str                        # "vertex" | "edge"
    var: str | None
    label: LabelExpr | None
    where: list[Token] | None
    direction: str | None = None     # edges: "right" | "left" | "any"


@dataclass
class Group:
    """A parenthesized path pattern; `quantified` groups make their variables group variables."""

    items: list[PathItem]
    where: list[Token] | None
    low: int = 1
    high: int = 1
    quantified: bool = False


PathItem = Union[ElementPattern, Group]


@dataclass
class ColumnDef:
    tokens: list[Token]
    alias: str | None
    star_var: str | None = None      # `var.*`


@dataclass
class GraphTableQuery:
    graph_schema: str | None
    graph_name: str
    paths: list[list[PathItem]]
    where: list[Token] | None
    columns: list[ColumnDef]


def parse_graph_table(tokens: list[Token]) -> GraphTableQuery:
    """Parse the tokens between the parentheses of GRAPH_TABLE."""
    cur = Cursor(tokens, "GRAPH_TABLE")
    if not cur.at_identifier() or cur.at_word("MATCH"):
        raise GraphError(INVALID_START_OF_GRAPH_TABLE, "Invalid start of GRAPH_TABLE: expected a graph name and MATCH")
    schema, graph = cur.qualified_name("graph name")
    if not cur.accept_word("MATCH"):
        raise GraphError(INVALID_START_OF_GRAPH_TABLE, "Invalid start of GRAPH_TABLE: expected MATCH after the graph name")
    parser = _PatternParser(cur)
    paths = [parser.path_pattern()]
    while cur.accept_op(","):
        paths.append(parser.path_pattern())
    if cur.at_word("KEEP"):
        raise unsupported("KEEP clause")
    where = None
    if cur.accept_word("WHERE"):
        where = cur.until_close(stop_words=("COLUMNS", "ONE", "KEEP"))
        if not where:
            raise GraphError(MISSING_EXPRESSION, "missing expression after WHERE in GRAPH_TABLE")
    if cur.accept_words("ONE", "ROW", "PER"):
        kind = cur.next().upper
        if kind != "MATCH":
            raise unsupported(f"ONE ROW PER {kind}")
    cur.expect_word("COLUMNS")
    columns = _columns(cur)
    if not cur.at_end():
        raise GraphError(907, f"missing right parenthesis after COLUMNS near \"{cur.peek().text}\"")
    return GraphTableQuery(schema, graph, paths, where, columns)


def _columns(cur: Cursor) -> list[ColumnDef]:
    cur.expect_op("(")
    out = []
    while True:
        tokens = cur.until_close(stop_ops=(",",))
        if not tokens:
            raise GraphError(MISSING_EXPRESSION, "missing expression in COLUMNS")
        out.append(_column(tokens))
        if not cur.accept_op(","):
            break
    cur.expect_op(")")
    return out


def _column(tokens: list[Token]) -> ColumnDef:
    alias = None
    if len(tokens) >= 3 and tokens[-2].is_word("AS") and tokens[-1].kind in (IDENT, QIDENT):
        alias = identifier_name(tokens[-1])
        tokens = tokens[:-2]
    if len(tokens) == 3 and tokens[0].kind in (IDENT, QIDENT) and tokens[1].is_op(".") and tokens[2].is_op("*"):
        if alias is not None:
            raise GraphError(923, "an all-properties reference (var.*) cannot have a column alias")
        return ColumnDef(tokens, None, star_var=identifier_name(tokens[0]))
    is_property = (len(tokens) == 3 and tokens[0].kind in (IDENT, QIDENT) and tokens[1].is_op(".")
                   and tokens[2].kind in (IDENT, QIDENT))
    if alias is None and not is_property:
        raise GraphError(MUST_NAME_EXPRESSION,
                         f"must name this expression with a column alias: COLUMNS ({render(tokens)} AS name)")
    return ColumnDef(tokens, alias)


class _PatternParser:
    def __init__(self, cur: Cursor):
        self.cur = cur

    def path_pattern(self) -> list[PathItem]:
        cur = self.cur
        if cur.at_identifier() and cur.at_op("=", ahead=1):
            raise unsupported(f"path variable {cur.peek().text} =")
        if cur.at_word(*_PATH_PREFIX_WORDS):
            words = [cur.next().upper]
            while cur.at_word(*_PATH_PREFIX_WORDS, "PATH", "PATHS") or (cur.peek() and cur.peek().kind == NUMBER):
                words.append(cur.next().text.upper())
            raise unsupported(f"path search prefix {' '.join(words)}")
        if cur.at_word(*_PATH_MODE_WORDS):
            raise unsupported(f"path mode {cur.peek().upper}")
        if cur.accept_word("WALK"):      # the default mode: homomorphic walks
            cur.accept_word("PATH") or cur.accept_word("PATHS")
        items = self.sequence()
        if not items:
            raise GraphError(MISSING_EXPRESSION, f"missing path pattern in MATCH{cur._near()}")
        return items

    def sequence(self) -> list[PathItem]:
        """Elements up to the end of the path (`,`, a clause keyword, `WHERE` or `)`)."""
        cur = self.cur
        items: list[PathItem] = []
        while not cur.at_end():
            if cur.at_op("("):
                items.append(self.parenthesized())
            elif cur.at_op("-", "<"):
                items.append(self.edge())
            else:
                break
        return items

    def parenthesized(self) -> PathItem:
        cur = self.cur
        cur.expect_op("(")
        if cur.at_op("(", "-", "<"):
            items = self.sequence()
            where = self.where_clause()
            cur.expect_op(")")
            group = Group(items, where)
            return self.quantifier(group, group)
        vertex = ElementPattern("vertex", *self.element_spec())
        cur.expect_op(")")
        if self.at_quantifier():
            raise GraphError(QUANTIFIED_PATTERN_WITHOUT_EDGE,
                             "Edge pattern missing in a quantified path pattern of the MATCH clause of a GRAPH_TABLE operator")
        return vertex

    def edge(self) -> PathItem:
        cur = self.cur
        left_arrow = bool(cur.accept_op("<"))
        cur.expect_op("-")
        if cur.accept_op("["):
            spec = self.element_spec()
            cur.expect_op("]")
            cur.expect_op("-")
            right_arrow = bool(cur.accept_op(">"))
        else:   # abbreviated ->, <-, -, <->
            spec = (None, None, None)
            right_arrow = bool(cur.accept_op(">"))
        direction = {(False, True): "right", (True, False): "left"}.get((left_arrow, right_arrow), "any")
        edge = ElementPattern("edge", *spec, direction=direction)
        return self.quantifier(edge, Group([edge], None))

    def element_spec(self) -> tuple[str | None, LabelExpr | None, list[Token] | None]:
        cur = self.cur
        var = None
        if cur.at_identifier() and not cur.at_word("IS", "WHERE"):
            var = identifier_name(cur.next())
        label = None
        if cur.accept_word("IS"):
            label = self.label_or()
        elif cur.at_op(":"):
            raise unsupported("label syntax ':' (write IS label)")
        return var, label, self.where_clause()

    def where_clause(self) -> list[Token] | None:
        if not self.cur.accept_word("WHERE"):
            return None
        tokens = self.cur.until_close()
        if not tokens:
            raise GraphError(MISSING_EXPRESSION, "missing expression after WHERE in an element pattern")
        return tokens

    def label_or(self) -> LabelExpr:
        terms = [self.label_and()]
        while self.cur.accept_op("|"):
            terms.append(self.label_and())
        return terms[0] if len(terms) == 1 else LabelExpr("or", children=terms)

    def label_and(self) -> LabelExpr:
        factors = [self.label_factor()]
        while self.cur.accept_op("&"):
            factors.append(self.label_factor())
        return factors[0] if len(factors) == 1 else LabelExpr("and", children=factors)

    def label_factor(self) -> LabelExpr:
        cur = self.cur
        if cur.accept_op("!"):
            return LabelExpr("not", children=[self.label_factor()])
        if cur.accept_op("%"):
            return LabelExpr("any")
        if cur.accept_op("("):
            inner = self.label_or()
            cur.expect_op(")")
            return inner
        return LabelExpr("label", name=cur.identifier("label name"))

    def at_quantifier(self) -> bool:
        return self.cur.at_op("{", "?", "*", "+")

    def quantifier(self, plain: PathItem, group: Group) -> PathItem:
        """Attach a quantifier if one follows: the item becomes a quantified group."""
        cur = self.cur
        if not self.at_quantifier():
            return plain
        token = cur.next()
        if token.text in ("*", "+"):
            raise unsupported(f"unbounded quantifier {token.text}")
        if token.text == "?":
            low, high = 0, 1
        else:
            low, high = self.bounds()
        if not any(_has_edge(i) for i in group.items):
            raise GraphError(QUANTIFIED_PATTERN_WITHOUT_EDGE,
                             "Edge pattern missing in a quantified path pattern of the MATCH clause of a GRAPH_TABLE operator")
        if any(isinstance(i, Group) and i.quantified for i in _walk(group.items)):
            raise unsupported("nested quantified path patterns")
        group.low, group.high, group.quantified = low, high, True
        return group

    def bounds(self) -> tuple[int, int]:
        cur = self.cur
        low = int(cur.next().text) if cur.peek() is not None and cur.peek().kind == NUMBER else None
        if cur.accept_op(","):
            if cur.peek() is not None and cur.peek().kind == NUMBER:
                high = int(cur.next().text)
            else:
                cur.expect_op("}")
                raise unsupported(f"unbounded quantifier {{{low},}}")
        else:
            high = low
        cur.expect_op("}")
        low = 0 if low is None else low
        if high is None or high < 1 or low > high:
            raise GraphError(MISSING_EXPRESSION, f"invalid quantifier {{{low},{high}}}: the upper bound must be "
                                                 "at least 1 and not below the lower bound")
        if high > MAX_QUANTIFIER:
            raise unsupported(f"quantifier upper bound {high} (the embedded engine expands at most {MAX_QUANTIFIER})")
        return low, high


def _has_edge(item: PathItem) -> bool:
    if isinstance(item, ElementPattern):
        return item.kind == "edge"
    return any(_has_edge(i) for i in item.items)


def _walk(items: list[PathItem]):
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from _walk(item.items)
