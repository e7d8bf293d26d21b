"""keyword_terms: free text -> a CONTAINS query the Oracle Text parser always accepts.

Checked three ways: exact expected strings, hypothesis fuzzing through the engine's Oracle Text
parser *and* a real CONTAINS query in SQL, and identifiers finding their documents (generated ones
and the workshop corpus's own identifiers)."""
from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, HealthCheck, given, settings
from hypothesis import strategies as st

from workshop.data import load_chunks
from workshop.embedded import connect
from workshop.embedded.text import parse_query
from workshop.embedded.text.lexer import DEFAULT_STOPWORDS as ENGINE_STOPWORDS
from workshop.embedded.text.lexer import tokenize
from workshop.embedded.text.query import Accum, And, Or, Phrase, Term
from workshop.retrieval import DEFAULT_STOPWORDS, escape_braces, keyword_terms, split_terms
from workshop.retrieval.keywords import MAX_QUERY_BYTES

# --------------------------------------------------------------------------- exact results


@pytest.mark.parametrize("text, mode, expected", [
    ("How do I fix ORA-51962 when vector_memory_size is 0?", "accum",
     "{fix} ACCUM {ORA-51962} ACCUM {vector_memory_size} ACCUM {0}"),
    ("hybrid search", "and", "{hybrid} AND {search}"),
    ("hybrid search", "or", "{hybrid} OR {search}"),
    ("NEAR ACCUM about WITHIN fuzzy minus", "accum",
     "{NEAR} ACCUM {ACCUM} ACCUM {about} ACCUM {WITHIN} ACCUM {fuzzy} ACCUM {minus}"),
    ("DBMS_VECTOR.LOAD_ONNX_MODEL fails", "accum", "{DBMS_VECTOR.LOAD_ONNX_MODEL} ACCUM {fails}"),
    ("release 23.26.0, 3,000 rows", "accum", "{release} ACCUM {23.26.0} ACCUM {3,000} ACCUM {rows}"),
    ("lattice.chunk.overlap_words=40", "accum", "{lattice.chunk.overlap_words} ACCUM {40}"),
    ("Vector vector VECTOR", "accum", "{Vector}"),          # duplicates (any case) once
    ("ORA-51962. ORA-51962!", "accum", "{ORA-51962}"),
    ("{vector} (index) [hnsw] $stem ?fuzzy !sound %wild_card", "accum",
     "{vector} ACCUM {index} ACCUM {hnsw} ACCUM {stem} ACCUM {fuzzy} ACCUM {sound} ACCUM {wild_card}"),
    ('"quoted phrase" it\'s', "accum", "{quoted} ACCUM {phrase}"),   # it, s: stopwords
    ("Suche nach Vektoren — 向量 检索 ✨", "accum", "{Suche} ACCUM {nach} ACCUM {Vektoren} ACCUM {向量} ACCUM {检索}"),
    ("is_current flag", "accum", "{is_current} ACCUM {flag}"),    # a stopword inside an identifier stays
])
def test_expected_queries(text, mode, expected):
    assert keyword_terms(text, mode) == expected


@pytest.mark.parametrize("text", ["", "   \n\t", "?!.,;-", "the and of a", "AND OR NOT", "{}", "}}{{", "😀🚀",
                                  "% _ $ ?", "it's", "--- ___ ..."])
def test_nothing_searchable_gives_none(text):
    assert keyword_terms(text) is None
    assert split_terms(text) == []


def test_escape_braces_doubles_the_closing_brace():
    # Oracle Text Reference, "Querying Escape Characters": inside braces, } is written }}
    assert escape_braces("a}b") == "{a}}b}"
    assert escape_braces("x{y") == "{x{y}"              # an open brace needs no escape inside braces
    assert str(parse_query(escape_braces("a}b AND c"))) == "a b and c"
    assert str(parse_query(escape_braces("}"))) == "<no_lex>"


def test_bad_arguments():
    with pytest.raises(ValueError, match="mode"):
        keyword_terms("x", "near")
    with pytest.raises(TypeError, match="str"):
        keyword_terms(None)
    with pytest.raises(ValueError, match="max_terms"):
        keyword_terms("x", max_terms=0)


