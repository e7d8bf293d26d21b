"""SQL/JSON functions: JSON_EXISTS / JSON_VALUE / JSON_QUERY / JSON_EQUAL / JSON_TABLE /
JSON_SERIALIZE / JSON_OBJECT / JSON_ARRAY / JSON_ARRAYAGG, with Oracle's defaults and
ON ERROR / ON EMPTY behaviour."""
from __future__ import annotations

import datetime as dt
import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop.embedded.jsonfuncs import (
    JSON_NULL, Default, FormatJson, JsonTableColumn, json_array, json_arrayagg_class, JsonArrayAgg,
    json_equal, json_exists, json_object, json_query, json_query_text, json_serialize, json_table_column_names,
    json_table_rows, json_value, parse_json, passing_from_args,
)
from workshop.embedded.jsonpath import JsonDataError, JsonPassingError, JsonPathError

DOC = '{"id": 7, "name": "Ada", "score": 12.50, "ok": true, "none": null, "tags": ["a", "b"], ' \
      '"when": "2024-05-06T07:08:09", "nested": {"x": [1, 2, 3]}, "num_text": "42", "long": "' + "x" * 5000 + '"}'


# ----------------------------------------------------------------------------- documents
def test_text_python_and_bytes_documents_are_equivalent():
    parsed = json.loads(DOC)
    for doc in (DOC, parsed, DOC.encode()):
        assert json_value(doc, "$.name") == "Ada"
        assert json_exists(doc, "$.nested.x")
    # a Python str document is JSON text, so '"Ada"' is the JSON string Ada
    assert json_value('"Ada"', "$") == "Ada"


def test_oracle_lax_json_syntax_is_accepted():
    assert parse_json("{a : null, 'b': 'x', c: [TRUE, False, NULL, +1, .5]}") == {
        "a": None, "b": "x", "c": [True, False, None, 1, 0.5]}
    assert json_exists("{a : null}", "$.a") is True  # Oracle doc example


def test_sql_null_and_empty_text_are_unknown_or_null():
    assert json_exists(None, "$.a") is None
    assert json_exists("", "$.a") is None
    assert json_value(None, "$.a") is None
    assert json_query(None, "$.a") is None
    assert json_equal(None, "{}") is None


def test_invalid_json_follows_on_error():
    assert json_exists("{not json", "$.a") is False
    assert json_exists("{not json", "$.a", on_error="TRUE") is True
    with pytest.raises(JsonDataError) as info:
        json_exists("{not json", "$.a", on_error="ERROR")
    assert info.value.code == 40441
    assert json_value("[1,", "$[0]") is None
    assert json_value("[1,", "$[0]", on_error=Default("bad")) == "bad"
    with pytest.raises(JsonDataError) as info:
        json_value("[1,", "$[0]", on_error="ERROR")
    assert info.value.code == 40441


def test_path_syntax_and_passing_errors_ignore_on_error():
    with pytest.raises(JsonPathError):
        json_exists(DOC, "$.a[")
    with pytest.raises(JsonPathError):
        json_value(DOC, "$.a[", on_error="NULL")
    with pytest.raises(JsonPassingError):
        json_exists(DOC, "$?(@.id == $v)")
    assert json_exists(DOC, "$?(@.id == $v)", passing={"v": 7}) is True


# ----------------------------------------------------------------------------- JSON_EXISTS
@pytest.mark.parametrize("path,expected", [
    ("$.id", True),
    ("$.none", True),              # a JSON null value exists
    ("$.missing", False),
    ("$.tags[1]", True),
    ("$.tags[2]", False),
    ("$?(@.score > 12)", True),
    ("$.nested.x?(@ > 2)", True),
    ("$.nested.x?(@ > 3)", False),
    ("strict $.missing", False),   # strict error -> FALSE ON ERROR
])
def test_json_exists(path, expected):
    assert json_exists(DOC, path) is expected


def test_json_exists_strict_error_can_raise():
    with pytest.raises(JsonDataError):
        json_exists(DOC, "strict $.missing", on_error="ERROR")


