"""CREATE / DROP PROPERTY GRAPH parsing into a `GraphDef` (Oracle AI Database 26ai syntax).

    CREATE [OR REPLACE] PROPERTY GRAPH [IF NOT EXISTS] [schema.]graph
      VERTEX TABLES ( vertex_table [, ...] )
      [ EDGE TABLES ( edge_table [, ...] ) ]
      [ OPTIONS ( TRUSTED MODE ) ]

    vertex_table ::= [schema.]table [AS name] [KEY (col, ...)] [labels_and_properties]
    edge_table   ::= [schema.]table [AS name] [KEY (col, ...)]
                     SOURCE KEY (col, ...) REFERENCES vertex_name [(col, ...)]
                     DESTINATION KEY (col, ...) REFERENCES vertex_name [(col, ...)]
                     [labels_and_properties]
    labels_and_properties ::= properties
                            | { LABEL name [properties] | DEFAULT LABEL [properties] } ...
    properties ::= PROPERTIES [ARE] ALL COLUMNS [EXCEPT (col, ...)]
                 | PROPERTIES ( col | col AS name | expression AS name [, ...] )
                 | NO PROPERTIES

Without a LABEL clause an element table gets one label named after the element table; without
a properties clause a label exposes all columns. Keys left out are taken from the table's
primary key (`primary_key_of`), as Oracle does.
"""
from __future__ import annotations

from typing import Callable, Sequence

from .cursor import Cursor
from .errors import (CANNOT_INFER_EDGE_RELATIONSHIP, CANNOT_INFER_KEY, DUPLICATE_COLUMN_NAME,
                     ELEMENT_TABLE_ALREADY_DEFINED, GraphError, INVALID_IDENTIFIER, MISSING_KEYWORD,
                     MUST_NAME_EXPRESSION, REFERENCING_COLUMNS_MISMATCH, TABLE_OR_VIEW_DOES_NOT_EXIST,
                     unsupported_ddl)
from .lexer import IDENT, QIDENT, Token, identifier_name, render, tokenize
from .model import DropGraph, EdgeEnd, ElementTable, GraphDef, Label, Property

ColumnsOf = Callable[[str], Sequence[str]]
PrimaryKeyOf = Callable[[str], Sequence[str]]

_WHAT = "CREATE PROPERTY GRAPH"


def parse_create_property_graph(sql: str, columns_of: ColumnsOf,
                                primary_key_of: PrimaryKeyOf | None = None) -> GraphDef:
    """Parse and validate a CREATE PROPERTY GRAPH statement.

    `columns_of(table)` returns the table's column names (raise or return nothing for an unknown
    table); `primary_key_of(table)` returns its primary-key columns and is needed only for element
    tables written without KEY.
    """
    cur = Cursor(_strip_semicolon(tokenize(sql)), _WHAT)
    cur.expect_word("CREATE")
    or_replace = cur.accept_words("OR", "REPLACE")
    cur.expect_word("PROPERTY")
    cur.expect_word("GRAPH")
    if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
    if or_replace and if_not_exists:
        raise GraphError(11541, "REPLACE and IF NOT EXISTS cannot coexist in the same DDL statement")
    schema, name = cur.qualified_name("graph name")
    parser = _DdlParser(cur, _ColumnCatalog(columns_of, primary_key_of))
    cur.expect_word("VERTEX")
    cur.expect_word("TABLES")
    vertices = parser.element_list("vertex", [])
    edges: list[ElementTable] = []
    if cur.accept_word("EDGE"):
        cur.expect_word("TABLES")
        edges = parser.element_list("edge", vertices)
    if cur.accept_word("OPTIONS"):
        options = _options(cur)
        if options not in ("TRUSTED MODE",):
            raise unsupported_ddl(f"OPTIONS ({options})")
    if not cur.at_end():
        raise GraphError(933, f"SQL command not properly ended near \"{cur.peek().text}\"")
    graph = GraphDef(name=name, schema=schema, vertex_tables=vertices, edge_tables=edges,
                     or_replace=or_replace, if_not_exists=if_not_exists)
    _check_unique_element_names(graph)
    return graph


def parse_drop_property_graph(sql: str) -> DropGraph:
    """Parse `DROP PROPERTY GRAPH [IF EXISTS] [schema.]name`."""
    cur = Cursor(_strip_semicolon(tokenize(sql)), "DROP PROPERTY GRAPH")
    cur.expect_word("DROP")
    cur.expect_word("PROPERTY")
    cur.expect_word("GRAPH")
    if_exists = cur.accept_words("IF", "EXISTS")
    schema, name = cur.qualified_name("graph name")
    if not cur.at_end():
        raise GraphError(933, f"SQL command not properly ended near \"{cur.peek().text}\"")
    return DropGraph(name=name, schema=schema, if_exists=if_exists)


