"""Character, regular-expression and NULL-handling functions against the Oracle docs' examples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workshop.embedded import oracle_functions as F
from workshop.embedded.oracle_functions import OracleFunctionError

# (function, args, expected) -- expected values are the outputs printed in the
# Oracle Database SQL Language Reference examples, or follow from its stated rules.
CASES = [
    (F.substr, ("ABCDEFG", 3, 4), "CDEF"),
    (F.substr, ("ABCDEFG", -5, 4), "CDEF"),
    (F.substr, ("ABCDEFG", 0, 2), "AB"),  # position 0 is treated as 1
    (F.substr, ("ABCDEFG", 3), "CDEFG"),
    (F.substr, ("ABCDEFG", 2.9, 2), "BC"),  # positions are truncated to integers
    (F.substr, ("ABCDEFG", 3, 0), None),  # length < 1 is NULL
    (F.substr, ("ABCDEFG", 3, -2), None),
    (F.substr, ("ABCDEFG", 8), None),
    (F.substr, ("ABCDEFG", -8), None),
    (F.substr, (12345, 2, 2), "23"),  # implicit conversion of the number
    (F.instr, ("CORPORATE FLOOR", "OR", 3, 2), 14),
    (F.instr, ("CORPORATE FLOOR", "OR", -3, 2), 2),
    (F.instr, ("CORPORATE FLOOR", "OR", -1, 1), 14),
    (F.instr, ("CORPORATE FLOOR", "OR"), 2),
    (F.instr, ("CORPORATE FLOOR", "XY"), 0),
    (F.instr, ("AAAA", "AA", 1, 2), 2),  # occurrences may overlap
    (F.instr, ("Mississippi", "i", 5, 2), 8),
    (F.length, ("CANDIDE",), 7),
    (F.length, (0.5,), 2),  # TO_CHAR(0.5) is '.5'
    (F.upper, ("mr. scott mcmillan",), "MR. SCOTT MCMILLAN"),
    (F.lower, ("MR. SCOTT MCMILLAN",), "mr. scott mcmillan"),
    (F.initcap, ("the soap",), "The Soap"),
    (F.initcap, ("they're 1st-rate",), "They'Re 1st-Rate"),
    (F.ltrim, ("<=====>BROWNING<=====>", "<>="), "BROWNING<=====>"),
    (F.rtrim, ("<=====>BROWNING<=====>", "<>="), "<=====>BROWNING"),
    (F.ltrim, ("   x ",), "x "),
    (F.trim, ("  hello  ",), "hello"),
    (F.trim_ex, ("BOTH", "0", "0009872348900"), "98723489"),
    (F.trim_ex, ("LEADING", "0", "0009872348900"), "9872348900"),
    (F.trim_ex, ("TRAILING", "0", "0009872348900"), "00098723489"),
    (F.trim_ex, ("BOTH", "x", "xxx"), None),  # empty result is NULL
    (F.replace, ("JACK and JUE", "J", "BL"), "BLACK and BLUE"),
    (F.replace, ("JACK and JUE", "J"), "ACK and UE"),
    (F.replace, ("JACK and JUE", "J", None), "ACK and UE"),
    (F.replace, ("JACK", None, "x"), "JACK"),
    (F.replace, ("JJ", "J"), None),
    (F.lpad, ("Page 1", 15, "*."), "*.*.*.*.*Page 1"),
    (F.rpad, ("Page 1", 15, "*."), "Page 1*.*.*.*.*"),
    (F.lpad, ("Page 1", 4), "Page"),
    (F.lpad, ("7", 3), "  7"),
    (F.lpad, ("7", 0), None),
    (F.concat, ("a", None), "a"),
    (F.concat, (None, None), None),
    (F.concat, ("a", 1.5), "a1.5"),
    (F.chr_, (67,), "C"),
    (F.chr_, (50052,), "Ä"),  # AL32UTF8: the argument is the UTF-8 encoding
    (F.ascii_, ("K",), 75),
    (F.ascii_, ("Ä",), 50052),
    (F.translate, ("SQL*Plus User's Guide", " */'", "___"), "SQL_Plus_Users_Guide"),
    (F.translate, ("2KRW229", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "9999999999XXXXXXXXXXXXXXXXXXXXXXXXXX"), "9XXX999"),
    (F.translate, ("2KRW229", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"), "2229"),
    (F.reverse, ("abc",), "cba"),
]


@pytest.mark.parametrize(("fn", "args", "expected"), CASES, ids=lambda v: getattr(v, "__name__", None))
def test_documented_results(fn, args, expected):
    assert fn(*args) == expected


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (F.substr, (None, 1)),
        (F.substr, ("abc", None)),
        (F.substr, ("abc", 1, None)),
        (F.instr, (None, "a")),
        (F.instr, ("abc", None)),
        (F.instr, ("abc", "a", None)),
        (F.length, (None,)),
        (F.upper, (None,)),
        (F.initcap, (None,)),
        (F.ltrim, ("abc", None)),
        (F.trim_ex, ("BOTH", None, "abc")),
        (F.replace, (None, "a")),
        (F.lpad, ("a", 5, None)),
        (F.lpad, ("a", None)),
        (F.chr_, (None,)),
        (F.translate, ("abc", "a", None)),
        (F.regexp_like, (None, "a")),
        (F.regexp_substr, ("abc", None)),
        (F.regexp_count, (None, "a")),
    ],
)
def test_null_propagates(fn, args):
    assert fn(*args) is None


@pytest.mark.parametrize(
    ("fn", "args"),
    [(F.length, ("",)), (F.upper, ("",)), (F.substr, ("", 1)), (F.instr, ("abc", "")), (F.regexp_like, ("", "a"))],
)
def test_empty_string_is_null(fn, args):
    assert fn(*args) is None


def test_empty_results_are_null():
    assert F.substr("abc", 2, 0) is None
    assert F.ltrim("aaa", "a") is None
    assert F.regexp_replace("aaa", "a") is None
    assert F.translate("abc", "abc", "x") == "x"
    assert F.translate("bc", "abc", "a") is None


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: F.instr("abc", "b", 1, 0), 1428),
        (lambda: F.trim_ex("BOTH", "ab", "abc"), 30001),
        (lambda: F.substr("abc", "x"), 1722),
        (lambda: F.regexp_like("a", "[[:nope:]]"), 12729),
        (lambda: F.regexp_like("a", "a", "z"), 12732),
        (lambda: F.regexp_like("a", "(a"), 12725),
        (lambda: F.regexp_like("a", "[a"), 12726),
        (lambda: F.regexp_like("a", "[z-a]"), 12728),
        (lambda: F.regexp_like("a", "[[.ch.]]"), 12731),
        (lambda: F.regexp_like("a", "(?i)a"), 3001),
        (lambda: F.regexp_substr("abc", "b", 0), 1428),
    ],
)
def test_errors_carry_oracle_codes(call, code):
    with pytest.raises(OracleFunctionError) as info:
        call()
    assert info.value.code == code
    assert str(info.value).startswith(f"ORA-{code:05d}: ")


# --- regular expressions ---------------------------------------------------------------------


REGEXP_CASES = [
    (F.regexp_replace, ("500   Oracle     Parkway,    Redwood  Shores, CA", "( ){2,}", " "), "500 Oracle Parkway, Redwood Shores, CA"),
    (F.regexp_replace, ("515.123.4567", r"([[:digit:]]{3})\.([[:digit:]]{3})\.([[:digit:]]{4})", r"(\1) \2-\3"), "(515) 123-4567"),
    (F.regexp_replace, ("Argentina", "(.)", r"\1 "), "A r g e n t i n a "),
    (F.regexp_replace, ("aaa", "a", "b", 1, 2), "aba"),
    (F.regexp_replace, ("aaa", "a", "b", 2), "abb"),
    (F.regexp_replace, ("a.b", r"\.", r"\\"), "a\\b"),
    (F.regexp_substr, ("500 Oracle Parkway, Redwood Shores, CA", ",[^,]+,"), ", Redwood Shores,"),
    (F.regexp_substr, ("http://www.example.com/products", r"http://([[:alnum:]]+\.?){3,4}/?"), "http://www.example.com/"),
    (F.regexp_substr, ("1234567890", "(123)(4(56)(78))", 1, 1, "i", 4), "78"),
    (F.regexp_substr, (r"\test", r"\test"), "test"),  # a quoted ordinary character is itself
    (F.regexp_substr, ("a\\b", r"[\]"), "\\"),  # backslash is literal inside brackets
    (F.regexp_substr, ("abc", "x*"), None),  # an empty match is NULL
    (F.regexp_substr, ("ab12cd", "[[:alpha:]]+", 1, 2), "cd"),
    (F.regexp_substr, ("ab12cd", "[^[:alpha:]]+"), "12"),
    (F.regexp_substr, ("résumé", "[[=e=]]+", 1, 2), "é"),
    (F.regexp_substr, ("a+b", "+b"), "+b"),  # a quantifier with nothing to repeat is literal
    (F.regexp_substr, ("aaa", "a+?"), "a"),
    (F.regexp_instr, ("500 Oracle Parkway, Redwood Shores, CA", "[^ ]+", 1, 6), 37),
    (F.regexp_instr, ("500 Oracle Parkway, Redwood Shores, CA", "[s|r|p][[:alpha:]]{6}", 3, 2, 1, "i"), 28),
    (F.regexp_instr, ("1234567890", "(123)(4(56)(78))", 1, 1, 0, "i", 1), 1),
    (F.regexp_instr, ("1234567890", "(123)(4(56)(78))", 1, 1, 0, "i", 2), 4),
    (F.regexp_instr, ("1234567890", "(123)(4(56)(78))", 1, 1, 0, "i", 4), 7),
    (F.regexp_instr, ("abc", "z"), 0),
    (F.regexp_count, ("123123123123123", "(12)3", 1, "i"), 5),
    (F.regexp_count, ("123123123123", "123", 2, "i"), 3),
    (F.regexp_count, ("ABC abc", "abc", 1, "i"), 2),
    (F.regexp_count, ("ABC abc", "abc", 1, "ic"), 1),  # the last of conflicting parameters wins
    (F.regexp_like, ("Steven", "^Ste(v|ph)en$"), 1),
    (F.regexp_like, ("Stephen", "^Ste(v|ph)en$"), 1),
    (F.regexp_like, ("Stefan", "^Ste(v|ph)en$"), 0),
    (F.regexp_like, ("De Haan", r"([aeiou])\1", "i"), 1),
    (F.regexp_like, ("Greenberg", r"([aeiou])\1", "i"), 1),
    (F.regexp_like, ("Kochhar", r"([aeiou])\1", "i"), 0),
    (F.regexp_like, ("a\nb", "a.b"), 0),
    (F.regexp_like, ("a\nb", "a.b", "n"), 1),
    (F.regexp_like, ("x\nb", "^b"), 0),
    (F.regexp_like, ("x\nb", "^b", "m"), 1),
    (F.regexp_like, ("abc", "a b c", "x"), 1),
    (F.regexp_like, ("ABC", "abc"), 0),
]


@pytest.mark.parametrize(("fn", "args", "expected"), REGEXP_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_regexp_results(fn, args, expected):
    assert fn(*args) == expected


def test_regexp_replace_null_pattern_returns_source():
    assert F.regexp_replace("abc", None, "x") == "abc"


# --- NULL handling ---------------------------------------------------------------------------


def test_nvl_family():
    assert F.nvl(None, "Not Applicable") == "Not Applicable"
    assert F.nvl("", "x") == "x"
    assert F.nvl(0, 5) == 0
    assert F.nvl(None, "") is None  # '' is NULL
    assert F.nvl2(1, "", "b") is None
    assert F.nvl2(None, "a", "b") == "b"
    assert F.nvl2(0, "a", "b") == "a"
    assert F.nullif(1, 1) is None
    assert F.nullif(1, 1.0) is None
    assert F.nullif("a", "b") == "a"
    assert F.nullif("a", None) == "a"


def test_decode_matches_null_and_converts():
    assert F.decode(None, None, "null", "other") == "null"
    assert F.decode(2, 1, "one", 2, "two", "other") == "two"
    assert F.decode(3, 1, "one", 2, "two", "other") == "other"
    assert F.decode(3, 1, "one", 2, "two") is None
    assert F.decode("1", 1, "one") == "one"  # compared in the type of the first search (NUMBER)
    assert F.decode(1, 1, None, 2) is None
    assert F.decode(2, 1, None, 2) == "2"  # first result NULL -> VARCHAR2
    assert F.decode(2, 1, 10, "20") == 20  # first result numeric -> NUMBER
    with pytest.raises(OracleFunctionError) as info:
        F.decode(2, 1, 10, "x")
    assert info.value.code == 1722


def test_greatest_least():
    assert F.greatest("HARRY", "HARRIOT", "HAROLD") == "HARRY"
    assert F.least("HARRY", "HARRIOT", "HAROLD") == "HAROLD"
    assert F.greatest(1, "3.925", "2.4") == 3.925
    assert F.least(1, "2.1", ".000832") == 0.000832
    assert F.greatest(1, None, 3) is None
    assert F.greatest("10", 9) == "9"  # character comparison when the first argument is text


# --- properties ------------------------------------------------------------------------------


@given(st.text(min_size=1), st.integers(min_value=1, max_value=30), st.integers(min_value=1, max_value=30))
def test_substr_matches_python_slicing(text, position, length):
    expected = text[position - 1 : position - 1 + length] or None
    assert F.substr(text, position, length) == expected


@given(st.text(min_size=1), st.text(min_size=1, max_size=3), st.integers(min_value=1, max_value=20))
def test_instr_matches_str_find(text, needle, position):
    assert F.instr(text, needle, position) == text.find(needle, position - 1) + 1
