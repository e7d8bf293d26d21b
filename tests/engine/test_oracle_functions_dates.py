"""Datetime functions, format models and intervals against the Oracle docs' examples."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workshop.embedded import oracle_functions as F
from workshop.embedded.oracle_functions import OracleFunctionError

THIS_YEAR = dt.date.today().year
THIS_MONTH = dt.date.today().month


# --- storage text ------------------------------------------------------------------------------


def test_text_helpers_round_trip():
    moment = dt.datetime(2024, 1, 5, 10, 11, 12, 345678)
    assert F.date_text(moment) == "2024-01-05 10:11:12"
    assert F.timestamp_text(moment) == "2024-01-05 10:11:12.345678"
    aware = moment.replace(tzinfo=dt.timezone(dt.timedelta(hours=-3, minutes=-30)))
    assert F.timestamp_text(aware, with_tz=True) == "2024-01-05 10:11:12.345678-03:30"
    assert F.parse_datetime_text("2024-01-05 10:11:12.345678-03:30") == aware
    assert F.parse_datetime_text("2024-01-05") == dt.datetime(2024, 1, 5)
    assert F.date_text(dt.datetime(5, 1, 1)) == "0005-01-01 00:00:00"
    assert F.text_kind("2024-01-05 10:11:12") == F.DATE
    assert F.text_kind("2024-01-05 10:11:12.000000") == F.TIMESTAMP
    assert F.text_kind("2024-01-05 10:11:12.000000+00:00") == F.TIMESTAMP_TZ


@pytest.mark.parametrize(
    ("text", "code"),
    [("2024-13-01", 1843), ("2024-02-30", 1847), ("2024-01-01 24:00:00", 1850), ("yesterday", 1861)],
)
def test_bad_storage_text(text, code):
    with pytest.raises(OracleFunctionError) as info:
        F.parse_datetime_text(text)
    assert info.value.code == code


def test_current_time_functions_have_their_types():
    now = dt.datetime.now()
    assert F.text_kind(F.sysdate()) == F.DATE
    assert F.text_kind(F.current_date()) == F.DATE
    assert F.text_kind(F.systimestamp()) == F.TIMESTAMP_TZ
    assert F.text_kind(F.current_timestamp()) == F.TIMESTAMP_TZ
    assert F.text_kind(F.localtimestamp()) == F.TIMESTAMP
    assert abs(F.parse_datetime_text(F.sysdate()) - now) < dt.timedelta(seconds=5)
    offset = dt.datetime.now().astimezone().utcoffset()
    assert F.parse_datetime_text(F.systimestamp()).utcoffset() == offset
    assert F.localtimestamp(0).endswith(".000000")
    assert F.current_timestamp(3)[23:26] == "000"


# --- date functions --------------------------------------------------------------------------

CASES = [
    (F.add_months, ("2023-01-31 10:00:00", 1), "2023-02-28 10:00:00"),
    (F.add_months, ("2024-02-29 00:00:00", 1), "2024-03-31 00:00:00"),  # last day stays last day
    (F.add_months, ("2024-01-15 00:00:00", -1), "2023-12-15 00:00:00"),
    (F.add_months, ("2024-01-15 08:30:00.250000", 12), "2025-01-15 08:30:00"),  # result is a DATE
    (F.months_between, ("1995-02-02 00:00:00", "1995-01-01 00:00:00"), 1 + 1 / 31),  # 1.03225806
    (F.months_between, ("2010-03-31 00:00:00", "2010-02-28 00:00:00"), 1),
    (F.months_between, ("2010-03-27 00:00:00", "2010-02-28 00:00:00"), 1 - 1 / 31),
    (F.months_between, ("2010-02-28 00:00:00", "2010-01-30 00:00:00"), 1 - 2 / 31),
    (F.months_between, ("2024-01-15 00:00:00", "2024-03-15 23:00:00"), -2),
    (F.last_day, ("2024-02-10 08:00:00",), "2024-02-29 08:00:00"),
    (F.last_day, ("2023-02-10 08:00:00",), "2023-02-28 08:00:00"),
    (F.next_day, ("2009-10-15 00:00:00", "TUESDAY"), "2009-10-20 00:00:00"),
    (F.next_day, ("2009-10-20 00:00:00", "tue"), "2009-10-27 00:00:00"),
    (F.date_add_days, ("2024-01-01 00:00:00", 1), "2024-01-02 00:00:00"),
    (F.date_add_days, ("2024-01-01 00:00:00", 1 / 3), "2024-01-01 08:00:00"),
    (F.date_add_days, ("2024-03-01 10:00:00.900000", -1), "2024-02-29 10:00:00"),
    (F.date_diff_days, ("2024-01-02 12:00:00", "2024-01-01 00:00:00"), 1.5),
    (F.date_diff_days, ("2024-01-01 00:00:00", "2024-01-08 00:00:00"), -7),
    (F.trunc_date, ("2024-05-17 10:11:12",), "2024-05-17 00:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "MM"), "2024-05-01 00:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "YYYY"), "2024-01-01 00:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "Q"), "2024-04-01 00:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "IW"), "2024-05-13 00:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "DAY"), "2024-05-12 00:00:00"),  # Sunday (AMERICA)
    (F.trunc_date, ("2024-05-17 10:11:12", "WW"), "2024-05-13 00:00:00"),  # weekday of Jan 1
    (F.trunc_date, ("2024-05-17 10:11:12", "W"), "2024-05-15 00:00:00"),  # weekday of the 1st
    (F.trunc_date, ("2024-05-17 10:11:12", "HH"), "2024-05-17 10:00:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "MI"), "2024-05-17 10:11:00"),
    (F.trunc_date, ("2024-05-17 10:11:12", "CC"), "2001-01-01 00:00:00"),
    (F.trunc_date, ("2021-01-01 10:11:12", "IYYY"), "2019-12-30 00:00:00"),  # ISO year 2020
    (F.trunc_date, ("2024-05-17 10:11:12.999999+05:00", "MI"), "2024-05-17 10:11:00"),
    (F.round_date, ("2000-10-27 00:00:00", "YEAR"), "2001-01-01 00:00:00"),
    (F.round_date, ("2024-06-30 23:59:59", "YEAR"), "2024-01-01 00:00:00"),
    (F.round_date, ("2024-05-16 00:00:00", "MM"), "2024-06-01 00:00:00"),
    (F.round_date, ("2024-05-15 23:59:59", "MM"), "2024-05-01 00:00:00"),
    (F.round_date, ("2024-05-16 00:00:00", "Q"), "2024-07-01 00:00:00"),
    (F.round_date, ("2024-05-15 00:00:00", "Q"), "2024-04-01 00:00:00"),
    (F.round_date, ("2024-05-17 12:00:00",), "2024-05-18 00:00:00"),
    (F.round_date, ("2024-05-17 11:59:59",), "2024-05-17 00:00:00"),
    (F.round_date, ("2024-05-17 10:30:00", "HH"), "2024-05-17 11:00:00"),
    (F.round_date, ("2024-05-17 10:11:30", "MI"), "2024-05-17 10:12:00"),
    (F.round_date, ("2024-05-17 10:11:12", "DAY"), "2024-05-19 00:00:00"),
    (F.trunc, ("2024-05-17 10:11:12", "MM"), "2024-05-01 00:00:00"),  # dispatch on the value type
    (F.trunc, (15.79, 1), 15.7),
    (F.round_, ("2024-05-17 12:00:00",), "2024-05-18 00:00:00"),
    (F.round_, (15.193, 1), 15.2),
]


@pytest.mark.parametrize(("fn", "args", "expected"), CASES, ids=lambda v: getattr(v, "__name__", None))
def test_date_functions(fn, args, expected):
    result = fn(*args)
    if isinstance(expected, float):
        assert result == pytest.approx(expected, rel=1e-12)
    else:
        assert result == expected


def test_trunc_and_round_documented_two_digit_years():
    # TRUNC(TO_DATE('27-OCT-92','DD-MON-YY'), 'YEAR') -> 01-JAN-92 in the current century.
    century = THIS_YEAR // 100 * 100
    assert F.trunc_date(F.to_date("27-OCT-92", "DD-MON-YY"), "YEAR") == f"{century + 92}-01-01 00:00:00"
    # ROUND(TO_DATE('27-OCT-00','DD-MON-YY'), 'YEAR') -> 01-JAN-01
    assert F.round_date(F.to_date("27-OCT-00", "DD-MON-YY"), "YEAR") == f"{century + 1:04d}-01-01 00:00:00"


@pytest.mark.parametrize(
    "fn",
    [F.add_months, F.months_between, F.next_day, F.date_add_days, F.date_diff_days, F.trunc_date, F.round_date],
)
def test_null_propagates(fn):
    args = {
        F.add_months: (None, 1),
        F.months_between: (None, "2024-01-01"),
        F.next_day: ("2024-01-01", None),
        F.date_add_days: ("2024-01-01", None),
        F.date_diff_days: ("2024-01-01", None),
        F.trunc_date: ("2024-01-01", None),
        F.round_date: (None,),
    }[fn]
    assert fn(*args) is None


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: F.next_day("2024-01-01", "FUNDAY"), 1846),
        (lambda: F.trunc_date("2024-01-01", "XX"), 1821),
        (lambda: F.add_months("9999-12-01", 1), 1841),
        (lambda: F.date_add_days("9999-12-31", 1), 1841),
        (lambda: F.add_months("not a date", 1), 1861),
    ],
)
def test_date_errors(call, code):
    with pytest.raises(OracleFunctionError) as info:
        call()
    assert info.value.code == code


# --- TO_CHAR(datetime) -----------------------------------------------------------------------

TO_CHAR_CASES = [
    ("1999-10-03 02:00:00.000000", "DD-MON-YYYY HH24:MI:SSxFF", "03-OCT-1999 02:00:00.000000"),
    ("2008-04-03 00:00:00", "fmDDTH", "3RD"),
    ("2008-04-03 00:00:00", "fmMonth", "April"),
    ("2008-04-03 00:00:00", "Month", "April    "),
    ("2008-04-03 00:00:00", "MONTH", "APRIL    "),
    ("2008-04-03 00:00:00", "month", "april    "),
    ("2008-04-03 00:00:00", "Mon", "Apr"),
    ("2008-04-03 00:00:00", "fmDay", "Thursday"),
    ("2008-04-03 00:00:00", "DAY", "THURSDAY "),
    ("2008-04-03 00:00:00", "DY", "THU"),
    ("2008-04-03 00:00:00", "DDth", "03rd"),
    ("2024-02-05 00:00:00", "D/DDD/Q/WW/IW/W/J", "2/036/1/06/06/1/2460346"),
    ("2024-01-05 13:05:09", "HH:MI:SS AM", "01:05:09 PM"),
    ("2024-01-05 00:05:09", "HH12 a.m.", "12 a.m."),
    ("2024-01-05 13:05:09", "HH24 SSSSS", "13 47109"),
    ("2024-01-05 13:05:09", "fmHH24:MI", "13:5"),  # FM applies to every later element
    ("2024-01-05 09:05:09", "fmHH24:fmMI", "9:05"),  # FM toggles
    ("2024-01-05 13:05:09", 'YYYY "year" Q', "2024 year 1"),
    ("2024-01-05 13:05:09", "Y,YYY YYY YY Y", "2,024 024 24 4"),
    ("2024-01-05 13:05:09", "CC AD", "21 AD"),
    ("2024-01-05 13:05:09", "RM rm", "I    i   "),
    ("2024-01-05 13:05:09", "DS", "01/05/2024"),
    ("2024-01-05 13:05:09", "TS", "01:05:09 PM"),
    ("2024-01-05 13:05:09.123456", "FF3 FF1 FF9 FF", "123 1 123456000 123456"),
    ("2024-01-05 13:05:09.123456+05:30", "TZH:TZM TZR", "+05:30 +05:30"),
    ("2024-01-05 13:05:09.123456-03:30", "TZH TZM", "-03 30"),
    ("2021-01-03 00:00:00", "IYYY-IW", "2020-53"),
]


@pytest.mark.parametrize(("value", "fmt", "expected"), TO_CHAR_CASES)
def test_to_char_datetime(value, fmt, expected):
    assert F.to_char(value, fmt) == expected


def test_to_char_without_format_and_with_null():
    assert F.to_char("2024-01-05 13:05:09") == "2024-01-05 13:05:09"
    assert F.to_char(dt.datetime(2024, 1, 5, 13, 5, 9)) == "2024-01-05 13:05:09.000000"
    assert F.to_char("2024-01-05 13:05:09", None) is None
    assert F.to_char("plain text") == "plain text"
    assert F.to_char(b"\x01\xab") == "01AB"


@pytest.mark.parametrize(
    ("value", "fmt", "code"),
    [
        ("2024-01-05 13:05:09", "FF", 1821),  # a DATE has no fractional seconds
        ("2024-01-05 13:05:09.000000", "TZH", 1821),  # a TIMESTAMP has no time zone
        ("2024-01-05 13:05:09", "YYYY|MM", 1821),
        ("2024-01-05 13:05:09", "DDSP", 3001),
        ("2024-01-05 13:05:09", "YEAR", 3001),
    ],
)
def test_to_char_datetime_errors(value, fmt, code):
    with pytest.raises(OracleFunctionError) as info:
        F.to_char(value, fmt)
    assert info.value.code == code


# --- TO_DATE / TO_TIMESTAMP ------------------------------------------------------------------

TO_DATE_CASES = [
    (("January 15, 1989, 11:00 A.M.", "Month dd, YYYY, HH:MI A.M."), "1989-01-15 11:00:00"),
    (("2024-01-05",), "2024-01-05 00:00:00"),
    (("2024-01-05 10:11:12",), "2024-01-05 10:11:12"),
    (("20240105", "YYYYMMDD"), "2024-01-05 00:00:00"),
    (("2024/1/5", "YYYY-MM-DD"), "2024-01-05 00:00:00"),  # any punctuation, short numbers
    (("15-JANUARY-2024", "DD-MON-YYYY"), "2024-01-15 00:00:00"),  # MON accepts MONTH
    (("15-01-2024", "DD-MON-YYYY"), "2024-01-15 00:00:00"),  # ... and MM
    (("15-jan-2024", "DD-MM-YYYY"), "2024-01-15 00:00:00"),  # MM accepts MON
    (("27-OCT-98", "DD-MON-RR"), "1998-10-27 00:00:00"),
    (("27-OCT-17", "DD-MON-RR"), "2017-10-27 00:00:00"),
    (("27-OCT-2017", "DD-MON-RR"), "2017-10-27 00:00:00"),
    (("2451545", "J"), "2000-01-01 00:00:00"),
    (("2024 060", "YYYY DDD"), "2024-02-29 00:00:00"),
    (("2024-01-05T10:11:12", 'YYYY-MM-DD"T"HH24:MI:SS'), "2024-01-05 10:11:12"),
    (("05 12:00 PM", "DD HH:MI AM"), f"{THIS_YEAR:04d}-{THIS_MONTH:02d}-05 12:00:00"),
    (("05 12:00 AM", "DD HH:MI AM"), f"{THIS_YEAR:04d}-{THIS_MONTH:02d}-05 00:00:00"),
    (("10:11", "HH24:MI"), f"{THIS_YEAR:04d}-{THIS_MONTH:02d}-01 10:11:00"),  # first of this month
    (("Friday 05-Jan-2024", "Day DD-Mon-YYYY"), "2024-01-05 00:00:00"),
    (("2024-01-05", "FXYYYY-MM-DD"), "2024-01-05 00:00:00"),
    ((None, "YYYY"), None),
    (("2024", None), None),
]


@pytest.mark.parametrize(("args", "expected"), TO_DATE_CASES)
def test_to_date(args, expected):
    assert F.to_date(*args) == expected


def test_to_timestamp_forms():
    assert F.to_timestamp("2024-01-05 10:00:00.5") == "2024-01-05 10:00:00.500000"
    assert F.to_timestamp("2024-01-05") == "2024-01-05 00:00:00.000000"
    assert F.to_timestamp("10-Sep-02 14:10:10.123000", "DD-Mon-RR HH24:MI:SS.FF") == "2002-09-10 14:10:10.123000"
    assert F.to_timestamp_tz("2024-01-05 10:00:00 -05:00", "YYYY-MM-DD HH24:MI:SS TZH:TZM") == (
        "2024-01-05 10:00:00.000000-05:00"
    )
    assert F.to_timestamp_tz("2024-01-05 10:00:00.000000+05:30") == "2024-01-05 10:00:00.000000+05:30"
    local = F.to_timestamp_tz("2024-01-05 10:00:00")
    assert F.parse_datetime_text(local).utcoffset() == F.parse_datetime_text(F.systimestamp()).utcoffset()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("2024-02-30",), 1847),
        (("2024-13-01",), 1843),
        (("2024-01-01 25:00:00",), 1850),
        (("2024-01-01 10:61:00",), 1851),
        (("01:00 XM", "HH:MI AM"), 1855),
        (("13:00", "HH:MI"), 1849),
        (("2024-01-01 x",), 1858),
        (("2024", "YYYY-MM-DD"), 1840),
        (("2024-01-05 10:00:00.5",), 1830),
        (("15 XYZ 2024", "DD MON YYYY"), 1843),
        (("2024-01-05", "YYYY-MM-DD FF"), 1821),
        (("2024-01-05", "YYYY-IW"), 1820),
        (("2024-01-05", "YYYY-MM-DD-YYYY"), 1810),
        (("2024-1-5", "FXYYYY-MM-DD"), 1862),
        (("2024-01-05", 'YYYY"x"MM'), 1861),
        (("Funday 05", "Day DD"), 1846),
    ],
)
def test_to_date_errors(args, code):
    with pytest.raises(OracleFunctionError) as info:
        F.to_date(*args)
    assert info.value.code == code


@given(st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59)))
def test_to_char_to_date_round_trip(moment):
    moment = moment.replace(microsecond=0)
    text = F.to_char(F.date_text(moment), "YYYY-MM-DD HH24:MI:SS")
    assert F.to_date(text, "YYYY-MM-DD HH24:MI:SS") == F.date_text(moment)
    assert F.parse_datetime_text(F.to_date(text, "YYYY-MM-DD HH24:MI:SS")) == moment


@given(st.datetimes(min_value=dt.datetime(1000, 1, 1), max_value=dt.datetime(9999, 12, 31)))
def test_to_timestamp_round_trip_with_fraction(moment):
    text = F.to_char(F.timestamp_text(moment), "DD.MM.YYYY HH24:MI:SS.FF6")
    assert F.to_timestamp(text, "DD.MM.YYYY HH24:MI:SS.FF6") == F.timestamp_text(moment)


# --- intervals -------------------------------------------------------------------------------

INTERVAL_LITERALS = [
    (("1", "DAY"), "+000000001 00:00:00.000000"),
    (("2", "HOUR"), "+000000000 02:00:00.000000"),
    (("90", "MINUTE"), "+000000000 01:30:00.000000"),
    (("10.5", "SECOND"), "+000000000 00:00:10.500000"),
    (("1-2", "YEAR TO MONTH"), "+000000001-02"),
    (("3", "MONTH"), "+000000000-03"),
    (("1 02:03:04", "DAY TO SECOND"), "+000000001 02:03:04.000000"),
    (("-1 02:03:04.5", "DAY TO SECOND"), "-000000001 02:03:04.500000"),
    (("4 5:12", "DAY TO MINUTE"), "+000000004 05:12:00.000000"),
    (("02:30", "HOUR TO MINUTE"), "+000000000 02:30:00.000000"),
    (("123", "DAY(3)"), "+000000123 00:00:00.000000"),
]


@pytest.mark.parametrize(("args", "expected"), INTERVAL_LITERALS)
def test_interval_literals(args, expected):
    assert F.interval_literal(*args) == expected


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("123", "DAY"), 1873),  # default leading precision is 2
        (("1 25:00:00", "DAY TO SECOND"), 1850),
        (("1-12", "YEAR TO MONTH"), 1843),
        (("1:2", "DAY TO SECOND"), 1867),
        (("1", "WEEK"), 1867),
    ],
)
def test_interval_literal_errors(args, code):
    with pytest.raises(OracleFunctionError) as info:
        F.interval_literal(*args)
    assert info.value.code == code


def test_numto_intervals():
    assert F.numtodsinterval(100, "day") == "+000000100 00:00:00.000000"
    assert F.numtodsinterval(1.5, "DAY") == "+000000001 12:00:00.000000"
    assert F.numtodsinterval(90, "MINUTE") == "+000000000 01:30:00.000000"
    assert F.numtoyminterval(14, "MONTH") == "+000000001-02"
    assert F.numtoyminterval(1.5, "YEAR") == "+000000001-06"
    assert F.numtodsinterval(None, "DAY") is None
    with pytest.raises(OracleFunctionError) as info:
        F.numtodsinterval(1, "WEEK")
    assert info.value.code == 1760
    assert F.to_dsinterval("1 02:03:04") == "+000000001 02:03:04.000000"
    assert F.to_yminterval("01-02") == "+000000001-02"


def test_interval_arithmetic():
    one_day = F.interval_literal("1", "DAY")
    one_month = F.interval_literal("1", "MONTH")
    assert F.ts_add_interval("2024-01-31 10:00:00.000000", one_day) == "2024-02-01 10:00:00.000000"
    assert F.interval_add("2024-03-01 00:00:00.000000+02:00", one_day, -1) == "2024-02-29 00:00:00.000000+02:00"
    assert F.interval_add("2024-03-01 00:00:00", one_day, -1) == "2024-02-29 00:00:00"  # DATE stays DATE
    assert F.interval_add("2024-01-15 00:00:00", one_month) == "2024-02-15 00:00:00"
    assert F.interval_add("2024-03-31 00:00:00", F.interval_literal("1", "YEAR")) == "2025-03-31 00:00:00"
    with pytest.raises(OracleFunctionError) as info:  # no month-end clamping for intervals
        F.interval_add("2024-01-31 00:00:00.000000", one_month)
    assert info.value.code == 1839
    assert F.ts_diff("2024-01-02 12:00:00.000000", "2024-01-01 00:00:00.000000") == "+000000001 12:00:00.000000"
    assert F.ts_diff("2024-01-01 00:00:00.000000", "2024-01-02 12:00:00.000000") == "-000000001 12:00:00.000000"
    assert F.ts_diff("2024-01-01 12:00:00.000000+02:00", "2024-01-01 10:00:00.000000+00:00") == (
        "+000000000 00:00:00.000000"
    )
    assert F.interval_plus("+1 00:00:00", "+0 12:00:00", -1) == "+000000000 12:00:00.000000"
    assert F.interval_multiply(one_day, 1.5) == "+000000001 12:00:00.000000"
    assert F.interval_multiply(one_month, 3) == "+000000000-03"
    assert F.interval_compare("+1 00:00:00", "-2 00:00:00") == 1
    assert F.interval_add(None, one_day) is None
    with pytest.raises(OracleFunctionError) as info:
        F.interval_plus(one_day, one_month)
    assert info.value.code == 30081


@given(
    st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 1, 1)),
    st.integers(min_value=-(10**14), max_value=10**14),
)
def test_adding_then_subtracting_a_day_to_second_interval_is_identity(moment, micros):
    interval = F.Interval("DAY TO SECOND", micros).text()
    start = F.timestamp_text(moment)
    assert F.interval_add(F.interval_add(start, interval, 1), interval, -1) == start


# --- EXTRACT ---------------------------------------------------------------------------------

EXTRACT_CASES = [
    ("YEAR", "1998-03-07 00:00:00", 1998),
    ("MONTH", "1998-03-07 00:00:00", 3),
    ("DAY", "1998-03-07 00:00:00", 7),
    ("HOUR", "1999-01-01 10:00:00.000000", 10),
    ("SECOND", "2024-01-31 10:00:05.500000", 5.5),
    ("HOUR", "1999-01-01 10:00:00.000000-08:00", 18),  # fields of a TIMESTAMP WITH TZ are UTC
    ("TIMEZONE_REGION", "1999-01-01 10:00:00.000000-08:00", "UNKNOWN"),
    ("TIMEZONE_HOUR", "1999-01-01 10:00:00.000000-08:30", -8),
    ("TIMEZONE_MINUTE", "1999-01-01 10:00:00.000000-08:30", -30),
    ("DAY", "-000000001 02:03:04.500000", -1),
    ("HOUR", "-000000001 02:03:04.500000", -2),
    ("SECOND", "-000000001 02:03:04.500000", -4.5),
    ("YEAR", "+000000001-02", 1),
    ("MONTH", "+000000001-02", 2),
]


@pytest.mark.parametrize(("field", "value", "expected"), EXTRACT_CASES)
def test_extract(field, value, expected):
    assert F.extract_ex(field, value) == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("HOUR", "1998-03-07 00:00:00"),  # a DATE has no time fields for EXTRACT
        ("TIMEZONE_HOUR", "1998-03-07 00:00:00.000000"),
        ("DAY", "+000000001-02"),
        ("YEAR", "+000000001 00:00:00.000000"),
    ],
)
def test_extract_invalid_field(field, value):
    with pytest.raises(OracleFunctionError) as info:
        F.extract_ex(field, value)
    assert info.value.code == 30076


def test_extract_null():
    assert F.extract_ex("YEAR", None) is None
