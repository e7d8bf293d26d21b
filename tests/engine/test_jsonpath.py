"""SQL/JSON path language: compile + evaluate, against examples from the Oracle JSON
Developer's Guide (purchase-order documents) and the SQL/JSON lax/strict rules."""
from __future__ import annotations

import copy
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop.embedded.jsonpath import (
    JsonDataError, JsonPassingError, JsonPathError, compile_path, compare_values, render_number,
)

# The purchase order used throughout the Oracle JSON Developer's Guide (abridged).
PO = {
    "PONumber": 1600,
    "Reference": "ABULL-20140421",
    "Requestor": "Alexis Bull",
    "User": "ABULL",
    "CostCenter": "A50",
    "ShippingInstructions": {
        "name": "Alexis Bull",
        "Address": {"street": "200 Sporting Green", "city": "South San Francisco", "state": "CA",
                    "zipCode": 99236, "country": "United States of America"},
        "Phone": [{"type": "Office", "number": "909-555-7307"},
                  {"type": "Mobile", "number": "415-555-1234"}],
    },
    "Special Instructions": None,
    "AllowPartialShipment": True,
    "LineItems": [
        {"ItemNumber": 1, "Part": {"Description": "One Magic Christmas", "UnitPrice": 19.95,
                                   "UPCCode": 13131092899}, "Quantity": 9.0},
        {"ItemNumber": 2, "Part": {"Description": "Lethal Weapon", "UnitPrice": 19.95,
                                   "UPCCode": 85391628927}, "Quantity": 5.0},
    ],
}


def ev(path: str, doc=PO, **passing):
    return compile_path(path).evaluate(doc, passing)


