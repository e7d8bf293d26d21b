"""Claim: a comment is a comment. No engine decision depends on anything the statement's text can set.

sqlglot fills `Expression.meta` from a comment containing `sqlglot.meta`; the engine once read its own marks
(`rls_inner`, `oracle_type`, ...) from there, so `/* sqlglot.meta rls_inner */` turned row-level security off.
Attack table: every mark the engine ever used, written as a block comment, a line comment and a hint, in every
statement shape, must change nothing (same rows, same errors), and no comment reaches a column heading.
"""
from __future__ import annotations

import oracledb
import pytest
from sqlglot import exp

from tests.conftest import ora_code
from tests.security.protected import rows
from workshop.embedded.dialect import parse
from workshop.embedded.markers import Mark

#: every mark the translator keeps (their former string keys), bare and with values a comment could give
MARKS = [m.name.lower() for m in Mark] + ["oracle_type=NUMBER", "oracle_type=VARCHAR2", "rls_inner=1",
                                          "text_slot=0", "vector_metric=COSINE", "rls_inner, oracle_type=NUMBER"]
CARRIERS = {
    "block": "/* sqlglot.meta {m} */",
    "line": "-- sqlglot.meta {m}\n",
    "hint": "/*+ sqlglot.meta {m} */",
    "glued": "/*sqlglot.meta {m}*/",
}
#: statement shapes over the protected KB table; {c} is where the comment goes
READS = {
    "after-table": "SELECT DISTINCT tenant_id FROM kb {c}",
    "after-alias": "SELECT DISTINCT k.tenant_id FROM kb k {c}",
    "before-table": "SELECT DISTINCT tenant_id FROM {c} kb",
    "select-hint-slot": "SELECT {c} DISTINCT tenant_id FROM kb",
    "subquery": "SELECT DISTINCT tenant_id FROM (SELECT tenant_id FROM kb {c})",
    "cte": "WITH x AS (SELECT tenant_id FROM kb {c}) SELECT DISTINCT tenant_id FROM x",
    "join": "SELECT DISTINCT b.tenant_id FROM dual d JOIN kb {c} b ON 1 = 1",
    "scalar-subquery": "SELECT (SELECT COUNT(DISTINCT tenant_id) FROM kb {c}) FROM dual",
    "exists": "SELECT COUNT(*) FROM dual WHERE EXISTS (SELECT 1 FROM kb {c} WHERE tenant_id = 'globex')",
    "in-subquery": "SELECT COUNT(*) FROM dual WHERE 'initech' IN (SELECT tenant_id FROM kb {c})",
    "union": "SELECT tenant_id FROM kb {c} UNION SELECT tenant_id FROM kb",
    "quoted": 'SELECT DISTINCT tenant_id FROM "KB" {c}',
    "qualified": "SELECT DISTINCT tenant_id FROM workshop.kb {c}",
    "text": "SELECT DISTINCT tenant_id FROM kb {c} WHERE CONTAINS(body, 'shared', 1) > 0",
}
SHAPE_IDS = sorted(READS)


def _case(shape: str, carrier: str, mark: str) -> str:
    return READS[shape].format(c=CARRIERS[carrier].format(m=mark))


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
@pytest.mark.parametrize("shape", SHAPE_IDS)
def test_no_mark_in_a_comment_changes_a_read(acme, shape, carrier):
    baseline = sorted(rows(acme, READS[shape].format(c="")))
    for mark in MARKS:
        assert sorted(rows(acme, _case(shape, carrier, mark))) == baseline, (shape, carrier, mark)


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_every_tenant_read_is_acme_only(acme, carrier):
    for mark in MARKS:
        assert {r[0] for r in rows(acme, _case("after-table", carrier, mark))} == {"acme"}


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_insert_select_copies_only_the_sessions_rows(acme, carrier):
    for mark in MARKS:
        acme.execute(f"INSERT INTO sink (tenant_id) SELECT tenant_id FROM kb {CARRIERS[carrier].format(m=mark)}")
    assert {r[0] for r in rows(acme, "SELECT DISTINCT tenant_id FROM sink")} == {"acme"}


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_update_and_delete_still_see_only_the_sessions_rows(acme, carrier):
    for mark in MARKS:
        c = CARRIERS[carrier].format(m=mark)
        acme.execute(f"UPDATE kb {c} SET body = 'x' WHERE tenant_id = 'globex'")
        assert acme.rowcount == 0
        acme.execute(f"DELETE FROM kb {c} WHERE tenant_id <> 'acme'")
        assert acme.rowcount == 0