# ----------------------------------------------------------------------------- JSON_VALUE
@pytest.mark.parametrize("path,returning,expected", [
    ("$.id", "VARCHAR2", "7"),
    ("$.score", "VARCHAR2", "12.5"),
    ("$.ok", "VARCHAR2", "true"),
    ("$.id", "NUMBER", 7),
    ("$.score", "NUMBER", 12.5),
    ("$.num_text", "NUMBER", 42),          # numeric string converts
    ("$.score", "NUMBER(5,0)", 13),        # rounds half away from zero
    ("$.score", "INTEGER", 13),
    ("$.score", "BINARY_DOUBLE", 12.5),
    ("$.ok", "BOOLEAN", True),
    ("$.when", "TIMESTAMP", dt.datetime(2024, 5, 6, 7, 8, 9)),
    ("$.when", "DATE", dt.datetime(2024, 5, 6)),
    ("$.when", "DATE PRESERVE TIME", dt.datetime(2024, 5, 6, 7, 8, 9)),
    ("$.when", "TIMESTAMP WITH TIME ZONE", dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc)),
    ("$.name", "VARCHAR2(2) TRUNCATE", "Ad"),
    ("$.name", "CHAR(5)", "Ada  "),
    ("$.name.upper()", "VARCHAR2", "ADA"),
    ("$.tags.size()", "NUMBER", 2),
    ("$.none", "VARCHAR2", None),          # JSON null -> SQL NULL
])
def test_json_value_returning(path, returning, expected):
    assert json_value(DOC, path, returning=returning) == expected


@pytest.mark.parametrize("path,returning,code", [
    ("$.missing", "VARCHAR2", 40462),
    ("$.tags[*]", "VARCHAR2", 40470),
    ("$.tags", "VARCHAR2", 40456),
    ("$.nested", "VARCHAR2", 40456),
    ("$.name", "NUMBER", 1722),
    ("$.ok", "NUMBER", 40799),
    ("$.name", "BOOLEAN", 40786),
    ("$.name", "DATE", 1861),
    ("$.name", "VARCHAR2(2)", 40478),
    ("$.long", "VARCHAR2", 40478),         # default VARCHAR2(4000) is too short for 5000 bytes
    ("$.score", "NUMBER(2,1)", 1438),
])
def test_json_value_errors_with_error_on_error(path, returning, code):
    assert json_value(DOC, path, returning=returning) is None  # default NULL ON ERROR
    with pytest.raises(JsonDataError) as info:
        json_value(DOC, path, returning=returning, on_error="ERROR")
    assert info.value.code == code
    assert str(info.value).startswith(f"ORA-{code:05d}: ")


def test_json_value_clob_has_no_length_limit():
    assert json_value(DOC, "$.long", returning="CLOB") == "x" * 5000


def test_json_value_on_empty_is_separate_from_on_error():
    assert json_value(DOC, "$.missing", on_empty=Default("none")) == "none"
    assert json_value(DOC, "$.missing", on_error="ERROR", on_empty="NULL") is None
    with pytest.raises(JsonDataError) as info:
        json_value(DOC, "$.missing", on_empty="ERROR")
    assert info.value.code == 40462
    # ON EMPTY omitted: ON ERROR decides the empty case too (Oracle)
    assert json_value(DOC, "$.missing", on_error=Default("d")) == "d"
    # an error that is not "empty" is not handled by ON EMPTY
    assert json_value(DOC, "$.tags", on_empty=Default("e")) is None
    # DEFAULT values take the RETURNING type
    assert json_value(DOC, "$.missing", returning="NUMBER", on_error=("DEFAULT", "0")) == 0


def test_json_value_handler_spelling():
    assert json_value(DOC, "$.missing", on_error="null on error") is None
    with pytest.raises(JsonDataError):
        json_value(DOC, "$.missing", on_error="  error  ON ERROR")
    with pytest.raises(ValueError):
        json_value(DOC, "$.a", on_error="TRUE")  # TRUE ON ERROR is for conditions only
    with pytest.raises(Exception) as info:
        json_value(DOC, "$.a", returning="SDO_GEOMETRY")
    assert info.value.code == 3001


# ----------------------------------------------------------------------------- JSON_QUERY
@pytest.mark.parametrize("path,wrapper,expected", [
    ("$.nested", "WITHOUT WRAPPER", {"x": [1, 2, 3]}),
    ("$.tags", "WITHOUT", ["a", "b"]),
    ("$.id", "WITHOUT", 7),                         # scalars allowed (RFC 8259, 21c+)
    ("$.tags[*]", "WITH WRAPPER", ["a", "b"]),
    ("$.tags[*]", "WITH ARRAY WRAPPER", ["a", "b"]),
    ("$.tags[*]", "WITH UNCONDITIONAL ARRAY WRAPPER", ["a", "b"]),
    ("$.tags", "WITH WRAPPER", [["a", "b"]]),
    ("$.tags", "WITH CONDITIONAL WRAPPER", ["a", "b"]),   # single array: as is
    ("$.nested", "WITH CONDITIONAL WRAPPER", {"x": [1, 2, 3]}),
    ("$.id", "WITH CONDITIONAL WRAPPER", [7]),             # single scalar: wrapped
    ("$.tags[*]", "WITH CONDITIONAL WRAPPER", ["a", "b"]),
    ("$.none", "WITHOUT", JSON_NULL),
])
def test_json_query_wrappers(path, wrapper, expected):
    result = json_query(DOC, path, wrapper=wrapper)
    assert result == expected if expected is not JSON_NULL else result is JSON_NULL


