"""langchain-oracledb 1.6.0's OracleVS, unmodified, where Oracle's rules decide the outcome.

Table names: langchain quotes every name it is given (`_quote_indentifier`), so Oracle accepts a
quoted reserved word or a name with spaces, and rejects a name over 128 bytes (ORA-00972), an
owner that does not exist (ORA-01918 for `U1.TB4`) and an empty name. Metadata filters run end to
end through similarity_search: expected rows follow Oracle's SQL/JSON semantics (lax mode unwraps
arrays, comparisons are existential, JSON_EQUAL ignores member order).
"""
from __future__ import annotations

import json

import oracledb
import pytest
from langchain_oracledb import OracleVS
from langchain_oracledb.vectorstores.oraclevs import create_index
from langchain_oracledb.vectorstores.utils import DistanceStrategy

from tests.engine.test_json_langchain_filters import CASES, DOCS
from tests.engine.test_langchain import BagOfWords


def _oracle_code(exc: BaseException) -> int | None:
    while exc is not None:
        if isinstance(exc, oracledb.Error):
            return exc.args[0].code
        exc = exc.__cause__
    return None


@pytest.mark.parametrize("name, code", [
    ("U1.TB4", 1918),                 # "U1"."TB4": no such user
    ("x" * 129, 972),                 # identifier too long
])
def test_table_names_oracle_rejects(conn, name, code):
    with pytest.raises(RuntimeError) as exc:
        OracleVS(conn, BagOfWords(), name, DistanceStrategy.COSINE)
    assert _oracle_code(exc.value) == code


@pytest.mark.parametrize("name", ["SELECT", "my chunks", "WORKSHOP.chunks_2", "x" * 128])
def test_table_names_oracle_accepts_once_quoted(conn, name):
    store = OracleVS(conn, BagOfWords(), name, DistanceStrategy.COSINE)
    store.add_texts(["one text"], [{"k": 1}], ids=["a"])
    assert [d.page_content for d in store.similarity_search("text", k=1)] == ["one text"]


def test_names_differing_only_in_case_are_two_stores(conn):
    """Oracle: "Tb1" and "TB1" are two tables, so two OracleVS stores, each with its own rows, index and search."""
    lower = OracleVS(conn, BagOfWords(), '"Tb1"', DistanceStrategy.COSINE)
    upper = OracleVS(conn, BagOfWords(), "TB1", DistanceStrategy.COSINE)
    lower.add_texts(["lower case text about ships"], [{"k": 1}], ids=["a"])
    upper.add_texts(["upper case text about trains", "more trains"], [{"k": 2}, {"k": 3}], ids=["a", "b"])
    create_index(conn, lower, params={"idx_name": '"Tb1_hnsw"', "idx_type": "HNSW"})
    create_index(conn, upper, params={"idx_name": "TB1_HNSW", "idx_type": "HNSW"})
    assert [d.page_content for d in lower.similarity_search("text", k=5)] == ["lower case text about ships"]
    assert sorted(d.page_content for d in upper.similarity_search("text", k=5)) == [
        "more trains", "upper case text about trains"]
    assert [d.metadata["k"] for d in upper.similarity_search("trains", k=1, filter={"k": 3})] == [3]
    upper.delete(["b"])
    assert len(upper.similarity_search("text", k=5)) == 1 and len(lower.similarity_search("text", k=5)) == 1
    cur = conn.cursor()
    cur.execute("SELECT table_name FROM user_tables WHERE upper(table_name) = 'TB1' ORDER BY 1")
    assert cur.fetchall() == [("TB1",), ("Tb1",)]
    from langchain_oracledb.vectorstores.utils import drop_table_purge
    drop_table_purge(conn, "TB1")
    assert [d.page_content for d in lower.similarity_search("ships", k=5)] == ["lower case text about ships"]


def test_a_second_vector_index_on_the_same_column_is_ora_01408(conn):
    store = OracleVS(conn, BagOfWords(), "CHUNKS_IDX", DistanceStrategy.COSINE)
    store.add_texts(["one text"], ids=["a"])
    create_index(conn, store, params={"idx_name": "chunks_hnsw", "idx_type": "HNSW"})
    with pytest.raises(RuntimeError) as exc:
        create_index(conn, store, params={"idx_name": "chunks_ivf", "idx_type": "IVF"})
    assert _oracle_code(exc.value) == 1408
    create_index(conn, store, params={"idx_name": "chunks_hnsw", "idx_type": "HNSW"})  # same name: skipped


EXTRA_CASES = [
    ({"tags[0]": "x"}, {1, 5}),                                  # array index
    ({"tags[1]": "y"}, {1, 5}),
    ({"tags[*]": "y"}, {1, 2, 5}),
    ({"tags": {"$ne": "x"}}, {1, 2, 5}),                          # some element differs
    ({"tags": {"$nin": ["x"]}}, {2, 3, 4, 6}),                    # no element in the list (or no tags)
    ({"tags": {"$not": {"$eq": "x"}}}, {2, 3, 4, 6}),
    ({"tags": {"$regex": "^y"}}, {1, 2, 5}),                      # like_regex on each element
    ({"kind": {"$all": ["a"]}}, {1, 4, 6}),
    ({"author": {"$eq": {"city": "NYC", "name": "Ann"}}}, {1}),   # JSON_EQUAL: member order is irrelevant
    ({"author": {"$ne": {"name": "Ann", "city": "NYC"}}}, {2, 3}),
    ({"author.city": {"$ne": "NYC"}}, {2}),
    ({"author": {"$exists": True}}, {1, 2, 3}),
    ({"author": {"name": {"$regex": "^[AB]"}}}, {1, 2}),
]


@pytest.fixture(scope="module")
def filter_store(tmp_path_factory):
    from workshop.embedded import connect
    conn = connect(tmp_path_factory.mktemp("filters") / "f.db", busy_timeout=2)
    store = OracleVS(conn, BagOfWords(), "FILTER_DOCS", DistanceStrategy.COSINE)
    ids = sorted(DOCS)
    store.add_texts([f"document {i}" for i in ids], [DOCS[i] for i in ids], ids=[str(i) for i in ids])
    yield store
    conn.close()


def _binds_a_bool(value, key=None) -> bool:
    if isinstance(value, bool):
        return key != "$exists"
    if isinstance(value, dict):
        return any(_binds_a_bool(v, k) for k, v in value.items())
    if isinstance(value, list):
        return any(_binds_a_bool(v, key) for v in value)
    return False


@pytest.mark.parametrize("flt, expected", CASES + EXTRA_CASES, ids=[json.dumps(c[0]) for c in CASES + EXTRA_CASES])
def test_every_filter_operator_end_to_end(filter_store, flt, expected):
    if _binds_a_bool(flt):
        # A Python bool binds as BOOLEAN, which Oracle's PASSING clause does not take (VARCHAR2,
        # NUMBER, BINARY_DOUBLE, DATE, TIMESTAMP): an error there, ORA-03001 here, never 1/0.
        with pytest.raises(Exception) as exc:
            filter_store.similarity_search("document", k=20, filter=flt)
        assert _oracle_code(exc.value) == 3001
        return
    docs = filter_store.similarity_search("document", k=20, filter=flt)
    assert {int(d.page_content.split()[1]) for d in docs} == expected