ERRORS = {
    "distinct-vector": ("SELECT DISTINCT emb {c} FROM kb", 22848),
    "order-by-vector": ("SELECT id FROM kb ORDER BY emb {c}", 22848),
    "group-by-vector": ("SELECT COUNT(*) FROM kb GROUP BY emb {c}", 22848),
    "union-vector": ("SELECT emb {c} FROM kb UNION SELECT emb FROM kb", 22848),
    "union-number-text": ("SELECT id {c} FROM kb UNION SELECT 'x' FROM dual", 1790),
    "union-text-number": ("SELECT 'x' {c} FROM dual UNION SELECT id FROM kb", 1790),
    "intersect-types": ("SELECT id FROM kb INTERSECT SELECT tenant_id {c} FROM kb", 1790),
    "coalesce-types": ("SELECT COALESCE(id, 'x') {c} FROM kb", 932),
    "coalesce-types-inside": ("SELECT COALESCE(id {c}, 'x') FROM kb", 932),
}


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_oracle_checks_still_raise(acme, case, carrier):
    sql, code = ERRORS[case]
    for mark in MARKS:
        with pytest.raises(oracledb.DatabaseError) as exc:
            acme.execute(sql.format(c=CARRIERS[carrier].format(m=mark)))
        assert ora_code(exc) == code, (case, carrier, mark)


HEADINGS = {
    "inside-sum": ("SELECT id /* note */ + 1 FROM kb", "ID+1"),
    "line-inside-sum": ("SELECT id -- note\n + 1 FROM kb", "ID+1"),
    "inside-call": ("SELECT UPPER(/* x */ tenant_id) FROM kb", "UPPER(TENANT_ID)"),
    "meta-inside-call": ("SELECT LOWER(tenant_id /* sqlglot.meta oracle_text=ZZZ */) FROM kb", "LOWER(TENANT_ID)"),
    "hint-before": ("SELECT /*+ FULL(kb) */ id + 2 FROM kb", "ID+2"),
    "after-column": ("SELECT tenant_id /* sqlglot.meta written_unquoted */ FROM kb", "TENANT_ID"),
}


@pytest.mark.parametrize("case", sorted(HEADINGS))
def test_a_comment_never_reaches_a_heading(acme, case):
    sql, heading = HEADINGS[case]
    acme.execute(sql)
    assert [d[0] for d in acme.description] == [heading]


def test_the_parse_tree_carries_no_comment_and_no_text_meta():
    """The first line of defence: comments are gone before sqlglot sees the statement."""
    tree = parse("SELECT /*+ sqlglot.meta rls_inner */ a -- sqlglot.meta oracle_type=NUMBER\n"
                 " FROM kb /* sqlglot.meta rls_inner */ WHERE a = 1 /* x */")
    for node in tree.walk():
        assert not node.comments
        # sqlglot keeps token positions there; nothing else may be
        assert set(node.meta) <= {"line", "col", "start", "end"}, (type(node).__name__, node.meta)


def test_the_translator_ignores_string_keys_in_meta(acme):
    """The second: even a string key set on the tree by any other path means nothing to the engine."""
    from workshop.embedded.translate import Translator
    engine = acme.connection._engine
    engine.catalog.refresh()
    tree = parse("SELECT DISTINCT tenant_id FROM kb")
    for node in tree.walk():
        if isinstance(node, exp.Table):
            node.meta["rls_inner"] = True
    plan = Translator(engine.catalog).translate_query(tree)
    assert "SYS_CONTEXT" in plan.sql.upper()


def test_only_a_hint_is_a_hint(acme):
    """IGNORE_ROW_ON_DUPKEY_INDEX is the one hint with a semantic effect (SQL Language Reference, "Comments"): as a
    hint it skips the duplicate; the same words in a plain comment, or a hint carrying `sqlglot.meta`, are
    nothing more than what Oracle reads."""
    acme.execute("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(kb (id)) */ INTO kb (id, tenant_id) VALUES (1, 'acme')")
    assert acme.rowcount == 0
    acme.execute("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(kb (id)) sqlglot.meta rls_inner */ INTO kb (id, tenant_id) "
                 "VALUES (2, 'acme')")
    assert acme.rowcount == 0
    with pytest.raises(oracledb.IntegrityError) as exc:
        acme.execute("INSERT /* IGNORE_ROW_ON_DUPKEY_INDEX(kb (id)) */ INTO kb (id, tenant_id) VALUES (1, 'acme')")
    assert ora_code(exc) == 1


def test_no_string_key_skips_a_type_check(acme):
    """The same for the COALESCE datatype check (a `nvl` string key once skipped it: ORA-00932 bypassed)."""
    from workshop.embedded.translate import Translator
    engine = acme.connection._engine
    engine.catalog.refresh()
    tree = parse("SELECT COALESCE(id, 'x') FROM kb")
    for node in tree.walk():
        node.meta.update({m.name.lower(): True for m in Mark})
    with pytest.raises(Exception) as exc:
        Translator(engine.catalog).translate_query(tree)
    assert getattr(exc.value, "code", None) == 932