def test_json_query_multiple_values_without_wrapper():
    assert json_query(DOC, "$.tags[*]") is None
    with pytest.raises(JsonDataError) as info:
        json_query(DOC, "$.tags[*]", on_error="ERROR")
    assert info.value.code == 40480
    assert json_query(DOC, "$.tags[*]", on_error="EMPTY ARRAY") == []
    assert json_query(DOC, "$.tags[*]", on_error="EMPTY OBJECT") == {}


def test_json_query_on_empty():
    assert json_query(DOC, "$.missing") is None
    assert json_query(DOC, "$.missing", wrapper="WITH WRAPPER") is None  # ON EMPTY wins over the wrapper
    assert json_query(DOC, "$.missing", on_empty="EMPTY") == []
    assert json_query(DOC, "$.missing", on_empty="EMPTY OBJECT ON EMPTY") == {}
    with pytest.raises(JsonDataError) as info:
        json_query(DOC, "$.missing", on_empty="ERROR")
    assert info.value.code == 40462
    with pytest.raises(ValueError):
        json_query(DOC, "$.a", on_error=Default(1))  # DEFAULT is not allowed for JSON_QUERY


def test_json_query_text():
    assert json_query_text(DOC, "$.nested") == '{"x":[1,2,3]}'
    assert json_query_text(DOC, "$.none") == "null"
    assert json_query_text(DOC, "$.missing") is None
    assert json_query_text(DOC, "$.score") == "12.5"


# ----------------------------------------------------------------------------- JSON_EQUAL
@pytest.mark.parametrize("a,b,expected", [
    ("{}", "{ }", True),
    ("{a:1, b:2}", "{b:2 , a:1 }", True),      # Oracle doc examples
    ('{a:"1"}', "{a:1 }", False),
    ("[1, 2]", "[2, 1]", False),
    ("[1, 2]", "[1.0, 2]", True),
    ('{"a": [true]}', '{"a": [1]}', False),
    ("null", "null", True),
    (["a", "b"], '["a", "b"]', True),          # Python value vs JSON text
    ({"x": {"y": [1, {"z": None}]}}, '{"x": {"y": [1, {"z": null}]}}', True),
    ({"x": 1}, '{"x": 1, "y": 2}', False),
    (JSON_NULL, "null", True),
])
def test_json_equal(a, b, expected):
    assert json_equal(a, b) is expected


def test_json_equal_invalid_json():
    assert json_equal("[1]", "[}") is False
    with pytest.raises(JsonDataError) as info:
        json_equal("[1]", "[}", on_error="ERROR")
    assert info.value.code == 40441


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-100, 100), st.floats(-1e6, 1e6, allow_nan=False),
              st.text(max_size=4)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=3), children, max_size=4)),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(_json_values, _json_values)
def test_json_equal_is_symmetric_and_reflexive(a, b):
    # wrapped in a list: at top level None means SQL NULL and a str means JSON text
    x, y = [a], [b]
    assert json_equal(x, y) == json_equal(y, x)
    assert json_equal(x, x) is True
    # serialising and re-reading preserves equality (member order, 1.0 vs 1)
    assert json_equal(json_serialize(x), x) is True
    assert json_equal(json_serialize(x), json_serialize(y)) == json_equal(x, y)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=3), st.integers(), max_size=5))
def test_json_equal_ignores_member_order(d):
    reordered = dict(reversed(list(d.items())))
    assert json_equal(d, json.dumps(reordered)) is True


# ----------------------------------------------------------------------------- JSON_TABLE
PO_TEXT = json.dumps({
    "PONumber": 1600,
    "LineItems": [
        {"ItemNumber": 1, "Part": {"Description": "One Magic Christmas", "UPCCode": 13131092899}, "Quantity": 9.0},
        {"ItemNumber": 2, "Part": {"Description": "Lethal Weapon", "UPCCode": 85391628927}, "Quantity": 5.0},
        {"ItemNumber": 3, "Part": {"Description": "Mystery"}, "Quantity": "lots"},
    ],
    "Phones": [{"type": "Office", "numbers": ["1", "2"]}, {"type": "Mobile", "numbers": []}],
})


