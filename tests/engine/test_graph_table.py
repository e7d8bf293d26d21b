"""GRAPH_TABLE compiled to plain SQL and executed on a real SQLite database, checked against
result sets computed in Python from the same rows (walk enumeration, joins by hand)."""
import sqlite3
from collections import Counter

import pytest
import sqlglot

from workshop.embedded.graph import GraphError, parse_create_property_graph, rewrite_graph_tables

PAPERS = [("P1", "Vector search", 2021), ("P2", "Hybrid retrieval", 2022), ("P3", "Agent memory", 2023),
          ("P4", "Graph RAG", 2023), ("P5", "Rerankers", 2024), ("P6", "Orphan paper", 2024)]
AUTHORS = [(1, "Ada"), (2, "Bo"), (3, "Cy"), (4, "Di")]
WROTE = [(1, "P1"), (1, "P2"), (1, "P3"), (2, "P2"), (2, "P4"), (3, "P4"), (3, "P5"), (4, "P5")]
SIMILAR = [("P1", "P2", 0.9, 1), ("P2", "P3", 0.8, 1), ("P3", "P1", 0.7, 1), ("P2", "P4", 0.6, 2),
           ("P4", "P5", 0.5, 1), ("P5", "P5", 0.4, 1)]   # P5 -> P5 is a self-loop

GRAPH_DDL = """
CREATE PROPERTY GRAPH research_graph
  VERTEX TABLES (
    paper KEY (arxiv_id)
      LABEL paper PROPERTIES (arxiv_id, title, year AS pub_year)
      LABEL entity PROPERTIES (title AS name),
    author KEY (author_id)
      LABEL author PROPERTIES (author_id, name)
      LABEL entity PROPERTIES (name)
  )
  EDGE TABLES (
    wrote KEY (author_id, arxiv_id)
      SOURCE KEY (author_id) REFERENCES author (author_id)
      DESTINATION KEY (arxiv_id) REFERENCES paper (arxiv_id)
      LABEL wrote,
    similar_to KEY (source_arxiv_id, target_arxiv_id)
      SOURCE KEY (source_arxiv_id) REFERENCES paper (arxiv_id)
      DESTINATION KEY (target_arxiv_id) REFERENCES paper (arxiv_id)
      LABEL similar_to PROPERTIES (sim_score, rank_no)
  )
"""


