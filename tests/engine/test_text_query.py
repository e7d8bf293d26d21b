"""CONTAINS query parsing: precedence, escaping, reserved words and Oracle's DRG errors."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop.embedded.text import TextQueryError, TextUnsupportedError, parse_query
from workshop.embedded.text.lexer import tokenize
from workshop.embedded.text.query import Fuzzy, Near, Phrase, Term


@pytest.mark.parametrize("query, reading", [
    # the precedence examples of the Oracle Text Reference, "Operator Precedence"
    ("w1 | w2 & w3", "(w1 | (w2 & w3))"),
    ("w1 & w2 | w3", "((w1 & w2) | w3)"),
    ("?w1, w2 | w3 & w4", "(fuzzy(w1, 60, 100, N) , (w2 | (w3 & w4)))"),
    ("abc = def ghi & jkl = mno", "(abc=def ghi & jkl=mno)"),
    # word forms of the operators, any case
    ("a and b or c", "((a & b) | c)"),
    ("a Not b", "(a ~ b)"),
    ("a accum b accum c", "(a , b , c)"),
    ("a minus b", "(a - b)"),
    ("a - b ~ c", "((a - b) ~ c)"),
    ("a near b", "NEAR((a, b), 100)"),
    ("a ; b ; c", "NEAR((a, b, c), 100)"),
    ("a equiv b", "a=b"),
    ("(a | b) & c", "((a | b) & c)"),
    ("[a | b] & c", "((a | b) & c)"),
    ("a*2 , b>10", "((a*2) , (b>10))"),
    ("a & b*0.5", "(a & (b*0.5))"),
    # langchain-oracledb's generated queries
    ('"hybrid" ACCUM "search"', "(hybrid , search)"),
    ('fuzzy("vectr") ACCUM fuzzy("serch")', "(fuzzy(vectr, 60, 100, N) , fuzzy(serch, 60, 100, N))"),
    ('"near" ACCUM "about"', "(near , about)"),
    # the lexer runs on every word
    ("ORA-51805", "(ora - 51805)"),
    ("foo.bar baz", "foo bar baz"),
    ("agent_memory", "agent_memory"),
    ("vect%", "vect%"),
    ("$run ?cat !smith", "$run fuzzy(cat, 60, 100, N) !smith"),
    ("$(run | walk)", "($run | $walk)"),
    ("fuzzy(government, 70, 6, weight)", "fuzzy(government, 70, 6, W)"),
    ("fuzzy(government,,,N)", "fuzzy(government, 60, 100, N)"),
    ("NEAR((dog, cat), 6)", "NEAR((dog, cat), 6)"),
    ("near((monday, tuesday, wednesday), 20, TRUE)", "NEAR((monday, tuesday, wednesday), 20, TRUE)"),
    ("about(cats and dogs)", "ABOUT(cats and dogs)"),
    ("+", "<no_lex>"),
])
def test_reading(query, reading):
    assert str(parse_query(query)) == reading


@pytest.mark.parametrize("query, text", [
    ("{AT&T}", "at t"),
    ("AT\\&T", "at t"),
    ("{high-voltage}", "high voltage"),
    ("high{-}voltage", "high voltage"),
    ("high\\-voltage", "high voltage"),
    ("{and}", "and"),
    ("{NEAR}", "near"),
    ("{oracle AND database}", "oracle and database"),
    ("{a}}b}", "a b"),
    ("{50%}", "50"),          # escaped % is punctuation, not a wildcard
    ("50\\%", "50"),
    ("{x_y}", "x y"),
])
def test_escapes_make_operators_literal(query, text):
    node = parse_query(query)
    assert isinstance(node, Phrase)
    assert all(isinstance(s, Term) for s in node.slots)
    assert str(node) == text


@pytest.mark.parametrize("query, column", [
    ("AND", 1),
    ("foo AND", 8),
    ("NOT x", 1),
    ("a AND NOT b", 7),       # NOT is binary in Oracle Text: 'a NOT b'
    ("(foo", 5),
    ("foo)", 4),
    ("foo (bar", 5),         # a group cannot continue a phrase
    ("{foo", 5),
    ("foo}", 4),
    ("foo\\", 5),
    ("a & & b", 5),
    ("a ,", 4),
    ("about", 1),
    ("tell me about it", 9),
    ("syn", 1),
    ("What were revenues in 2023?", 28),
    ("a*", 3),
    ("a*x", 3),
    ("a*11", 2),
    ("a>101", 2),
    ("near((a, b), 101)", 14),
    ("fuzzy(x, 90)", 10),
    ("fuzzy(x, 60, 100, Z)", 19),
    ("", 1),
    ("   ", 1),
])
def test_syntax_errors_are_drg_50901(query, column):
    with pytest.raises(TextQueryError) as info:
        parse_query(query)
    assert info.value.code == 50901
    assert info.value.message == f"DRG-50901: text query parser syntax error on line 1, column {column}"


@pytest.mark.parametrize("query, construct", [
    ("a WITHIN title", "WITHIN"),
    ("SYN(car)", "SYN"),
    ("INPATH(/a/b)", "INPATH"),
    ("a MNOT b", "MNOT"),
    ("near((a, b), 5, TRUE, 1)", "minreqd"),
    ("{new york}=nyc", "EQUIV"),
])
def test_unsupported_operators_name_the_construct(query, construct):
    with pytest.raises(TextUnsupportedError) as info:
        parse_query(query)
    assert info.value.code == 3001
    assert construct in info.value.message
    assert isinstance(info.value, TextQueryError)


def test_fuzzy_arguments():
    node = parse_query("fuzzy(vectr, 70, 5, W)")
    assert node.slots == (Fuzzy("vectr", 70, 5, True),)


def test_near_defaults():
    node = parse_query("NEAR((a, b))")
    assert isinstance(node, Near) and node.span == 100 and not node.ordered


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_any_text_parses_or_raises_text_query_error(text):
    try:
        parse_query(text)
    except TextQueryError as exc:
        assert exc.message.startswith(("DRG-", "ORA-03001"))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
def test_brace_escaped_user_text_is_always_literal(text):
    """Oracle's escape: everything in {...} is literal and '}}' stands for '}'."""
    node = parse_query("{" + text.replace("}", "}}") + "}")
    assert isinstance(node, Phrase)
    assert all(isinstance(s, Term) for s in node.slots)
    assert [s.text for s in node.slots] == tokenize(text.replace("%", " ").replace("_", " "))


def test_deep_nesting_is_a_text_query_error():
    with pytest.raises(TextQueryError):
        parse_query("(" * 3000 + "a" + ")" * 3000)
