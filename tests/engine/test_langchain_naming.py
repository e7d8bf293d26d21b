"""langchain-oracledb's own naming tests (`tests/integration_tests/vectorstores/test_oraclevs.py`:
test_table_exists_test, test_create_table_test, test_create_hnsw_index_test), case by case, on the engine: where
the upstream suite expects Oracle to raise, the engine raises (SQL Language Reference, "Database Object Naming
Rules"; AI Vector Search User's Guide, VECTOR dimensions 1 to 65535)."""
from __future__ import annotations

import oracledb
import pytest
from langchain_core.embeddings import Embeddings
from langchain_oracledb.vectorstores.oraclevs import OracleVS, _create_table, create_index, drop_index_if_exists
from langchain_oracledb.vectorstores.utils import DistanceStrategy, _table_exists, drop_table_purge
from langchain_oracledb.vectorstores.utils import _quote_indentifier as quote

from workshop.embedded import connect


class Fixed(Embeddings):
    def embed_documents(self, texts):
        return [[1.0, 0.0, 0.5] for _ in texts]

    def embed_query(self, text):
        return [1.0, 0.0, 0.5]


@pytest.fixture
def conn(tmp_path):
    conn = connect(tmp_path / "names.db")
    yield conn
    conn.close()


@pytest.mark.parametrize("name, expected", [
    (quote("Hello"), False),
    (quote("v$transaction"), False),                      # quoted lower case: another name
    ("123", 903),                                         # invalid table name
    (quote("x" * 129), 972),                              # identifier too long
], ids=["missing", "quoted_lower", "number", "too_long"])
def test_table_exists(conn, name, expected):
    if isinstance(expected, int) and not isinstance(expected, bool):
        with pytest.raises(oracledb.DatabaseError) as info:
            _table_exists(conn, name)
        assert info.value.args[0].code == expected
    else:
        assert _table_exists(conn, name) is expected


def test_table_exists_is_case_sensitive_for_quoted_names(conn):
    _create_table(conn, quote("TB1"), 65535)
    assert _table_exists(conn, quote("TB1"))
    assert not _table_exists(conn, quote("Tb1"))
    drop_table_purge(conn, quote("TB1"))
    _create_table(conn, quote('"हिन्दी"'), 545)
    assert _table_exists(conn, quote('"हिन्दी"'))


@pytest.mark.parametrize("name, dims, code", [
    ("HELLO", 100, None), ("Hello123", 65535, None), ("T2", 1000, None), ('"T5"', 128, None), ("Yoksh", 500, None),
    ('"हिन्दी"', 545, None),
    ("T1", 65536, 51801), ("T1", 0, 51801), ("T1", -1, "error"),
    ("U1.TB4", 128, 1918),                                # no such user
], ids=["hello", "mixed_case", "t2", "quoted", "replaced", "hindi", "dims_65536", "dims_0", "dims_negative",
        "other_schema"])
def test_create_table(conn, name, dims, code):
    if code is None:
        _create_table(conn, quote(name), dims)
        _create_table(conn, quote(name), dims + 10)       # exists already: nothing happens
        assert _table_exists(conn, quote(name))
        return
    with pytest.raises(oracledb.DatabaseError) as info:
        _create_table(conn, quote(name), dims)
    if code != "error":
        assert info.value.args[0].code == code


def test_create_hnsw_index(conn):
    vs = OracleVS(conn, Fixed(), "TB1", DistanceStrategy.EUCLIDEAN_DISTANCE)
    create_index(conn, vs)
    with pytest.raises(RuntimeError, match="such column list already indexed"):
        create_index(conn, vs)
    vs3 = OracleVS(conn, Fixed(), "TB3", DistanceStrategy.EUCLIDEAN_DISTANCE)
    create_index(conn, vs3, params={"idx_name": '"हिन्दी"', "idx_type": "HNSW"})
    drop_index_if_exists(conn, '"हिन्दी"')
    with pytest.raises(ValueError):
        create_index(conn, OracleVS(conn, Fixed(), "TB4", DistanceStrategy.EUCLIDEAN_DISTANCE),
                     params={"idx_name": '""', "idx_type": "HNSW"})