def _strip_semicolon(tokens: list[Token]) -> list[Token]:
    return tokens[:-1] if tokens and tokens[-1].is_op(";") else tokens


def _options(cur: Cursor) -> str:
    cur.expect_op("(")
    words = cur.until_close()
    cur.expect_op(")")
    return " ".join(t.upper for t in words)


class _ColumnCatalog:
    """Column lists and primary keys of the underlying tables, looked up once each."""

    def __init__(self, columns_of: ColumnsOf, primary_key_of: PrimaryKeyOf | None):
        self._columns_of = columns_of
        self._primary_key_of = primary_key_of
        self._cache: dict[str, list[str]] = {}

    def columns(self, table: str) -> list[str]:
        if table not in self._cache:
            columns = list(self._columns_of(table) or [])
            if not columns:
                raise GraphError(TABLE_OR_VIEW_DOES_NOT_EXIST, f"table or view \"{table}\" does not exist")
            self._cache[table] = columns
        return self._cache[table]

    def resolve(self, table: str, name: str) -> str | None:
        """The table's spelling of column `name`: exact match first, then a unique case-insensitive one."""
        columns = self.columns(table)
        if name in columns:
            return name
        folded = [c for c in columns if c.upper() == name.upper()]
        return folded[0] if len(folded) == 1 else None

    def column(self, table: str, name: str) -> str:
        found = self.resolve(table, name)
        if found is None:
            raise GraphError(INVALID_IDENTIFIER, f"\"{name}\": invalid identifier (no such column in table \"{table}\")")
        return found

    def primary_key(self, table: str) -> list[str]:
        if self._primary_key_of is None:
            return []
        return [self.column(table, c) for c in self._primary_key_of(table) or []]


