"""langgraph-oracledb's OracleStore unmodified on the engine (issue 18): setup() twice from two sessions
(CREATE INDEX IF NOT EXISTS over a primary key, INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX */ migrations), its numeric
filters (str(value) bound against TO_NUMBER(JSON_VALUE(...))) and list_namespaces (CONNECT BY LEVEL inside a
correlated scalar subquery)."""
from __future__ import annotations

import pytest
from langgraph_oracledb.store.oracle.base import OracleStore

from workshop.embedded import connect


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("lgstore") / "store.db"
    first, second = connect(path), connect(path)
    store = OracleStore(first)
    store.setup()
    store.setup()
    OracleStore(second).setup()
    store.put(("users", "a", "prefs"), "k1", {"n": 5})
    store.put(("users", "b"), "k2", {"n": 50})
    store.put(("docs",), "k3", {"n": 500})
    yield store
    first.close()
    second.close()


@pytest.mark.parametrize("filter_, keys", [
    ({"n": {"$gt": 10}}, ["k2", "k3"]),
    ({"n": {"$gte": 50}}, ["k2", "k3"]),
    ({"n": {"$lt": 50}}, ["k1"]),
    ({"n": {"$lte": 5}}, ["k1"]),
    ({"n": {"$gt": 49.5, "$lt": 50.5}}, ["k2"]),
    ({"n": 50}, ["k2"]),
], ids=["gt", "gte", "lt", "lte", "between_floats", "eq"])
def test_numeric_filters(store, filter_, keys):
    assert sorted(item.key for item in store.search((), filter=filter_, limit=10)) == keys


@pytest.mark.parametrize("kwargs, namespaces", [
    ({}, [("docs",), ("users", "a", "prefs"), ("users", "b")]),
    ({"max_depth": 1}, [("docs",), ("users",)]),
    ({"prefix": ("users",), "max_depth": 2}, [("users", "a"), ("users", "b")]),
], ids=["all", "depth_1", "prefix_depth_2"])
def test_list_namespaces(store, kwargs, namespaces):
    assert store.list_namespaces(**kwargs) == namespaces