# (path, expected list of selected values) on PO, lax mode unless the path says strict
PO_CASES = [
    ("$", [PO]),
    ("$.PONumber", [1600]),
    ("$.ShippingInstructions.Address.zipCode", [99236]),
    ('$."Special Instructions"', [None]),
    ("$.ShippingInstructions.Phone[0].number", ["909-555-7307"]),
    ("$.ShippingInstructions.Phone[last].type", ["Mobile"]),
    ("$.ShippingInstructions.Phone[last-1].type", ["Office"]),
    ("$.ShippingInstructions.Phone[*].type", ["Office", "Mobile"]),
    # lax: an object step on an array applies to each element
    ("$.ShippingInstructions.Phone.type", ["Office", "Mobile"]),
    ("$.LineItems.Part.UPCCode", [13131092899, 85391628927]),
    # lax: an array step on a non-array treats it as [it]
    ("$.PONumber[0]", [1600]),
    ("$.PONumber[*]", [1600]),
    ("$.PONumber[1]", []),
    ("$.LineItems[0 to 1].ItemNumber", [1, 2]),
    ("$.LineItems[1, 0].ItemNumber", [2, 1]),
    ("$.LineItems[5].ItemNumber", []),
    ("$.nosuchfield", []),
    ("$.ShippingInstructions.Address.*", ["200 Sporting Green", "South San Francisco", "CA", 99236,
                                          "United States of America"]),
    ("$..UPCCode", [13131092899, 85391628927]),
    ("$..type", ["Office", "Mobile"]),
    # filters (Oracle doc: "three equivalent ways" of the same json_exists test)
    ("$?(@.LineItems.Part.UPCCode == 85391628927).PONumber", [1600]),
    ("$.LineItems?(@.Part.UPCCode == 85391628927).ItemNumber", [2]),
    ("$.LineItems.Part?(@.UPCCode == 85391628927).Description", ["Lethal Weapon"]),
    ('$.ShippingInstructions.Phone?(@.type == "Office").number', ["909-555-7307"]),
    ('$.ShippingInstructions.Phone?(@.type != "Office").number', ["415-555-1234"]),
    ('$.ShippingInstructions.Phone?(@.type <> "Office").number', ["415-555-1234"]),
    ("$.LineItems?(@.Quantity > 5).ItemNumber", [1]),
    ("$.LineItems?(@.Quantity >= 5).ItemNumber", [1, 2]),
    ("$.LineItems?(@.Quantity < 9).ItemNumber", [2]),
    ("$.LineItems?(@.Quantity <= 9 && @.Part.UnitPrice == 19.95).ItemNumber", [1, 2]),
    ("$.LineItems?(@.Quantity == 9 || @.ItemNumber == 2).ItemNumber", [1, 2]),
    ("$.LineItems?(!(@.Quantity == 9)).ItemNumber", [2]),
    ("$.LineItems?((@.Quantity == 9 || @.Quantity == 5) && @.ItemNumber > 1).ItemNumber", [2]),
    ('$?(@.User == "ABULL" && exists(@.LineItems?(@.Quantity > 7))).Reference', ["ABULL-20140421"]),
    ("$?(exists(@.nosuch)).PONumber", []),
    ("$?(!exists(@.nosuch)).PONumber", [1600]),
    ('$.LineItems?(@.Part.Description starts with "Lethal").ItemNumber', [2]),
    ('$.LineItems?(@.Part.Description has substring "Magic").ItemNumber', [1]),
    ('$.LineItems?(@.Part.Description like "%Weap_n").ItemNumber', [2]),
    ('$.LineItems?(@.Part.Description like "Lethal").ItemNumber', []),
    ('$.LineItems?(@.Part.Description like_regex "^one" flag "i").ItemNumber', [1]),
    ('$.LineItems?(@.Part.Description like_regex "Magic").ItemNumber', [1]),
    ('$.LineItems?(@.Part.Description eq_regex "Magic").ItemNumber', []),
    ('$.LineItems?(@.Part.Description eq_regex "Lethal W.*").ItemNumber', [2]),
    ('$.ShippingInstructions.Phone?(@.type in ("Mobile", "Pager")).number', ["415-555-1234"]),
    ("$.LineItems?(@.ItemNumber in (1, 3)).ItemNumber", [1]),
    ('$?(@."Special Instructions" == null).PONumber', [1600]),
    ("$?(@.AllowPartialShipment == true).PONumber", [1600]),
    ("$?(@.AllowPartialShipment == false).PONumber", []),
    # absolute path inside a filter
    ("$.LineItems?(@.ItemNumber < $.PONumber).ItemNumber", [1, 2]),
    # item methods
    ("$.ShippingInstructions.Phone.size()", [2]),
    ("$.PONumber.size()", [1]),
    ("$.ShippingInstructions.Phone.type()", ["array"]),
    ('$."Special Instructions".type()', ["null"]),
    ("$.AllowPartialShipment.type()", ["boolean"]),
    ("$.Reference.length()", [14]),
    ("$.Requestor.upper()", ["ALEXIS BULL"]),
    ("$.Requestor.lower()", ["alexis bull"]),
    ("$.ShippingInstructions.Phone.type.upper()", ["OFFICE", "MOBILE"]),  # lax: applied per element
    ("$.ShippingInstructions.Address.zipCode.string()", ["99236"]),
    ("$.LineItems.Quantity.string()", ["9", "5"]),
    ("$.LineItems.Part.UnitPrice.sum()", [39.9]),
    ("$.LineItems.Quantity.avg()", [7]),
    ("$.LineItems.Quantity.count()", [2]),
    ("$.LineItems.Quantity.maxNumber()", [9.0]),
    ("$.LineItems.Part.Description.minString()", ["Lethal Weapon"]),
    ("$.LineItems?(@.Part.Description.length() > 13).ItemNumber", [1]),
    ("$?(@.ShippingInstructions.Phone.size() == 2).PONumber", [1600]),
]


@pytest.mark.parametrize("path,expected", PO_CASES, ids=[c[0] for c in PO_CASES])
def test_purchase_order_paths(path, expected):
    assert ev(path) == expected


def test_quoted_field_names_with_dollar_and_spaces():
    doc = {"$agent_memory": {"revision": 7}, "a b": {"c": 1}}
    assert ev('$."$agent_memory".revision', doc) == [7]
    assert ev('$."a b".c', doc) == [1]
    assert ev('$."\\u0061 b".c', doc) == [1]  # JSON escapes in quoted names


def test_evaluation_does_not_mutate_the_document():
    before = copy.deepcopy(PO)
    ev("$..UPCCode")
    ev("$.LineItems?(@.Quantity > 1).Part.*")
    assert PO == before


# ----------------------------------------------------------------------------- lax vs strict
def test_strict_mode_disables_array_unwrapping_and_wrapping():
    assert ev("lax $.LineItems.ItemNumber") == [1, 2]
    with pytest.raises(JsonDataError):
        ev("strict $.LineItems.ItemNumber")
    assert ev("strict $.LineItems[*].ItemNumber") == [1, 2]
    with pytest.raises(JsonDataError):
        ev("strict $.PONumber[0]")