def test_max_terms_and_byte_bound():
    words = " ".join(f"w{i}" for i in range(100))
    assert keyword_terms(words, max_terms=3) == "{w0} ACCUM {w1} ACCUM {w2}"
    long_words = " ".join("x" * 500 + str(i) for i in range(40))
    query = keyword_terms(long_words, max_terms=40)
    assert len(query.encode()) <= MAX_QUERY_BYTES
    assert query.count("ACCUM") == len(query.encode()) // 505 - 1   # whole terms only
    giant = "a" * 5000
    assert keyword_terms(f"{giant} small") == "{small}"        # a term that can never fit is skipped


def test_stoplist_matches_the_engine():
    assert DEFAULT_STOPWORDS == ENGINE_STOPWORDS
    assert keyword_terms("the index", stopwords=frozenset()) == "{the} ACCUM {index}"


# --------------------------------------------------------------------------- fuzzing


HOSTILE = ["AND", "OR", "NOT", "NEAR", "ACCUM", "ABOUT", "WITHIN", "FUZZY", "MINUS", "EQUIV", "SYN", "BT",
           "MNOT", "SDATA", "near(", "fuzzy(", "about(", "{", "}", "{}", "}}", "{{", "\\", "\\}", '"', "'", "%",
           "_", "$", "?", "!", "*", ">", "=", ";", "~", "&", "|", ",", "-", "(", ")", "[", "]", "ORA-51962",
           "vector_memory_size", "23.26.0", "1,000", "x.y.z", "a-b_c.d/e:f@g", "the", "of", "İ", "ß", "ǅ",
           "naïve", "e\u0301", "Ω", "٣", "²", "😀", "🚀", "\u200b", "\x00", "\t", "\n", "ＡＢＣ", "Ⅻ", "ﬁ"]


def hostile_text():
    fragment = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8))
    joined = st.lists(fragment, max_size=12).flatmap(
        lambda parts: st.lists(st.sampled_from(["", " ", "  ", "-", "_", ".", "{", "}"]),
                               min_size=len(parts), max_size=len(parts)).map(
            lambda seps: "".join(p + s for p, s in zip(parts, seps))))
    return st.one_of(st.text(), joined, st.text(min_size=500, max_size=3000))


def assert_only_terms(node) -> None:
    """The parsed query is the joiner over phrases of plain terms: no operator, wildcard or expansion leaked."""
    if isinstance(node, Accum):
        for item in node.items:
            assert_only_terms(item)
    elif isinstance(node, (And, Or)):
        assert_only_terms(node.left)
        assert_only_terms(node.right)
    else:
        assert isinstance(node, Phrase), f"unexpected {type(node).__name__}: {node}"
        assert node.slots and all(isinstance(s, Term) for s in node.slots), str(node)


@pytest.fixture(scope="module")
def fuzz_conn(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("fuzz") / "fuzz.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("CREATE TABLE fuzz (id NUMBER PRIMARY KEY, body VARCHAR2(4000))")
    cur.executemany("INSERT INTO fuzz VALUES (:1, :2)", [
        (1, "near accum about within fuzzy minus"), (2, "ORA-51962 vector_memory_size 23.26.0"),
        (3, "naïve Ω ß 向量 检索"), (4, "the index of everything")])
    conn.commit()
    cur.execute("CREATE INDEX fuzz_ctx ON fuzz (body) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")
    yield conn
    conn.close()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_text(), mode=st.sampled_from(["accum", "and", "or"]))
def test_fuzz_parser_and_sql_accept_every_query(fuzz_conn, text, mode):
    query = keyword_terms(text, mode)
    searchable = [t for t in tokenize(text) if t not in ENGINE_STOPWORDS]
    if query is None:
        assert not searchable, f"dropped searchable tokens {searchable[:5]}"
        return
    assert searchable
    assert len(query.encode()) <= MAX_QUERY_BYTES
    assert_only_terms(parse_query(query))
    with fuzz_conn.cursor() as cur:
        cur.execute("SELECT id, SCORE(1) FROM fuzz WHERE CONTAINS(body, :q, 1) > 0", q=query)
        cur.fetchall()


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40))
def test_fuzz_escape_braces_keeps_any_text_literal(text):
    node = parse_query(escape_braces(text))
    assert isinstance(node, Phrase)
    assert [s.text for s in node.slots] == [t for t in tokenize(text)]   # exactly the lexer's tokens, no operator


