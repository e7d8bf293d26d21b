"""Each engine owns its function, table-function and dictionary names (catalog.SqlNames): two engines built
with different plug-ins on the same database file each see only their own registrations, whichever was
built first, and no module-global registry is left for a plug-in to leak through."""
from __future__ import annotations

import oracledb
import pytest

from workshop.embedded import catalog, translate
from workshop.embedded.engine import Engine
from workshop.embedded.model_support import Models
from workshop.embedded.rls import RowLevelSecurity


class Shout:
    """A toy plug-in: one SQL function and one dictionary view, the way a real plug-in adds them."""

    name = "shout"

    def install(self, engine: Engine) -> None:
        engine.register("ORA_SHOUT", lambda text: None if text is None else str(text).upper() + "!", 1, True)
        engine.map_function("SHOUT", "ORA_SHOUT", "VARCHAR2")
        engine.hooks.views["USER_SHOUTS"] = "SELECT 'HELLO' AS WORD"


@pytest.fixture
def engines(tmp_path):
    path = tmp_path / "shared.db"
    rls = Engine(path, plugins=(RowLevelSecurity(), Shout()))
    models = Engine(path, plugins=(Models(),))      # built second: a global registry would now hold both
    yield rls, models
    rls.close()
    models.close()


def _fails(engine: Engine, sql: str, code: str) -> None:
    with pytest.raises(oracledb.DatabaseError, match=code):
        engine.execute(sql)


def test_functions_belong_to_the_engine_whose_plugins_registered_them(engines):
    rls, models = engines
    assert rls.execute("SELECT SYS_CONTEXT('USERENV', 'SESSION_USER'), SHOUT('hi') FROM dual").rows \
        == [("WORKSHOP", "HI!")]
    _fails(models, "SELECT SYS_CONTEXT('USERENV', 'SESSION_USER') FROM dual", "ORA-00904")
    _fails(models, "SELECT SHOUT('hi') FROM dual", "ORA-00904")
    _fails(rls, "SELECT DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING('x', JSON('{}')) FROM dual", "ORA-03001")
    assert "DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING" in models.names.functions
    assert "SYS_CONTEXT" not in models.names.functions and "SHOUT" not in models.names.functions
    # Both engines share the core library (each registered it on its own connection).
    for engine in engines:
        assert engine.execute("SELECT UPPER('a'), MEDIAN(2) FROM dual").rows == [("A", 2)]


def test_table_functions_belong_to_their_engine(engines):
    rls, models = engines
    chunks = """SELECT COUNT(*) FROM DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS('one two three four five',
                JSON('{"by":"words","max":2,"overlap":0}')) c"""
    assert models.execute(chunks).rows[0][0] >= 2
    _fails(rls, chunks, "ORA-03001")
    assert "DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS" in models.names.table_functions
    assert not rls.names.table_functions and not rls.hooks.table_functions


def test_dictionary_views_belong_to_their_engine_even_on_one_file(engines):
    """The file holds every view either engine created; each engine resolves only its own."""
    rls, models = engines
    assert rls.execute("SELECT COUNT(*) FROM USER_POLICIES").rows == [(0,)]
    assert rls.execute("SELECT WORD FROM USER_SHOUTS").rows == [("HELLO",)]
    assert models.execute("SELECT COUNT(*) FROM USER_MINING_MODELS").rows[0][0] >= 0
    _fails(models, "SELECT COUNT(*) FROM USER_POLICIES", "ORA-00942")
    _fails(models, "SELECT WORD FROM USER_SHOUTS", "ORA-00942")
    _fails(rls, "SELECT COUNT(*) FROM USER_MINING_MODELS", "ORA-00942")
    for engine in engines:          # the core dictionary is everyone's
        assert engine.execute("SELECT COUNT(*) FROM USER_TABLES").rows[0][0] >= 0


def test_a_new_engine_starts_from_the_core_names_only(tmp_path, engines):
    core = Engine(tmp_path / "core.db")
    try:
        assert core.names.dictionary == set(catalog.CORE_DICTIONARY)
        assert not {"SYS_CONTEXT", "SHOUT", "DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING"} & set(core.names.functions)
        assert "MEDIAN" in core.names.aggregates and "UPPER" in core.names.scalars
    finally:
        core.close()
    for engine in engines:
        assert engine.names is engine.catalog.names
    assert engines[0].names is not engines[1].names


def test_the_module_global_registries_are_gone():
    for name in ("ENGINE_FUNCTIONS", "SCALAR_NAMES", "AGGREGATE_NAMES", "TABLE_FUNCTIONS"):
        assert not hasattr(translate, name), name
    assert not hasattr(catalog, "DICTIONARY_NAMES")
