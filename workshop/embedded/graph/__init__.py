"""SQL property graphs for the embedded engine: CREATE/DROP PROPERTY GRAPH and GRAPH_TABLE.

Pure string-to-string compilation: DDL becomes a JSON-serialisable `GraphDef`; each
`GRAPH_TABLE (...)` in a statement becomes a derived table of ANSI joins and UNION ALL that both
Oracle and SQLite run. Errors are `GraphError` with an ORA code (3001 for unimplemented features).
"""
from .ddl import parse_create_property_graph, parse_drop_property_graph
from .errors import GraphError
from .model import DropGraph, EdgeEnd, ElementTable, GraphDef, Label, Property
from .rewrite import rewrite_graph_tables

__all__ = ["DropGraph", "EdgeEnd", "ElementTable", "GraphDef", "GraphError", "Label", "Property",
           "parse_create_property_graph", "parse_drop_property_graph", "rewrite_graph_tables"]
