"""SQL property graphs for the embedded engine: CREATE/DROP PROPERTY GRAPH and GRAPH_TABLE.

Pure string-to-string compilation, so the engine only stores and looks up graphs:

    graph = parse_create_property_graph(sql, columns_of, primary_key_of)   # -> GraphDef
    catalog_text = graph.to_json();  graph = GraphDef.from_json(catalog_text)
    drop = parse_drop_property_graph(sql)                                  # -> DropGraph
    plain_sql = rewrite_graph_tables(sql, resolve_graph)                   # GRAPH_TABLE -> ( SELECT ... )

Each GRAPH_TABLE becomes a derived table of ANSI inner joins and UNION ALL (no WITH RECURSIVE)
that Oracle and SQLite both run. Matching follows Oracle: homomorphism (a vertex or edge may be
bound more than once), any-direction edges in both orientations with a self-loop matched once.

Supported: vertex patterns `(v)`, `()`, `(v IS l1|l2&l3|!l|%)`, `(v IS l WHERE cond)`; edges
`-[e IS l WHERE cond]->`, `<-[...]-`, `-[...]-`, `<-[...]->`, `->`, `<-`, `-`, `<->`; any number of
hops; several comma-separated path patterns sharing variables; bounded quantifiers `{n}`, `{m,n}`,
`{,n}`, `?` (upper bound <= 10) on edges and on parenthesized path patterns (with WHERE); group
variables in COUNT, SUM, AVG, MIN, MAX, LISTAGG(x[, sep]) and BINDING_COUNT; graph WHERE;
`ONE ROW PER MATCH`; `WALK`; COLUMNS with expressions, `v.prop`, `v.*`; IS [NOT] LABELED,
IS [NOT] SOURCE/DESTINATION OF, VERTEX_EQUAL, EDGE_EQUAL; bind variables; scalar subqueries.

Unsupported (GraphError 3001 "unimplemented feature: ... in GRAPH_TABLE (embedded engine; run
against Oracle AI Database)"): path search prefixes (ANY, ANY/ALL SHORTEST, ...), path modes
TRAIL/ACYCLIC/SIMPLE, path variables, KEEP, ONE ROW PER VERTEX/STEP, unbounded quantifiers,
upper bounds above 10, VERTEX_ID/EDGE_ID/MATCHNUM/ELEMENT_NUMBER/PATH_NAME/PROPERTY_EXISTS,
other aggregates over group variables, DISTINCT aggregates, patterns expanding to more than 500
UNION ALL branches or 64 joined tables, GRAPH_TABLE nested in GRAPH_TABLE.
"""
from .ddl import parse_create_property_graph, parse_drop_property_graph
from .errors import GraphError
from .model import DropGraph, EdgeEnd, ElementTable, GraphDef, Label, Property
from .rewrite import rewrite_graph_tables

__all__ = ["DropGraph", "EdgeEnd", "ElementTable", "GraphDef", "GraphError", "Label", "Property",
           "parse_create_property_graph", "parse_drop_property_graph", "rewrite_graph_tables"]
