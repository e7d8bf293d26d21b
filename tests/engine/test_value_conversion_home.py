"""Value conversion has one home, workshop/embedded/values.py: numbers and dates as text, Python to SQLite
(binds and function results) and back. Everything else imports it, so CAST, TO_CHAR, implicit conversion,
binds and fetched values cannot drift apart again."""
from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

from workshop.embedded import builtins, values
from workshop.embedded.functions import values as sql_values

ENGINE = Path(values.__file__).parent
#: The conversions values.py owns: no other engine module may define a function of these names.
OWNED = {"number_to_text", "date_text", "timestamp_text", "datetime_text", "local_tz", "to_sqlite",
         "sql_value", "python_value", "to_date_text", "to_timestamp_text", "datetime_to_text", "number_text",
         "_sql_value"}


def test_no_other_engine_module_defines_a_conversion_values_owns():
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path == Path(values.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in OWNED:
                found.append(f"{path.relative_to(ENGINE)}:{node.lineno} {node.name}")
    assert not found, found


@pytest.mark.parametrize("number", [1e20, 100000000000000000000, 0.5, -0.25, 1.0, 123.456, 1e-5, 1e100, -7])
def test_cast_to_char_and_implicit_conversion_give_the_same_text(number):
    text = values.number_to_text(number)
    assert builtins.cast_char(number) == text
    assert sql_values.as_text(number) == text


def test_a_datetime_has_one_storage_text_in_binds_results_and_sql():
    aware = dt.datetime(2024, 1, 5, 10, 11, 12, 345678, tzinfo=dt.timezone(-dt.timedelta(hours=3, minutes=30)))
    naive = aware.replace(tzinfo=None)
    assert values.to_sqlite(aware) == values.sql_value(aware) == sql_values.as_text(aware) \
        == "2024-01-05 10:11:12.345678-03:30"
    assert values.to_sqlite(naive) == values.sql_value(naive) == sql_values.as_text(naive) \
        == "2024-01-05 10:11:12.345678"
    assert values.to_sqlite(dt.date(5, 1, 1)) == sql_values.as_text(dt.date(5, 1, 1)) == "0005-01-01 00:00:00"
    # A naive value given a zone: UTC when stored into a WITH TIME ZONE column, the session zone in SQL.
    assert values.timestamp_text(naive, with_tz=True).endswith("+00:00")
    local = naive.replace(tzinfo=values.local_tz()).utcoffset()
    assert values.timestamp_text(naive, with_tz=True, naive_zone=values.local_tz()) \
        == values.timestamp_text(naive.replace(tzinfo=dt.timezone(local)), with_tz=True)
