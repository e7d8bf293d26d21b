"""The schema module: the contract DDL, comments, the learner registry, and DROP statements that run on both
engines whether or not the object exists; Oracle-only failure paths of the set-up, against a scripted fake."""
from __future__ import annotations

import oracledb
import pytest

from tests.setup.conftest import quiet
from tests.setup.setup_helpers import ScriptedOracle, rows
from workshop import schema
from workshop.embedded import connect
from workshop.setup import SLIM_IMAGE_ADVICE, VECTOR_POOL_ADVICE, SetupError, _Builder, build


def test_the_contract_ddl():
    papers = schema.PAPERS.create_sql()
    for fragment in ("arxiv_id VARCHAR2(20) CONSTRAINT papers_pk PRIMARY KEY", "title VARCHAR2(500) NOT NULL",
                     "abstract VARCHAR2(4000) NOT NULL", "body CLOB", "authors JSON", "primary_subject VARCHAR2(20)",
                     "published DATE", "embedding VECTOR(384, FLOAT32)"):
        assert fragment in papers
    hnsw = {i.name: i.create_sql for i in schema.INDEXES}
    for name in ("PAPERS_HNSW", "RESEARCH_CHUNKS_HNSW"):
        assert " ".join(hnsw[name].split()).endswith(
            "(embedding) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95")
    assert "research_chunks (text)" in hnsw["RESEARCH_CHUNKS_TEXT"] and "papers (abstract)" in hnsw["PAPERS_TEXT"]
    for name in ("PAPERS_TEXT", "RESEARCH_CHUNKS_TEXT"):
        assert "INDEXTYPE IS CTXSYS.CONTEXT" in hnsw[name] and "PARAMETERS ('SYNC (ON COMMIT)')" in hnsw[name]
    graph = " ".join(schema.RESEARCH_GRAPH.create_sql.split())
    assert "LABEL wrote NO PROPERTIES" in graph and "LABEL similar_to PROPERTIES (similarity, rank_no)" in graph
    assert "LABEL paper PROPERTIES (arxiv_id, title, primary_subject)" in graph


def test_every_table_and_column_is_commented_and_quoted_safely():
    for table in schema.TABLES:
        assert table.comment and all(c.comment for c in table.columns)
        statements = table.comment_sql()
        assert len(statements) == 1 + len(table.columns)
    assert "title || ''. '' || abstract" in schema.PAPERS.comment_sql()[0]
    script = schema.ddl_script()
    for name in schema.setup_owned_names() - {m.name for m in schema.MODELS}:
        assert name.lower() in script.lower()


def test_identifiers_are_validated():
    assert schema.identifier("all_minilm_l12_v2") == "ALL_MINILM_L12_V2"
    for bad in ("x; DROP TABLE papers", "1abc", "", "a b", '"quoted"'):
        with pytest.raises(ValueError):
            schema.identifier(bad)
    with pytest.raises(ValueError, match="unknown object kind"):
        schema.LearnerObject("TRIGGER", "T1")


def test_learner_registry_is_flat_and_never_names_a_setup_object():
    everything = schema.learner_objects()
    assert sum(len(v) for v in schema.LEARNER_OBJECTS.values()) == len(everything)
    assert {o.name for o in everything} & schema.setup_owned_names() == set()
    assert {"CONVERSATION_MEMORY", "TOOL_LOG", "SUMMARY_VS"} <= {o.name for o in schema.learner_objects(3)}
    with pytest.raises(ValueError, match="no part 42"):
        schema.learner_objects(42)


def test_drop_statements_use_the_plsql_idiom():
    assert schema.drop_sql("TABLE", "papers") == (
        "BEGIN\n  EXECUTE IMMEDIATE 'DROP TABLE PAPERS CASCADE CONSTRAINTS PURGE';\n"
        "EXCEPTION WHEN OTHERS THEN\n  IF SQLCODE != -942 THEN RAISE; END IF;\nEND;")
    assert "IF SQLCODE != -1418" in schema.drop_sql("INDEX", "papers_hnsw")
    assert "IF SQLCODE != -2289" in schema.drop_sql("SEQUENCE", "s")
    assert "DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER', force => TRUE)" in \
        schema.drop_sql("MINING MODEL", "RERANKER")
    assert "DROP PROPERTY GRAPH IF EXISTS RESEARCH_GRAPH" in schema.drop_sql("PROPERTY GRAPH", "research_graph")
    with pytest.raises(ValueError):
        schema.drop_sql("TRIGGER", "t")


def test_drop_statements_run_whether_or_not_the_object_exists(tmp_path):
    conn = connect(tmp_path / "drops.db")
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE t1 (id NUMBER PRIMARY KEY, v VARCHAR2(10))")
            cur.execute("CREATE INDEX t1_v ON t1 (v)")
            cur.execute("CREATE VIEW v1 AS SELECT id FROM t1")
            cur.execute("CREATE SEQUENCE s1")
            cur.execute("CREATE PROPERTY GRAPH g1 VERTEX TABLES (t1 KEY (id))")
            for _ in range(2):
                for kind, name in (("PROPERTY GRAPH", "G1"), ("VIEW", "V1"), ("INDEX", "T1_V"), ("TABLE", "T1"),
                                   ("SEQUENCE", "S1"), ("MINING MODEL", "NO_SUCH_MODEL")):
                    cur.execute(schema.drop_sql(kind, name))
        assert rows(conn, "SELECT COUNT(*) FROM user_tables") == [(0,)]
        assert rows(conn, "SELECT COUNT(*) FROM user_sequences") == [(0,)]
        assert rows(conn, "SELECT COUNT(*) FROM user_property_graphs") == [(0,)]
    finally:
        conn.close()


class OracleError:
    """The error object python-oracledb puts in exc.args[0]."""
    def __init__(self, code: int, message: str):
        self.code, self.message = code, message

    def __str__(self):
        return self.message


def test_setup_on_a_slim_oracle_image_stops_before_changing_anything():
    with pytest.raises(SetupError) as exc:
        build(ScriptedOracle({"all_users": [(0,)]}), progress=False, log=quiet)
    assert str(exc.value) == SLIM_IMAGE_ADVICE


@pytest.mark.parametrize("code, kind, advice", [(51962, "VECTOR", VECTOR_POOL_ADVICE),
                                                (29833, "TEXT", SLIM_IMAGE_ADVICE)])
def test_index_errors_on_oracle_become_advice(code, kind, advice):
    index = next(i for i in schema.INDEXES if i.kind == kind)
    error = oracledb.DatabaseError(OracleError(code, f"ORA-{code}: simulated"))
    builder = _Builder(ScriptedOracle({"user_indexes": [(i.name,) for i in schema.INDEXES if i is not index],
                                       index.create_sql: error}), progress=False, log=quiet)
    with pytest.raises(SetupError) as exc:
        builder.ensure_indexes()
    assert str(exc.value).startswith(advice) and f"creating {index.name}" in str(exc.value)