def make_db(path=":memory:", similar=SIMILAR):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE paper (arxiv_id TEXT PRIMARY KEY, title TEXT, year INTEGER);
        CREATE TABLE author (author_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE wrote (author_id INTEGER, arxiv_id TEXT, PRIMARY KEY (author_id, arxiv_id));
        CREATE TABLE similar_to (source_arxiv_id TEXT, target_arxiv_id TEXT, sim_score REAL, rank_no INTEGER,
                                 PRIMARY KEY (source_arxiv_id, target_arxiv_id));
    """)
    con.executemany("INSERT INTO paper VALUES (?, ?, ?)", PAPERS)
    con.executemany("INSERT INTO author VALUES (?, ?)", AUTHORS)
    con.executemany("INSERT INTO wrote VALUES (?, ?)", WROTE)
    con.executemany("INSERT INTO similar_to VALUES (?, ?, ?, ?)", similar)
    con.commit()
    return con


def graph_for(con):
    def columns_of(table):
        return [r[1].upper() for r in con.execute(f'PRAGMA table_info("{table}")')]
    return parse_create_property_graph(GRAPH_DDL, columns_of)


@pytest.fixture
def db(tmp_path):
    con = make_db(str(tmp_path / "graph.db"))
    graphs = {"RESEARCH_GRAPH": graph_for(con)}
    yield con, graphs
    con.close()


def run(db, sql, params=()):
    con, graphs = db
    compiled = rewrite_graph_tables(sql, graphs.get)
    assert "GRAPH_TABLE" not in compiled.upper() or "'" in compiled
    assert "RECURSIVE" not in compiled.upper()
    sqlglot.parse_one(compiled, read="oracle")     # the output is also Oracle SQL
    return con.execute(compiled, params).fetchall()


def gt(match_and_columns):
    return f"SELECT * FROM GRAPH_TABLE (research_graph {match_and_columns})"


def walks(edges, length):
    """All walks of exactly `length` edges as (start, [vertex after each edge], [edge rows])."""
    out = [(v, [], []) for v, *_ in PAPERS]
    for _ in range(length):
        out = [(s, path + [e[1]], used + [e]) for s, path, used in out for e in edges
               if e[0] == (path[-1] if path else s)]
    return out


# --- fixed-length patterns ---------------------------------------------------------------------

def test_one_hop_each_direction(db):
    right = run(db, gt("MATCH (src IS paper)-[e IS similar_to]->(dst IS paper) "
                       "COLUMNS (src.arxiv_id AS s, dst.arxiv_id AS d, e.sim_score AS score)"))
    assert Counter(right) == Counter((s, d, score) for s, d, score, _ in SIMILAR)
    left = run(db, gt("MATCH (dst IS paper)<-[e IS similar_to]-(src IS paper) "
                      "COLUMNS (src.arxiv_id AS s, dst.arxiv_id AS d)"))
    assert Counter(left) == Counter((s, d) for s, d, *_ in SIMILAR)
    authored = run(db, gt("MATCH (p IS paper)<-[IS wrote]-(a IS author) COLUMNS (p.arxiv_id AS p, a.name AS who)"))
    names = dict(AUTHORS)
    assert Counter(authored) == Counter((p, names[a]) for a, p in WROTE)


def test_abbreviated_arrows(db):
    assert Counter(run(db, gt("MATCH (a IS paper)->(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))) \
        == Counter((s, d) for s, d, *_ in SIMILAR)
    assert Counter(run(db, gt("MATCH (a IS author)->(b) COLUMNS (a.name AS a, b.arxiv_id AS b)"))) \
        == Counter((dict(AUTHORS)[a], p) for a, p in WROTE)
    assert len(run(db, gt("MATCH (b IS paper)<-(a IS author) COLUMNS (b.arxiv_id AS b)"))) == len(WROTE)
    any_way = run(db, gt("MATCH (a IS paper)<->(b IS %) COLUMNS (a.arxiv_id AS a)"))
    assert len(any_way) == 2 * len(SIMILAR) - 1 + len(WROTE)   # the self-loop once, wrote edges once each


def test_any_direction_matches_both_orientations_and_self_loops_once(db):
    rows = run(db, gt("MATCH (a IS paper)-[e IS similar_to]-(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    expected = Counter((s, d) for s, d, *_ in SIMILAR) + Counter((d, s) for s, d, *_ in SIMILAR if s != d)
    assert Counter(rows) == expected
    assert rows.count(("P5", "P5")) == 1
    same = run(db, gt("MATCH (a IS paper)-(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(same) == expected
    both = run(db, gt("MATCH (a IS paper)<-[e IS similar_to]->(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(both) == expected
    # a cycle of one edge: only self-loops, each once
    assert run(db, gt("MATCH (a)-[e IS similar_to]-(a) COLUMNS (a.arxiv_id AS a)")) == [("P5",)]
    # between different vertex tables only one orientation can fit
    mixed = run(db, gt("MATCH (p IS paper)-[IS wrote]-(x) COLUMNS (p.arxiv_id AS p, x.name AS who)"))
    assert Counter(mixed) == Counter((p, dict(AUTHORS)[a]) for a, p in WROTE)


def test_shared_author_two_hops(db):
    rows = run(db, gt("MATCH (src IS paper)<-[w1 IS wrote]-(a IS author)-[w2 IS wrote]->(dst IS paper) "
                      "WHERE src.arxiv_id <> dst.arxiv_id "
                      "COLUMNS (src.arxiv_id AS source_arxiv_id, dst.arxiv_id AS target_arxiv_id, a.name AS via)"))
    papers_of = {}
    for a, p in WROTE:
        papers_of.setdefault(dict(AUTHORS)[a], []).append(p)
    expected = Counter((s, d, who) for who, ps in papers_of.items() for s in ps for d in ps if s != d)
    assert Counter(rows) == expected and len(rows) == 10
    # homomorphism: without the WHERE the same paper is reached through each of its authors
    unfiltered = run(db, gt("MATCH (src IS paper)<-[IS wrote]-(a IS author)-[IS wrote]->(dst IS paper) "
                            "COLUMNS (src.arxiv_id AS s, dst.arxiv_id AS d)"))
    assert len(unfiltered) == sum(len(ps) ** 2 for ps in papers_of.values())


def test_three_hops(db):
    rows = run(db, gt("MATCH (a IS paper)-[IS similar_to]->(b IS paper)-[IS similar_to]->(c)-[IS similar_to]->(d) "
                      "COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b, c.arxiv_id AS c, d.arxiv_id AS d)"))
    expected = Counter((s, *path) for s, path, _ in walks(SIMILAR, 3))
    assert Counter(rows) == expected and len(rows) > 0


def test_workshop_graph_retrieval_query(db):
    """The reference workshop's query shape: two GRAPH_TABLEs joined to CTEs inside one statement."""
    sql = """
        WITH seed AS (SELECT arxiv_id, 1.0 AS seed_score FROM paper WHERE arxiv_id IN ('P1', 'P4')),
        sim_hops AS (
            SELECT s.arxiv_id AS source_arxiv_id, gt.target_arxiv_id AS candidate_arxiv_id, gt.edge_score
            FROM seed s
            JOIN GRAPH_TABLE(
                research_graph
                MATCH (src IS paper)-[e IS similar_to]->(dst IS paper)
                COLUMNS (src.arxiv_id AS source_arxiv_id, dst.arxiv_id AS target_arxiv_id, e.sim_score AS edge_score)
            ) gt ON gt.source_arxiv_id = s.arxiv_id
        ),
        author_hops AS (
            SELECT s.arxiv_id AS source_arxiv_id, gt.target_arxiv_id AS candidate_arxiv_id, 1.0 AS edge_score
            FROM seed s
            JOIN graph_table(
                research_graph
                MATCH (src IS paper)<-[w1 IS wrote]-(a IS author)-[w2 IS wrote]->(dst IS paper)
                COLUMNS (src.arxiv_id AS source_arxiv_id, dst.arxiv_id AS target_arxiv_id)
            ) gt ON gt.source_arxiv_id = s.arxiv_id
            WHERE gt.target_arxiv_id <> s.arxiv_id
        )
        SELECT 'similar_to', source_arxiv_id, candidate_arxiv_id, edge_score FROM sim_hops
        UNION ALL SELECT 'shared_author', source_arxiv_id, candidate_arxiv_id, edge_score FROM author_hops
        ORDER BY 1, 2, 3"""
    assert run(db, sql) == [
        ("shared_author", "P1", "P2", 1.0), ("shared_author", "P1", "P3", 1.0),
        ("shared_author", "P4", "P2", 1.0), ("shared_author", "P4", "P5", 1.0),
        ("similar_to", "P1", "P2", 0.9), ("similar_to", "P4", "P5", 0.5)]


# --- quantifiers -------------------------------------------------------------------------------

def test_quantifier_1_to_3_equals_walk_enumeration(db):
    rows = run(db, gt("MATCH (a IS paper)-[e IS similar_to]->{1,3}(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    expected = Counter((s, path[-1]) for n in (1, 2, 3) for s, path, _ in walks(SIMILAR, n))
    assert Counter(rows) == expected


def test_quantified_group_with_group_variable_aggregates(db):
    rows = run(db, gt("""MATCH (a IS paper) (-[e IS similar_to]->(x IS paper)){1,3}
        COLUMNS (a.arxiv_id AS a, LISTAGG(x.arxiv_id, '>') AS path, COUNT(e.sim_score) AS hops,
                 SUM(e.rank_no) AS ranks, MIN(e.sim_score) AS low, MAX(e.sim_score) AS high,
                 AVG(e.rank_no) AS mean_rank, BINDING_COUNT(e) AS bindings)"""))
    expected = Counter()
    for n in (1, 2, 3):
        for s, path, used in walks(SIMILAR, n):
            ranks = [u[3] for u in used]
            scores = [u[2] for u in used]
            expected[(s, ">".join(path), n, sum(ranks), min(scores), max(scores), sum(ranks) / n, n)] += 1
    got = Counter((a, p, h, r, lo, hi, round(m, 9), b) for a, p, h, r, lo, hi, m, b in rows)
    assert got == Counter({(k[0], k[1], k[2], k[3], k[4], k[5], round(k[6], 9), k[7]): v for k, v in expected.items()})


def test_exact_and_zero_lower_bound_quantifiers(db):
    exact = run(db, gt("MATCH (a IS paper)-[IS similar_to]->{2}(b) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(exact) == Counter((s, path[-1]) for s, path, _ in walks(SIMILAR, 2))
    upto = run(db, gt("MATCH (a IS paper)-[e IS similar_to]->{,2}(b IS paper) "
                      "COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b, COUNT(e.sim_score) AS hops)"))
    expected = Counter((p, p, 0) for p, *_ in PAPERS)    # zero iterations: a and b are the same vertex
    expected += Counter((s, path[-1], n) for n in (1, 2) for s, path, _ in walks(SIMILAR, n))
    assert Counter(upto) == expected
    optional = run(db, gt("MATCH (a IS paper)-[IS similar_to]->?(b IS paper) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(optional) == Counter((p, p) for p, *_ in PAPERS) + Counter((s, d) for s, d, *_ in SIMILAR)


def test_listagg_skips_nulls_like_the_aggregate(db):
    con, _ = db
    con.execute("UPDATE similar_to SET sim_score = NULL WHERE source_arxiv_id = 'P2' AND target_arxiv_id = 'P3'")
    rows = run(db, gt("MATCH (a IS paper WHERE a.arxiv_id = 'P1') -[e IS similar_to]->{3}(b) "
                      "COLUMNS (LISTAGG(e.sim_score, ';') AS scores, COUNT(e.sim_score) AS n, SUM(e.sim_score) AS s, "
                      "LISTAGG(e.rank_no) AS ranks)"))
    # P1 -> P2 -> P3 (NULL score) -> P1, and P1 -> P2 -> P4 -> P5
    assert sorted(rows) == sorted([("0.9;0.7", 2, pytest.approx(1.6), "111"), ("0.9;0.6;0.5", 3, pytest.approx(2.0), "121")])


def test_quantified_parenthesized_pattern_with_where(db):
    rows = run(db, gt("MATCH (a IS paper) ((x)-[e IS similar_to]->(y) WHERE e.sim_score > 0.55){1,2} "
                      "COLUMNS (a.arxiv_id AS a, LISTAGG(y.arxiv_id, '>') AS path)"))
    strong = [e for e in SIMILAR if e[2] > 0.55]
    expected = Counter((s, ">".join(path)) for n in (1, 2) for s, path, _ in walks(strong, n))
    assert Counter(rows) == expected


def test_cycles_repeated_edge_variable_and_default_modes(db):
    cycles = run(db, gt("MATCH WALK (a IS paper)-[e IS similar_to]->{1,3}(a) ONE ROW PER MATCH "
                        "COLUMNS (a.arxiv_id AS a, BINDING_COUNT(e) AS n)"))
    expected = Counter((s, n) for n in (1, 2, 3) for s, path, _ in walks(SIMILAR, n) if path[-1] == s)
    assert Counter(cycles) == expected
    same_edge = run(db, gt("MATCH (a IS paper)-[e IS similar_to]->(b), (b)<-[e]-(a) COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(same_edge) == Counter((s, d) for s, d, *_ in SIMILAR)


def test_expressions_subqueries_and_quoted_properties(db):
    rows = run(db, gt("""MATCH (a IS paper)-[e IS similar_to]->(b)
        COLUMNS (a."ARXIV_ID" AS a, (SELECT COUNT(*) FROM wrote w WHERE w.arxiv_id = a.arxiv_id) AS authors,
                 CASE WHEN e.sim_score > 0.55 THEN 'strong' ELSE 'weak' END AS strength)"""))
    authors = Counter(p for _, p in WROTE)
    assert sorted(rows) == sorted((s, authors[s], "strong" if score > 0.55 else "weak") for s, _, score, _ in SIMILAR)


# --- multiple patterns, labels, element WHERE, properties -------------------------------------

def test_multiple_path_patterns_share_a_variable(db):
    rows = run(db, gt("MATCH (a IS author)-[IS wrote]->(p IS paper), (p)-[s IS similar_to]->(q IS paper) "
                      "COLUMNS (a.name AS who, p.arxiv_id AS p, q.arxiv_id AS q)"))
    names = dict(AUTHORS)
    expected = Counter((names[a], p, d) for a, p in WROTE for s, d, *_ in SIMILAR if s == p)
    assert Counter(rows) == expected
    disjoint = run(db, gt("MATCH (a IS author), (p IS paper WHERE p.pub_year = 2024) COLUMNS (a.name AS a, p.title AS t)"))
    assert len(disjoint) == len(AUTHORS) * 2


def test_label_disjunction_and_label_shared_by_two_tables(db):
    names = sorted([t for _, t, _ in PAPERS] + [n for _, n in AUTHORS])
    assert sorted(r[0] for r in run(db, gt("MATCH (v IS paper|author) COLUMNS (v.name AS name)"))) == names
    assert sorted(r[0] for r in run(db, gt("MATCH (v IS entity) COLUMNS (v.name AS name)"))) == names
    # properties missing from one of the candidate tables are NULL there
    ids = run(db, gt("MATCH (v IS entity) COLUMNS (v.arxiv_id AS id, v.author_id AS aid)"))
    assert sorted(i for i, _ in ids if i) == [p for p, *_ in PAPERS]
    assert sorted(a for _, a in ids if a) == [a for a, _ in AUTHORS]
    assert len(run(db, gt("MATCH (v IS paper&entity) COLUMNS (v.name AS n)"))) == len(PAPERS)
    assert len(run(db, gt("MATCH (v IS !author) COLUMNS (v.name AS n)"))) == len(PAPERS)
    assert len(run(db, gt("MATCH (v) COLUMNS (v.name AS n)"))) == len(PAPERS) + len(AUTHORS)
    # an edge label filters the edge tables; the vertex label expression then fixes the orientation
    sources = run(db, gt("MATCH (x IS entity)-[IS wrote|similar_to]->(p IS paper) COLUMNS (x.name AS n)"))
    assert len(sources) == len(WROTE) + len(SIMILAR)


def test_element_where_clauses(db):
    rows = run(db, gt("MATCH (a IS paper WHERE a.pub_year >= 2022)-[e IS similar_to WHERE e.sim_score > 0.45]->"
                      "(b IS paper WHERE b.title <> 'Agent memory') COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    year = {p: y for p, _, y in PAPERS}
    title = {p: t for p, t, _ in PAPERS}
    expected = [(s, d) for s, d, score, _ in SIMILAR if year[s] >= 2022 and score > 0.45 and title[d] != "Agent memory"]
    assert sorted(rows) == sorted(expected)


def test_property_renames_and_star(db):
    rows = run(db, gt("MATCH (p IS paper) WHERE p.pub_year = 2023 COLUMNS (p.title, p.pub_year)"))
    assert sorted(rows) == [("Agent memory", 2023), ("Graph RAG", 2023)]
    con, graphs = db
    compiled = rewrite_graph_tables(gt("MATCH (p IS paper WHERE p.arxiv_id = 'P1') COLUMNS (p.*)"), graphs.get)
    cursor = con.execute(compiled)
    assert [d[0] for d in cursor.description] == ["ARXIV_ID", "TITLE", "PUB_YEAR", "NAME"]
    assert cursor.fetchall() == [("P1", "Vector search", 2021, "Vector search")]
    with pytest.raises(GraphError) as info:
        run(db, gt("MATCH (p IS paper) COLUMNS (p.year AS y)"))
    assert info.value.code == 40983 and "YEAR" in info.value.message


def test_graph_predicates_and_binds(db):
    rows = run(db, gt("MATCH (a IS paper)-[e IS similar_to]-(b IS paper) WHERE a IS SOURCE OF e AND a.arxiv_id = :id "
                      "COLUMNS (b.arxiv_id AS b)"), {"id": "P2"})
    assert sorted(rows) == [("P3",), ("P4",)]
    loops = run(db, gt("MATCH (a)-[e IS similar_to]->(b) WHERE VERTEX_EQUAL(a, b) COLUMNS (a.arxiv_id AS a)"))
    assert loops == [("P5",)]
    labeled = run(db, gt("MATCH (v) WHERE v IS LABELED author COLUMNS (v.name AS n)"))
    assert sorted(labeled) == sorted((n,) for _, n in AUTHORS)
    not_dest = run(db, gt("MATCH (a IS paper)-[e IS similar_to]-(b) WHERE a IS NOT DESTINATION OF e "
                          "COLUMNS (a.arxiv_id AS a, b.arxiv_id AS b)"))
    assert Counter(not_dest) == Counter((s, d) for s, d, *_ in SIMILAR if s != d)


def test_pattern_that_cannot_match_yields_no_rows_with_the_declared_columns(db):
    con, graphs = db
    compiled = rewrite_graph_tables(gt("MATCH (v IS wrote) COLUMNS (v.author_id AS a)") + " x", graphs.get)
    cursor = con.execute(compiled)
    assert cursor.fetchall() == [] and [d[0] for d in cursor.description] == ["A"]


# --- statement scanning ------------------------------------------------------------------------

def test_graph_table_in_literals_comments_and_identifiers_is_left_alone(db):
    con, graphs = db
    sql = ("SELECT 'GRAPH_TABLE (nope MATCH (x) COLUMNS (x.y))' AS s, \"GRAPH_TABLE\" FROM "
           "(SELECT 1 AS \"GRAPH_TABLE\") /* GRAPH_TABLE ( */ -- graph_table(\n")
    assert rewrite_graph_tables(sql, graphs.get) == sql
    assert con.execute(sql).fetchall() == [("GRAPH_TABLE (nope MATCH (x) COLUMNS (x.y))", 1)]


def test_several_graph_tables_and_subqueries(db):
    sql = ("SELECT (SELECT COUNT(*) FROM GRAPH_TABLE (research_graph MATCH (a IS author) COLUMNS (a.name AS n))) AS authors,"
           " (SELECT COUNT(*) FROM graph_table (research_graph MATCH (p IS paper) COLUMNS (p.title AS t)) g) AS papers")
    assert run(db, sql) == [(len(AUTHORS), len(PAPERS))]


# --- errors ------------------------------------------------------------------------------------

UNSUPPORTED = [
    ("MATCH ANY SHORTEST (a IS paper)-[e]->{1,3}(b) COLUMNS (a.title AS t)", "path search prefix ANY SHORTEST"),
    ("MATCH ALL SHORTEST (a IS paper)-[e]->{1,3}(b) COLUMNS (a.title AS t)", "path search prefix ALL SHORTEST"),
    ("MATCH ANY (a IS paper)-[e]->{1,3}(b) COLUMNS (a.title AS t)", "path search prefix ANY"),
    ("MATCH p = (a IS paper)-[e]->(b) COLUMNS (a.title AS t)", "path variable"),
    ("MATCH TRAIL (a IS paper)-[e]->{1,3}(b) COLUMNS (a.title AS t)", "path mode TRAIL"),
    ("MATCH ACYCLIC (a IS paper)-[e]->{1,3}(b) COLUMNS (a.title AS t)", "path mode ACYCLIC"),
    ("MATCH (a IS paper)-[e]->(b) KEEP ANY SHORTEST COLUMNS (a.title AS t)", "KEEP"),
    ("MATCH (a IS paper)-[e]->(b) ONE ROW PER STEP (v1, e1, v2) COLUMNS (a.title AS t)", "ONE ROW PER STEP"),
    ("MATCH (a IS paper)-[e]->(b) ONE ROW PER VERTEX (v) COLUMNS (a.title AS t)", "ONE ROW PER VERTEX"),
    ("MATCH (a IS paper)-[e]->*(b) COLUMNS (a.title AS t)", "unbounded quantifier *"),
    ("MATCH (a IS paper)-[e]->+(b) COLUMNS (a.title AS t)", "unbounded quantifier +"),
    ("MATCH (a IS paper)-[e]->{2,}(b) COLUMNS (a.title AS t)", "unbounded quantifier {2,}"),
    ("MATCH (a IS paper)-[e]->{1,11}(b) COLUMNS (a.title AS t)", "quantifier upper bound 11"),
    ("MATCH (a IS paper)-[e]->(b) COLUMNS (VERTEX_ID(a) AS id)", "VERTEX_ID()"),
    ("MATCH (a IS paper)-[e]->(b) COLUMNS (MATCHNUM() AS m)", "MATCHNUM()"),
    ("MATCH (a IS paper) (-[e]->(b)){1,2} COLUMNS (JSON_ARRAYAGG(b.title) AS j)", "aggregate JSON_ARRAYAGG"),
    ("MATCH (a IS paper)-[e]->{1,2}(b) COLUMNS (COUNT(DISTINCT e.rank_no) AS n)", "COUNT(DISTINCT"),
    ("MATCH (a)-[e]-{1,10}(b) COLUMNS (a.title AS t)", "a pattern expanding to more than 500"),
]


@pytest.mark.parametrize("body, construct", UNSUPPORTED)
def test_unsupported_constructs_raise_ora_03001(db, body, construct):
    with pytest.raises(GraphError) as info:
        run(db, gt(body))
    assert info.value.code == 3001
    assert info.value.message.startswith(f"unimplemented feature: {construct}")
    assert info.value.message.endswith("in GRAPH_TABLE (embedded engine; run against Oracle AI Database)")


@pytest.mark.parametrize("sql, code", [
    ("SELECT * FROM GRAPH_TABLE (no_such_graph MATCH (a) COLUMNS (a.x AS x))", 942),
    (gt("MATCH (a IS paper)-[e IS similar_to]->{1,2}(b) COLUMNS (e.sim_score AS s)"), 40990),
    (gt("MATCH (a IS paper)-[e IS similar_to]->{1,2}(b) WHERE e.sim_score > 0.5 COLUMNS (a.title AS t)"), 40998),
    (gt("MATCH (a IS paper) (-[e IS similar_to]->(x)){1,2} COLUMNS (SUM(e.sim_score + x.pub_year) AS s)"), 49012),
    (gt("MATCH (a IS paper) (-[e IS similar_to WHERE COUNT(e.rank_no) > 1]->(x)){1,2} COLUMNS (a.title AS t)"), 49010),
    (gt("MATCH (a IS paper) (-[e]->(x)){1,2}, (b) (-[e]->(y)){1,2} COLUMNS (a.title AS t)"), 49002),
    (gt("MATCH (a IS paper){1,2} COLUMNS (a.title AS t)"), 40999),
    (gt("MATCH (a IS nolabel) COLUMNS (a.title AS t)"), 904),
    (gt("MATCH (a IS paper) COLUMNS (q.title AS t)"), 40996),
    (gt("MATCH (a IS paper) COLUMNS (a.title || 'x')"), 998),
    (gt("MATCH (a IS paper), (b IS paper) COLUMNS (a.title, b.title)"), 957),
    (gt("MATCH (a IS paper)-[a]->(b) COLUMNS (b.title AS t)"), 904),
    ("SELECT * FROM GRAPH_TABLE (MATCH (a) COLUMNS (a.x AS x))", 49006),
])
def test_errors_carry_oracle_codes(db, sql, code):
    with pytest.raises(GraphError) as info:
        run(db, sql)
    assert info.value.code == code, info.value.message


def test_unknown_graph_message_names_the_graph(db):
    with pytest.raises(GraphError) as info:
        run(db, "SELECT * FROM GRAPH_TABLE (lib.other MATCH (a) COLUMNS (a.x AS x))")
    assert "LIB.OTHER" in info.value.message