class _DdlParser:
    def __init__(self, cur: Cursor, catalog: _ColumnCatalog):
        self.cur = cur
        self.catalog = catalog

    def element_list(self, kind: str, vertices: list[ElementTable]) -> list[ElementTable]:
        self.cur.expect_op("(")
        out = [self.element(kind, vertices)]
        while self.cur.accept_op(","):
            out.append(self.element(kind, vertices))
        self.cur.expect_op(")")
        return out

    def element(self, kind: str, vertices: list[ElementTable]) -> ElementTable:
        cur = self.cur
        schema, table = cur.qualified_name(f"{kind} table name")
        self.catalog.columns(table)
        name = cur.identifier("element table name") if cur.accept_word("AS") else table
        key = self.column_list(table) if cur.accept_word("KEY") else None
        source = destination = None
        if kind == "edge":
            source = self.edge_end("SOURCE", name, table, vertices)
            destination = self.edge_end("DESTINATION", name, table, vertices)
        labels = self.labels_and_properties(name, table)
        if key is None:
            key = self.catalog.primary_key(table)
            if not key:
                raise GraphError(CANNOT_INFER_KEY, f"cannot infer key for graph element table {name}: "
                                                   "table has no primary key; add KEY (column, ...)")
        _check_property_consistency(name, labels)
        return ElementTable(name=name, table=table, schema=schema, kind=kind, key=key, labels=labels,
                            source=source, destination=destination)

    def column_list(self, table: str) -> list[str]:
        cur = self.cur
        cur.expect_op("(")
        columns = [self.catalog.column(table, cur.identifier("column name"))]
        while cur.accept_op(","):
            columns.append(self.catalog.column(table, cur.identifier("column name")))
        cur.expect_op(")")
        return columns

    def edge_end(self, which: str, edge_name: str, edge_table: str, vertices: list[ElementTable]) -> EdgeEnd:
        cur = self.cur
        cur.expect_word(which)
        if not cur.accept_word("KEY"):
            raise GraphError(CANNOT_INFER_EDGE_RELATIONSHIP,
                             f"cannot infer edge relationship for edge table {edge_name}: write "
                             f"{which} KEY (column, ...) REFERENCES vertex_table (column, ...)")
        edge_columns = self.column_list(edge_table)
        cur.expect_word("REFERENCES")
        target = cur.identifier("vertex table name")
        vertex = next((v for v in vertices if v.name == target), None)
        if vertex is None:
            known = ", ".join(v.name for v in vertices)
            raise GraphError(INVALID_IDENTIFIER,
                             f"\"{target}\": invalid identifier: {which} of edge table {edge_name} must reference "
                             f"a vertex table of the graph by its element name ({known})")
        vertex_columns = self.column_list(vertex.table) if cur.at_op("(") else list(vertex.key)
        if len(vertex_columns) != len(edge_columns):
            raise GraphError(REFERENCING_COLUMNS_MISMATCH,
                             f"number of referencing columns must match referenced columns ({which} of {edge_name})")
        return EdgeEnd(vertex_table=vertex.name, edge_columns=edge_columns, vertex_columns=vertex_columns)

    def labels_and_properties(self, element_name: str, table: str) -> list[Label]:
        cur = self.cur
        labels: list[Label] = []
        if cur.at_word("PROPERTIES", "NO"):
            return [Label(element_name, self.properties(table))]
        while True:
            if cur.accept_word("LABEL"):
                name = cur.identifier("label name")
            elif cur.accept_words("DEFAULT", "LABEL"):
                name = element_name
            else:
                break
            if any(label.name == name for label in labels):
                raise GraphError(DUPLICATE_COLUMN_NAME, f"label {name} defined twice for element table {element_name}")
            props = self.properties(table) if cur.at_word("PROPERTIES", "NO") else self.all_columns(table, [])
            labels.append(Label(name, props))
        return labels or [Label(element_name, self.all_columns(table, []))]

    def properties(self, table: str) -> list[Property]:
        cur = self.cur
        if cur.accept_word("NO"):
            cur.expect_word("PROPERTIES")
            return []
        cur.expect_word("PROPERTIES")
        cur.accept_word("ARE")
        if cur.accept_word("ALL"):
            cur.expect_word("COLUMNS")
            excluded = self.column_list(table) if cur.accept_word("EXCEPT") else []
            return self.all_columns(table, excluded)
        if not cur.at_op("("):
            raise GraphError(MISSING_KEYWORD, "missing keyword ALL COLUMNS or \"(\" after PROPERTIES")
        cur.expect_op("(")
        props = [self.property(table)]
        while cur.accept_op(","):
            props.append(self.property(table))
        cur.expect_op(")")
        return props

    def all_columns(self, table: str, excluded: list[str]) -> list[Property]:
        return [Property(name=c, column=c) for c in self.catalog.columns(table) if c not in excluded]

    def property(self, table: str) -> Property:
        tokens = self.cur.until_close(stop_ops=(",",))
        if not tokens:
            raise GraphError(936, "missing expression in PROPERTIES")
        alias = None
        if len(tokens) >= 3 and tokens[-2].is_word("AS") and tokens[-1].kind in (IDENT, QIDENT):
            alias = identifier_name(tokens[-1])
            tokens = tokens[:-2]
        if len(tokens) == 1 and tokens[0].kind in (IDENT, QIDENT):
            column = self.catalog.column(table, identifier_name(tokens[0]))
            return Property(name=alias or column, column=column)
        if alias is None:
            raise GraphError(MUST_NAME_EXPRESSION,
                             f"must name this expression with an alias: PROPERTIES ({render(tokens)} AS name)")
        return Property(name=alias, expression=self.expression_parts(table, tokens),
                        expression_text=render(tokens))

    def expression_parts(self, table: str, tokens: list[Token]) -> list:
        """Mark the expression's column references so the compiler can qualify them per alias."""
        parts: list = []
        run: list[Token] = []
        for k, token in enumerate(tokens):
            prev = tokens[k - 1] if k else None
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if (token.kind in (IDENT, QIDENT) and not (prev is not None and prev.is_op("."))
                    and not (nxt is not None and nxt.is_op("(", "."))):
                column = self.catalog.resolve(table, identifier_name(token))
                if column is not None:
                    if run:
                        parts.append(render(run))
                        run = []
                    parts.append({"column": column})
                    continue
            run.append(token)
        if run:
            parts.append(render(run))
        return parts


def _check_property_consistency(element_name: str, labels: list[Label]) -> None:
    """Two labels of one element table may share a property name only with the same definition."""
    seen: dict[str, Property] = {}
    for label in labels:
        names = [p.name for p in label.properties]
        duplicates = {n for n in names if names.count(n) > 1}
        if duplicates:
            raise GraphError(DUPLICATE_COLUMN_NAME,
                             f"property {sorted(duplicates)[0]} defined twice in label {label.name} of {element_name}")
        for prop in label.properties:
            if prop.name in seen and not seen[prop.name].same_definition(prop):
                raise GraphError(DUPLICATE_COLUMN_NAME,
                                 f"property {prop.name} has different definitions in the labels of {element_name}")
            seen.setdefault(prop.name, prop)


def _check_unique_element_names(graph: GraphDef) -> None:
    seen: set[str] = set()
    for table in graph.vertex_tables + graph.edge_tables:
        if table.name in seen:
            raise GraphError(ELEMENT_TABLE_ALREADY_DEFINED,
                             f"graph element table name {table.name} already defined; use AS to name it differently")
        seen.add(table.name)