def test_strict_mode_missing_field_and_index_are_errors():
    with pytest.raises(JsonDataError) as info:
        ev("strict $.nosuchfield")
    assert info.value.code == 40462
    with pytest.raises(JsonDataError):
        ev("strict $.LineItems[7]")
    assert ev("lax $.LineItems[7]") == []


def test_strict_filter_sees_the_array_itself():
    # lax: the filter runs on each element; strict: on the array value
    assert ev("lax $.LineItems?(@.ItemNumber == 2).ItemNumber") == [2]
    assert ev("strict $.LineItems?(@.ItemNumber == 2)") == []
    assert ev("strict $.LineItems[*]?(@.ItemNumber == 2).ItemNumber") == [2]


def test_strict_error_inside_filter_is_unknown_not_a_failure():
    docs = [{"a": 1}, {"b": 2}]
    # @.a is missing in the second element: strict raises inside the predicate -> unknown -> not selected
    assert ev("strict $[*]?(@.a == 1)", docs) == [{"a": 1}]
    assert ev("strict $[*]?(!(@.a == 1))", docs) == []


# ----------------------------------------------------------------------------- comparisons
@pytest.mark.parametrize("op,a,b,expected", [
    ("==", 1, 1.0, True),
    ("==", "1", 1, None),          # string vs number: not comparable (unknown)
    ("!=", "1", 1, None),
    ("<", "abc", "abd", True),
    ("==", True, 1, None),         # JSON true is not the number 1
    ("==", None, None, True),
    ("==", 0, None, False),
    ("!=", 0, None, True),
    ("<", None, 1, None),
    ("==", {"a": 1}, {"a": 1}, None),  # objects do not compare in filters
    ("<", dt.date(2024, 1, 2), "2024-01-03", True),
    ("==", dt.datetime(2024, 1, 2, 10, 0), "2024-01-02T10:00:00Z", True),
    ("<", dt.date(2024, 1, 2), "not a date", None),
])
def test_compare_values(op, a, b, expected):
    assert compare_values(op, a, b) is expected


def test_lax_comparison_of_array_is_existential():
    doc = {"tags": ["red", "green"], "n": [1, 5, 9]}
    assert ev('$?(@.tags == "green").n', doc) == [[1, 5, 9]]
    assert ev("$?(@.n > 8).tags", doc) == [["red", "green"]]
    assert ev("$?(@.n > 9).tags", doc) == []
    # != is also existential: some element differs
    assert ev('$?(@.tags != "red").n', doc) == [[1, 5, 9]]


def test_incompatible_types_are_unknown_so_negation_stays_false():
    doc = [{"v": "10"}, {"v": 10}, {"v": 3}]
    assert ev("$[*]?(@.v > 5).v", doc) == [10]
    assert ev("$[*]?(!(@.v > 5)).v", doc) == [3]  # "10" vs 5 is unknown; !unknown is unknown


def test_passing_string_variable_takes_the_type_of_the_other_operand():
    # Oracle JSON Developer's Guide: PASSING '85391628927' AS "v1" matches the JSON number.
    assert ev("$.LineItems.Part?(@.UPCCode == $v1).Description", v1="85391628927") == ["Lethal Weapon"]
    assert ev("$.LineItems.Part?(@.UPCCode == $v1).Description", v1=85391628927) == ["Lethal Weapon"]
    assert ev("$.LineItems.Part?(@.UPCCode == $v1).Description", v1="not a number") == []
    # a JSON string literal in the path is not converted
    assert ev('$.LineItems.Part?(@.UPCCode == "85391628927").Description') == []
    # and a JSON string in the document stays a string
    assert ev('$?(@.v == $x).v', {"v": "7"}, x=7) == []


def test_passing_variables_of_each_type():
    doc = {"d": "2024-03-01", "b": True, "n": None, "s": "abc"}
    assert ev("$?(@.d.date() > $since).s", doc, since=dt.date(2024, 2, 1)) == ["abc"]
    assert ev("$?(@.d.date() > $since).s", doc, since=dt.datetime(2024, 3, 2)) == []
    assert ev("$?(@.b == $t).s", doc, t=True) == ["abc"]
    assert ev("$?(@.n == $z).s", doc, z=None) == ["abc"]
    assert ev('$?(@.s starts with $p).s', doc, p="ab") == ["abc"]
    assert ev('$?(@.s like_regex $p).s', doc, p="b.") == ["abc"]