_ids = itertools.count(100)
identifier_parts = st.lists(st.from_regex(r"[A-Za-z0-9]{1,10}", fullmatch=True), min_size=2, max_size=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=identifier_parts, connectors=st.lists(st.sampled_from("-_./:@"), min_size=3, max_size=3),
       mode=st.sampled_from(["accum", "and", "or"]))
@example(parts=["S", "S"], connectors=["-", "-", "-"], mode="accum")   # an identifier made of stopwords
def test_fuzz_identifiers_find_their_document(fuzz_conn, parts, connectors, mode):
    ident = parts[0] + "".join(c + p for c, p in zip(connectors, parts[1:]))
    query = keyword_terms(f"what is {ident}? (it was in the alpha notes)", mode)
    if all(p.lower() in DEFAULT_STOPWORDS for p in parts):
        # an identifier made only of stopwords adds no searchable term: the sentence's own words remain
        assert query == keyword_terms("what is ? (it was in the alpha notes)", mode)
        return
    doc_id = next(_ids)
    with fuzz_conn.cursor() as cur:
        cur.execute("INSERT INTO fuzz VALUES (:1, :2)", [doc_id, f"alpha notes: {ident} omega"])
        fuzz_conn.commit()
        exact = keyword_terms(ident, "and")
        assert exact == escape_braces(ident)          # the identifier stays one braced term
        cur.execute("SELECT id FROM fuzz WHERE CONTAINS(body, :q, 1) > 0", q=exact)
        assert doc_id in {r[0] for r in cur.fetchall()}
        cur.execute("SELECT id FROM fuzz WHERE CONTAINS(body, :q, 1) > 0", q=query)
        assert doc_id in {r[0] for r in cur.fetchall()}


# --------------------------------------------------------------------------- the corpus's identifiers

CORPUS_IDENTIFIERS = ["ORA-51962", "ORA-51805", "ORA-51803", "DRG-10599", "ORA-00942", "PLS-00201",
                      "vector_memory_size", "23.26.0", "DBMS_VECTOR.LOAD_ONNX_MODEL", "EFCONSTRUCTION",
                      "MK-4012", "lattice.chunk.overlap_words"]


@pytest.fixture(scope="module")
def chunks_conn(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("chunks") / "chunks.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("CREATE TABLE chunks (chunk_id VARCHAR2(20) PRIMARY KEY, text CLOB)")
    cur.executemany("INSERT INTO chunks VALUES (:1, :2)", [(c["chunk_id"], c["text"]) for c in load_chunks()])
    conn.commit()
    cur.execute("CREATE INDEX chunks_ctx ON chunks (text) INDEXTYPE IS CTXSYS.CONTEXT")
    yield conn
    conn.close()


@pytest.mark.parametrize("ident", CORPUS_IDENTIFIERS)
def test_corpus_identifiers_find_exactly_their_chunks(chunks_conn, ident):
    texts = {c["chunk_id"]: c["text"] for c in load_chunks()}
    # what Oracle Text matches: the identifier's tokens adjacent, any non-alphanumeric separators
    tokens = re.findall(r"[^\W_]+", ident.lower()) if not re.fullmatch(r"[\d.]+", ident) else [re.escape(ident)]
    adjacent = re.compile(r"(?<![^\W_])" + r"[\W_]+".join(tokens) + r"(?![^\W_])", re.IGNORECASE)
    with chunks_conn.cursor() as cur:
        cur.execute("SELECT chunk_id FROM chunks WHERE CONTAINS(text, :q, 1) > 0 ORDER BY SCORE(1) DESC, chunk_id",
                    q=keyword_terms(f"What is {ident}?", "and"))
        hits = [r[0] for r in cur.fetchall()]
    verbatim = {cid for cid, text in texts.items() if ident.lower() in text.lower()}
    assert verbatim and verbatim <= set(hits)
    assert all(adjacent.search(texts[cid]) for cid in hits)
    assert hits[0] in verbatim
