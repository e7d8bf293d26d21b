"""Property-based check: on random small graphs (self-loops, parallel edges, composite keys) the
compiled GRAPH_TABLE returns exactly the walks a direct Python enumeration finds."""
import sqlite3
from collections import Counter

from hypothesis import given, settings, strategies as st

from workshop.embedded.graph import parse_create_property_graph, rewrite_graph_tables

VERTICES = [("a", 1), ("a", 2), ("b", 1), ("b", 2), ("c", 7)]

DDL = """CREATE PROPERTY GRAPH g
  VERTEX TABLES (node KEY (grp, num) LABEL node PROPERTIES (grp, num, grp || num AS tag))
  EDGE TABLES (link KEY (id)
    SOURCE KEY (sg, sn) REFERENCES node (grp, num)
    DESTINATION KEY (dg, dn) REFERENCES node (grp, num)
    LABEL link PROPERTIES (id, w))"""

edge_lists = st.lists(st.tuples(st.sampled_from(VERTICES), st.sampled_from(VERTICES), st.integers(0, 9)),
                      max_size=8)


def setup(edges):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE node (grp TEXT, num INTEGER, PRIMARY KEY (grp, num))")
    con.execute("CREATE TABLE link (id INTEGER PRIMARY KEY, sg TEXT, sn INTEGER, dg TEXT, dn INTEGER, w INTEGER)")
    con.executemany("INSERT INTO node VALUES (?, ?)", VERTICES)
    con.executemany("INSERT INTO link VALUES (?, ?, ?, ?, ?, ?)",
                    [(k, s[0], s[1], d[0], d[1], w) for k, (s, d, w) in enumerate(edges)])
    columns = {"NODE": ["GRP", "NUM"], "LINK": ["ID", "SG", "SN", "DG", "DN", "W"]}
    graph = parse_create_property_graph(DDL, columns.get)
    return con, {"G": graph}


def query(con, graphs, body):
    return con.execute(rewrite_graph_tables(f"SELECT * FROM GRAPH_TABLE (g {body})", graphs.get)).fetchall()


def tag(v):
    return f"{v[0]}{v[1]}"


def steps(edges, undirected):
    """(from, to, edge id) moves; an undirected self-loop is one move, not two."""
    out = [(s, d, k) for k, (s, d, _) in enumerate(edges)]
    if undirected:
        out += [(d, s, k) for k, (s, d, _) in enumerate(edges) if s != d]
    return out


def walk_rows(edges, lengths, undirected=False):
    moves = steps(edges, undirected)
    rows = Counter()
    for n in lengths:
        frontier = [(v, v, []) for v in VERTICES]
        for _ in range(n):
            frontier = [(start, to, ids + [k]) for start, at, ids in frontier for frm, to, k in moves if frm == at]
        for start, end, ids in frontier:
            rows[(tag(start), tag(end), ",".join(map(str, ids)) if ids else None)] += 1
    return rows


@settings(max_examples=40, deadline=None)
@given(edge_lists)
def test_directed_quantified_walks(edges):
    con, graphs = setup(edges)
    rows = query(con, graphs, "MATCH (x)-[e IS link]->{1,3}(y) COLUMNS (x.tag AS s, y.tag AS t, LISTAGG(e.id, ',') AS ids)")
    assert Counter(rows) == walk_rows(edges, (1, 2, 3))


@settings(max_examples=40, deadline=None)
@given(edge_lists)
def test_any_direction_walks_with_zero_length(edges):
    con, graphs = setup(edges)
    rows = query(con, graphs, "MATCH (x IS node)-[e]-{,2}(y) COLUMNS (x.tag AS s, y.tag AS t, LISTAGG(e.id, ',') AS ids)")
    assert Counter(rows) == walk_rows(edges, (0, 1, 2), undirected=True)


@settings(max_examples=40, deadline=None)
@given(edge_lists)
def test_triangle_with_shared_variables(edges):
    con, graphs = setup(edges)
    rows = query(con, graphs, "MATCH (x)-[e1]->(y), (y)-[e2]->(z)-[e3]->(x) WHERE e1.w <= e2.w "
                              "COLUMNS (x.tag AS x, y.tag AS y, z.tag AS z)")
    expected = Counter((tag(a), tag(b), tag(c))
                       for a, b, w1 in edges for b2, c, w2 in edges for c2, a2, _ in edges
                       if b2 == b and c2 == c and a2 == a and w1 <= w2)
    assert Counter(rows) == expected