def test_json_table_with_ordinality_types_and_default_paths():
    cols = [
        JsonTableColumn("seq", "ordinality"),
        JsonTableColumn("ItemNumber", "path", "NUMBER"),          # default path $.ItemNumber (case as written)
        JsonTableColumn("descr", "path", "VARCHAR2(100)", "$.Part.Description"),
        JsonTableColumn("qty", "path", "NUMBER", "$.Quantity"),   # "lots" -> NULL ON ERROR
        JsonTableColumn("has_upc", "exists", "VARCHAR2", "$.Part.UPCCode"),
        JsonTableColumn("has_upc_n", "exists", "NUMBER", "$.Part.UPCCode"),
        JsonTableColumn("part", "query", "VARCHAR2", "$.Part"),
    ]
    rows = json_table_rows(PO_TEXT, "$.LineItems[*]", cols)
    assert json_table_column_names(cols) == ["seq", "ItemNumber", "descr", "qty", "has_upc", "has_upc_n", "part"]
    assert rows == [
        (1, 1, "One Magic Christmas", 9, "true", 1, '{"Description":"One Magic Christmas","UPCCode":13131092899}'),
        (2, 2, "Lethal Weapon", 5, "true", 1, '{"Description":"Lethal Weapon","UPCCode":85391628927}'),
        (3, 3, "Mystery", None, "false", 0, '{"Description":"Mystery"}'),
    ]


def test_json_table_default_path_is_case_sensitive_column_name():
    rows = json_table_rows('[{"Name": "a", "name": "b"}]', "$[*]",
                           [JsonTableColumn("Name"), JsonTableColumn("name"), JsonTableColumn("NAME")])
    assert rows == [("a", "b", None)]


def test_json_table_error_handling():
    cols = [JsonTableColumn("qty", "path", "NUMBER", "$.Quantity", on_error="ERROR")]
    with pytest.raises(JsonDataError) as info:
        json_table_rows(PO_TEXT, "$.LineItems[*]", cols)
    assert info.value.code == 1722
    assert json_table_rows("{bad", "$[*]", [JsonTableColumn("a")]) == []
    with pytest.raises(JsonDataError):
        json_table_rows("{bad", "$[*]", [JsonTableColumn("a")], on_error="ERROR")
    # table-level ERROR is inherited by columns
    with pytest.raises(JsonDataError):
        json_table_rows(PO_TEXT, "$.LineItems[*]", [JsonTableColumn("qty", "path", "NUMBER", "$.Quantity")],
                        on_error="ERROR")
    assert json_table_rows(None, "$[*]", [JsonTableColumn("a")]) == []


def test_json_table_nested_path_outer_join_and_sibling_union():
    cols = [
        JsonTableColumn("type", path="$.type"),
        JsonTableColumn("n", "nested", path="$.numbers[*]", columns=(
            JsonTableColumn("pos", "ordinality"), JsonTableColumn("num", path="$"))),
    ]
    assert json_table_rows(PO_TEXT, "$.Phones[*]", cols) == [
        ("Office", 1, "1"), ("Office", 2, "2"),
        ("Mobile", None, None),            # outer join: parent row kept with NULL children
    ]
    siblings = [
        JsonTableColumn("po", path="$.PONumber", type="NUMBER"),
        JsonTableColumn("i", "nested", path="$.LineItems[0 to 1]", columns=(JsonTableColumn("item", path="$.ItemNumber", type="NUMBER"),)),
        JsonTableColumn("p", "nested", path="$.Phones[*]", columns=(JsonTableColumn("phone", path="$.type"),)),
    ]
    assert json_table_column_names(siblings) == ["po", "item", "phone"]
    assert json_table_rows(PO_TEXT, "$", siblings) == [
        (1600, 1, None), (1600, 2, None), (1600, None, "Office"), (1600, None, "Mobile")]


def test_json_table_row_path_with_filter_and_passing():
    rows = json_table_rows(PO_TEXT, "$.LineItems[*]?(@.Quantity > $q)",
                           [JsonTableColumn("ItemNumber", type="NUMBER")], passing={"q": 6})
    assert rows == [(1,)]


