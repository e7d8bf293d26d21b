"""The stored form of a SQL property graph: element tables, keys, labels and properties.

Everything here is plain data so the engine can keep a graph in its catalog as JSON
(`GraphDef.to_json()` / `GraphDef.from_json()`) and hand it back to the GRAPH_TABLE compiler.
All names are stored exactly as Oracle resolves them (unquoted identifiers upper-cased).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Union

from .lexer import quote_identifier

#: A property expression: SQL text pieces and column references ({"column": NAME}).
ExpressionPart = Union[str, dict]


@dataclass
class Property:
    """One property of a label: a column, or an expression over the element table's columns."""

    name: str
    column: str | None = None
    expression: list[ExpressionPart] | None = None
    expression_text: str | None = None   # as written in the DDL, for messages and catalog views

    def sql(self, alias: str) -> str:
        """The property's value for the element table instance `alias`."""
        qualified = quote_identifier(alias)
        if self.column is not None:
            return f"{qualified}.{quote_identifier(self.column)}"
        pieces = [f"{qualified}.{quote_identifier(p['column'])}" if isinstance(p, dict) else p
                  for p in self.expression or []]
        return "(" + " ".join(pieces) + ")"

    def same_definition(self, other: Property) -> bool:
        return self.column == other.column and self.expression == other.expression


@dataclass
class Label:
    name: str
    properties: list[Property] = field(default_factory=list)


@dataclass
class EdgeEnd:
    """SOURCE or DESTINATION: edge columns KEY (...) REFERENCES vertex_table (columns)."""

    vertex_table: str            # element name of the referenced vertex table
    edge_columns: list[str]
    vertex_columns: list[str]


@dataclass
class ElementTable:
    """A vertex or edge table of the graph."""

    name: str                    # element table name: the AS alias, else the table name
    table: str                   # underlying table (or view) name
    schema: str | None
    kind: str                    # "vertex" | "edge"
    key: list[str]
    labels: list[Label]
    source: EdgeEnd | None = None
    destination: EdgeEnd | None = None

    def label_names(self) -> set[str]:
        return {label.name for label in self.labels}

    def properties(self) -> dict[str, Property]:
        """Every property the table exposes (the union over its labels), in definition order."""
        out: dict[str, Property] = {}
        for label in self.labels:
            for prop in label.properties:
                out.setdefault(prop.name, prop)
        return out

    def table_sql(self) -> str:
        table = quote_identifier(self.table)
        return f"{quote_identifier(self.schema)}.{table}" if self.schema else table


@dataclass
class GraphDef:
    name: str
    schema: str | None
    vertex_tables: list[ElementTable]
    edge_tables: list[ElementTable] = field(default_factory=list)
    or_replace: bool = False
    if_not_exists: bool = False

    def element(self, name: str) -> ElementTable | None:
        for table in self.vertex_tables + self.edge_tables:
            if table.name == name:
                return table
        return None

    def labels(self, kind: str | None = None) -> set[str]:
        tables = {"vertex": self.vertex_tables, "edge": self.edge_tables}.get(kind, self.vertex_tables + self.edge_tables)
        return {label.name for table in tables for label in table.labels}

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GraphDef:
        data = json.loads(text)
        return cls(
            name=data["name"], schema=data["schema"],
            vertex_tables=[_element_from_dict(t) for t in data["vertex_tables"]],
            edge_tables=[_element_from_dict(t) for t in data["edge_tables"]],
            or_replace=data.get("or_replace", False), if_not_exists=data.get("if_not_exists", False),
        )


@dataclass
class DropGraph:
    name: str
    schema: str | None
    if_exists: bool = False


def _element_from_dict(data: dict) -> ElementTable:
    def end(d: dict | None) -> EdgeEnd | None:
        return EdgeEnd(**d) if d else None

    labels = [Label(l["name"], [Property(**p) for p in l["properties"]]) for l in data["labels"]]
    return ElementTable(name=data["name"], table=data["table"], schema=data["schema"], kind=data["kind"],
                        key=list(data["key"]), labels=labels,
                        source=end(data.get("source")), destination=end(data.get("destination")))