def test_missing_passing_variable_is_ora_40656():
    with pytest.raises(JsonPassingError) as info:
        ev("$?(@.a == $val0)", {"a": 1})
    assert info.value.code == 40656
    assert "val0" in str(info.value)


def test_item_method_failures():
    doc = {"s": "abc", "n": "12.5", "b": "TRUE", "iso": "2024-05-06T07:08:09Z"}
    with pytest.raises(JsonDataError) as info:
        ev("$.s.number()", doc)
    assert info.value.code == 1722
    assert ev("$.n.number()", doc) == [12.5]
    assert ev("$.b.boolean()", doc) == [True]
    assert ev("$.iso.timestamp()", doc) == [dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc)]
    assert ev("$.iso.date()", doc) == [dt.date(2024, 5, 6)]
    with pytest.raises(JsonDataError):
        ev("$.s.date()", doc)
    # inside a filter a failing method is unknown, the row is just not selected
    assert ev("$?(@.s.number() > 1).n", doc) == []
    assert ev("$?(@.n.number() > 12).n", doc) == ["12.5"]


# ----------------------------------------------------------------------------- syntax errors
@pytest.mark.parametrize("path", [
    "",
    "a.b",
    "$.",
    "$.a[",
    "$.a[1",
    "$.a[-1]",
    "$.a[1.5]",
    "$.a?(@.b)",               # a filter needs a predicate
    "$.a?(@.b == 1",
    "$.a?(@.b = 1)",
    "$.a?(@.b + 1 > 2)",       # no arithmetic
    "$.a.nosuchmethod()",
    "$.a.size(1)",
    "$.a b",
    '$.a?(@ like_regex "x" flag "q")',
    "$.a?(@ in ())",
    "$.a?(@ in (@.b))",        # in-list takes literals and variables only
    "$val",
    "lax",
    "strict $.a ?",
])
def test_syntax_errors_are_ora_40597(path):
    with pytest.raises(JsonPathError) as info:
        compile_path(path)
    err = info.value
    assert err.code == 40597
    assert isinstance(err, ValueError)
    assert str(err).startswith(f"ORA-40597: JSON path expression syntax error ('{path}')")


def test_syntax_error_message_names_the_problem_and_position():
    with pytest.raises(JsonPathError) as info:
        compile_path("$.a.frobnicate()")
    assert "frobnicate" in info.value.detail
    assert info.value.position == 5


def test_compile_path_is_cached():
    assert compile_path("$.kind?(@ in ($val0,$val1))") is compile_path("$.kind?(@ in ($val0,$val1))")
    jp = compile_path("strict $.a")
    assert jp.mode == "strict" and compile_path("$.a").mode == "lax"
    assert compile_path("$.x?(@ == $v && @ > $w)").variables == {"v", "w"}


def test_render_number_like_oracle():
    assert render_number(1.0) == "1"
    assert render_number(2.50) == "2.5"
    assert render_number(-0.125) == "-0.125"
    assert render_number(10**20) == "100000000000000000000"
    assert render_number(1e-7) == "0.0000001"


# ----------------------------------------------------------------------------- properties
_keys = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=5))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_keys, _scalars, max_size=6), _keys)
def test_member_step_matches_key_membership(doc, key):
    assert bool(compile_path(f"$.{key}").evaluate(doc)) == (key in doc)
    assert compile_path(f'$."{key}"').evaluate(doc) == ([doc[key]] if key in doc else [])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=8), st.integers(-50, 50))
def test_filter_matches_python_comprehension(values, threshold):
    doc = {"v": values}
    assert compile_path("$.v?(@ > $t)").evaluate(doc, {"t": threshold}) == [x for x in values if x > threshold]
    assert compile_path("$.v?(!(@ > $t))").evaluate(doc, {"t": threshold}) == [x for x in values if x <= threshold]
    assert compile_path("$.v[*]?(@ in ($a, $b))").evaluate(doc, {"a": threshold, "b": 0}) == [
        x for x in values if x in (threshold, 0)]