def test_json_table_null_array_gives_a_null_row():
    # AskTOM example: "audits": null under lax [*] yields one row of NULLs
    doc = '{data:[{"audits":[{"policy_num":"10"},{"policy_num":"20"}]},{"audits":null}]}'
    rows = json_table_rows(doc, "$.data[*].audits[*]", [JsonTableColumn("pol_num", path="$.policy_num")])
    assert rows == [("10",), ("20",), (None,)]


def test_json_table_column_validation():
    with pytest.raises(ValueError):
        JsonTableColumn("x", "bogus")
    with pytest.raises(ValueError):
        JsonTableColumn("x", "nested", path="$.a")


# ----------------------------------------------------------------------------- generation
def test_json_serialize_is_compact_like_oracle():
    assert json_serialize('{ "a" : 1.0, "b" : [true, null, "x"] }') == '{"a":1,"b":[true,null,"x"]}'
    assert json_serialize({"d": dt.date(2024, 1, 2)}) == '{"d":"2024-01-02"}'
    assert json_serialize(None) is None
    assert json_serialize(JSON_NULL) == "null"
    assert json_serialize({"a": [1]}, pretty=True) == '{\n  "a" : [\n    1\n  ]\n}'
    assert json_serialize({"é": 1}) == '{"é":1}'
    assert json_serialize({"é": 1}, ascii=True) == '{"\\u00e9":1}'


def test_json_object_and_array():
    assert json_object([("a", 1), ("b", None), ("c", "x")]) == '{"a":1,"b":null,"c":"x"}'
    assert json_object([("a", 1), ("b", None)], absent_on_null=True) == '{"a":1}'
    assert json_object({"j": FormatJson('{"k": [1, 2.0]}'), "s": '{"k":1}'}) == '{"j":{"k":[1,2]},"s":"{\\"k\\":1}"}'
    assert json_object([("n", 2.50), ("t", True), ("ts", dt.datetime(2024, 1, 2, 3, 4, 5))]) == \
        '{"n":2.5,"t":true,"ts":"2024-01-02T03:04:05"}'
    assert json_array([1, None, "a"]) == '[1,"a"]'
    assert json_array([1, None], absent_on_null=False) == "[1,null]"
    with pytest.raises(JsonDataError) as info:
        json_object([(None, 1)])
    assert info.value.code == 40595


def test_json_arrayagg_as_sqlite_aggregate():
    con = sqlite3.connect(":memory:")
    con.create_aggregate("json_arrayagg", -1, JsonArrayAgg)
    con.create_aggregate("json_arrayagg_json", 1, json_arrayagg_class(format_json=True))
    con.create_aggregate("json_arrayagg_desc", 2, json_arrayagg_class(descending=(True,)))
    con.create_aggregate("json_arrayagg_nulls", 1, json_arrayagg_class(absent_on_null=False))
    con.execute("create table t (g text, v, j text, k)")
    con.executemany("insert into t values (?,?,?,?)", [
        ("a", 3, '{"x":1}', 2), ("a", None, None, 1), ("a", "s", '[1]', None), ("b", 1.5, '"q"', 5)])
    q = lambda sql: con.execute(sql).fetchall()  # noqa: E731
    assert q("select g, json_arrayagg(v) from t group by g order by g") == [("a", '[3,"s"]'), ("b", "[1.5]")]
    assert q("select json_arrayagg(v, k) from t where g = 'a'") == [('[3,"s"]',)]        # ordered by k, nulls last
    assert q("select json_arrayagg_desc(k, k) from t") == [("[5,2,1]",)]                # DESC
    assert q("select json_arrayagg_json(j) from t where g = 'a'") == [('[{"x":1},[1]]',)]
    assert q("select json_arrayagg_nulls(v) from t where g = 'a'") == [('[3,null,"s"]',)]
    assert q("select json_arrayagg(v) from t where g = 'zzz'") == [(None,)]               # no rows: NULL


def test_passing_from_udf_arguments():
    assert passing_from_args(("val0", "a", "val1", 2)) == {"val0": "a", "val1": 2}
    with pytest.raises(ValueError):
        passing_from_args(("val0",))


def test_json_table_checks_passing_variables_of_column_paths():
    with pytest.raises(JsonPassingError):
        json_table_rows(PO_TEXT, "$.LineItems[*]", [JsonTableColumn("x", path="$?(@.ItemNumber == $n).ItemNumber")])
    rows = json_table_rows(PO_TEXT, "$.LineItems[*]", [JsonTableColumn("x", "exists", path="$?(@.ItemNumber == $n)")],
                           passing={"n": 2})
    assert rows == [("false",), ("true",), ("false",)]
