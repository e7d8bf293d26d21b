"""Property graphs through SQL: CREATE/DROP PROPERTY GRAPH, USER_PROPERTY_GRAPHS, GRAPH_TABLE queries."""
import oracledb
import pytest

from tests.conftest import ora_code

GRAPH_DDL = """CREATE PROPERTY GRAPH research_graph
  VERTEX TABLES (papers KEY (id) LABEL paper PROPERTIES (id, title),
                 authors KEY (id) LABEL author PROPERTIES (id, name))
  EDGE TABLES (wrote KEY (author_id, paper_id)
                 SOURCE KEY (author_id) REFERENCES authors (id)
                 DESTINATION KEY (paper_id) REFERENCES papers (id) LABEL wrote NO PROPERTIES,
               similar_to KEY (src, dst) SOURCE KEY (src) REFERENCES papers (id)
                 DESTINATION KEY (dst) REFERENCES papers (id) LABEL similar_to PROPERTIES (sim_score))"""


@pytest.fixture
def graph(cur):
    cur.execute("CREATE TABLE papers (id VARCHAR2(20) PRIMARY KEY, title VARCHAR2(200))")
    cur.execute("CREATE TABLE authors (id NUMBER PRIMARY KEY, name VARCHAR2(100))")
    cur.execute("CREATE TABLE wrote (author_id NUMBER, paper_id VARCHAR2(20), PRIMARY KEY (author_id, paper_id))")
    cur.execute("CREATE TABLE similar_to (src VARCHAR2(20), dst VARCHAR2(20), sim_score NUMBER, PRIMARY KEY (src, dst))")
    cur.executemany("INSERT INTO papers VALUES (:1, :2)",
                    [("p1", "Vector search"), ("p2", "Hybrid search"), ("p3", "Agent memory"), ("p4", "Graphs")])
    cur.executemany("INSERT INTO authors VALUES (:1, :2)", [(1, "Ana"), (2, "Bo"), (3, "Cy")])
    cur.executemany("INSERT INTO wrote VALUES (:1, :2)", [(1, "p1"), (1, "p2"), (2, "p2"), (2, "p3"), (3, "p4")])
    cur.executemany("INSERT INTO similar_to VALUES (:1, :2, :3)", [("p1", "p2", 0.9), ("p2", "p3", 0.5)])
    cur.execute(GRAPH_DDL)
    return cur


def test_graph_in_dictionary_and_name_clash(graph):
    assert graph.execute("SELECT graph_name FROM user_property_graphs").fetchall() == [("RESEARCH_GRAPH",)]
    with pytest.raises(oracledb.DatabaseError) as exc:
        graph.execute(GRAPH_DDL)
    assert ora_code(exc) == 955
    graph.execute(GRAPH_DDL.replace("CREATE PROPERTY GRAPH", "CREATE OR REPLACE PROPERTY GRAPH"))


def test_shared_author_two_hops_with_binds(graph):
    graph.execute("""SELECT DISTINCT dst_id FROM GRAPH_TABLE(research_graph
        MATCH (src IS paper)<-[w1 IS wrote]-(a IS author)-[w2 IS wrote]->(dst IS paper)
        WHERE src.id = :seed AND src.id <> dst.id
        COLUMNS (dst.id AS dst_id, a.name AS via)) ORDER BY dst_id""", seed="p2")
    assert graph.fetchall() == [("p1",), ("p3",)]


def test_directions_and_bounded_quantifier(graph):
    def run(pattern):
        graph.execute(f"SELECT id FROM GRAPH_TABLE(research_graph MATCH {pattern} "
                      f"WHERE s.id = 'p2' COLUMNS (d.id AS id)) ORDER BY id")
        return [r[0] for r in graph.fetchall()]
    assert run("(s IS paper)-[e IS similar_to]->(d IS paper)") == ["p3"]
    assert run("(s IS paper)<-[e IS similar_to]-(d IS paper)") == ["p1"]
    assert run("(s IS paper)-[e IS similar_to]-(d IS paper)") == ["p1", "p3"]
    graph.execute("SELECT id FROM GRAPH_TABLE(research_graph MATCH (s IS paper)-[e IS similar_to]->{1,2}(d IS paper) "
                  "WHERE s.id = 'p1' COLUMNS (d.id AS id)) ORDER BY id")
    assert graph.fetchall() == [("p2",), ("p3",)]


def test_graph_table_joins_with_relational_sql(graph):
    graph.execute("""WITH hops AS (SELECT dst_id, sim FROM GRAPH_TABLE(research_graph
                         MATCH (s IS paper)-[e IS similar_to]->(d IS paper)
                         COLUMNS (d.id AS dst_id, e.sim_score AS sim)))
                     SELECT p.title, h.sim FROM hops h JOIN papers p ON p.id = h.dst_id ORDER BY h.sim DESC""")
    assert graph.fetchall() == [("Hybrid search", 0.9), ("Agent memory", 0.5)]


def test_unsupported_and_missing_graph(graph):
    with pytest.raises(oracledb.DatabaseError) as exc:
        graph.execute("SELECT * FROM GRAPH_TABLE(research_graph MATCH ANY SHORTEST (s IS paper)-[e]->+(d) "
                      "COLUMNS (d.id AS id))")
    assert ora_code(exc) == 3001
    graph.execute("DROP PROPERTY GRAPH research_graph")
    with pytest.raises(oracledb.DatabaseError) as exc:
        graph.execute("SELECT * FROM GRAPH_TABLE(research_graph MATCH (a) COLUMNS (a.id AS id))")
    assert ora_code(exc) == 942
    graph.execute("DROP PROPERTY GRAPH IF EXISTS research_graph")
