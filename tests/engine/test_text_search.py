"""CONTAINS hit sets and SCORE values of the embedded Oracle Text, per operator."""
import json
import math
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workshop.embedded.text import TextQueryError, create_text_index, search
from workshop.embedded.text.evaluate import idf_score

DOCS = {
    1: "The cat sat on the dog",
    2: "The cat and the rabbit sat on the dog",
    3: "dog dog dog cat",
    4: "Oracle 26ai adds hybrid search",
    5: "hybrid vector search with Oracle Database",
    6: "ORA-51805 agent_memory error, see 3.14",
    7: "running runs runner",
    8: "Jack is big and Jack grew big",
    9: "searching vectors in the vector index",
    10: "Robert met Rupert",
}


@pytest.fixture()
def conn():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT)")
    c.executemany("INSERT INTO docs (id, body) VALUES (?, ?)", DOCS.items())
    create_text_index(c, "docs_txt", "docs", "body")
    c.commit()
    yield c
    c.close()


def hits(conn, query):
    return set(search(conn, "docs_txt", query))


def word_score(freq, n, ndocs=len(DOCS)):
    """Oracle's documented word score, written out independently of the implementation."""
    return min(100, int(freq * 3 * (1 + math.log10(ndocs / n))))


@pytest.mark.parametrize("ndocs, needed", [
    # Oracle Text Reference, appendix "Oracle Text Scoring Algorithm": occurrences needed to score 100
    # when only one document of the set contains the term.
    (1, 34), (5, 20), (10, 17), (50, 13), (100, 12), (500, 10), (1_000, 9), (10_000, 7),
    (100_000, 6), (1_000_000, 5),
])
def test_score_table_of_the_oracle_documentation(ndocs, needed):
    assert idf_score([needed], 1, ndocs)[0] == 100
    assert idf_score([needed - 1], 1, ndocs)[0] < 100


def test_score_reaches_100_as_documented_end_to_end():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE t (body TEXT)")
    c.executemany("INSERT INTO t VALUES (?)", [("zebra " * 20,), ("zebra " * 19,)] + [("other words",)] * 8)
    create_text_index(c, "t_txt", "t", "body")
    scores = search(c, "t_txt", "zebra")
    # 10 documents, 2 contain the term: 3 * (1 + log10(5)) = 5.1 per occurrence
    assert scores == {1: 100, 2: 96}


def test_word(conn):
    assert search(conn, "docs_txt", "cat") == {1: word_score(1, 3), 2: word_score(1, 3), 3: word_score(1, 3)}
    assert search(conn, "docs_txt", "DOG")[3] == word_score(3, 3)
    assert hits(conn, "unicorn") == set()


def test_more_occurrences_score_higher(conn):
    scores = search(conn, "docs_txt", "dog")
    assert scores[3] > scores[1] == scores[2]


def test_rarer_terms_score_higher(conn):
    assert search(conn, "docs_txt", "rabbit")[2] > search(conn, "docs_txt", "cat")[2]


def test_and_is_minimum_or_is_maximum(conn):
    cat, rabbit = search(conn, "docs_txt", "cat"), search(conn, "docs_txt", "rabbit")
    assert search(conn, "docs_txt", "cat AND rabbit") == {2: min(cat[2], rabbit[2])}
    assert search(conn, "docs_txt", "cat & rabbit") == {2: min(cat[2], rabbit[2])}
    either = search(conn, "docs_txt", "cat OR rabbit")
    assert either == {1: cat[1], 2: max(cat[2], rabbit[2]), 3: cat[3]}
    assert search(conn, "docs_txt", "cat | rabbit") == either


def test_not_keeps_left_score(conn):
    dog = search(conn, "docs_txt", "dog")
    assert search(conn, "docs_txt", "dog NOT rabbit") == {1: dog[1], 3: dog[3]}
    assert search(conn, "docs_txt", "dog ~ (rabbit | sat)") == {3: dog[3]}


def test_minus_lowers_score(conn):
    dog, cat = search(conn, "docs_txt", "dog"), search(conn, "docs_txt", "cat")
    assert search(conn, "docs_txt", "dog MINUS cat") == {3: dog[3] - cat[3]}
    assert search(conn, "docs_txt", "dog - unicorn") == dog


def test_accum_ranks_by_number_of_matched_terms(conn):
    scores = search(conn, "docs_txt", '"hybrid" ACCUM "search"')
    assert set(scores) == {4, 5}
    assert all(51 <= s <= 100 for s in scores.values())
    mixed = search(conn, "docs_txt", "oracle, vector, index")
    # doc 5 has oracle+vector, doc 9 vector+index, doc 4 only oracle
    assert set(mixed) == {4, 5, 9}
    assert 34 <= mixed[5] <= 66 and 34 <= mixed[9] <= 66 and 1 <= mixed[4] <= 33
    assert min(mixed[5], mixed[9]) > mixed[4]


def test_accum_with_weights_ranks_by_total_weight(conn):
    scores = search(conn, "docs_txt", "rabbit*3, sat, jack")
    # doc 2 has rabbit (weight 3) and sat, doc 1 only sat, doc 8 only jack
    assert scores[2] > scores[1] and scores[2] > scores[8]


def test_weight_and_threshold(conn):
    cat = search(conn, "docs_txt", "cat")
    assert search(conn, "docs_txt", "cat*2") == {k: min(100, 2 * v) for k, v in cat.items()}
    dog = search(conn, "docs_txt", "dog")
    assert search(conn, "docs_txt", f"dog>{dog[1]}") == {3: dog[3]}


def test_phrase_needs_adjacent_words(conn):
    assert hits(conn, "hybrid search") == {4}
    assert hits(conn, "search hybrid") == set()
    assert hits(conn, "vector search") == {5}


def test_stopword_in_phrase_matches_any_word(conn):
    assert search(conn, "docs_txt", "Jack was big") == {8: word_score(2, 1)}
    assert hits(conn, "sat on the dog") == {1, 2}


def test_stopword_transformations(conn):
    assert hits(conn, "the") == set()
    assert hits(conn, "the AND cat") == hits(conn, "cat")
    assert hits(conn, "cat OR the") == hits(conn, "cat")
    assert hits(conn, "cat NOT the") == hits(conn, "cat")
    assert hits(conn, "the NOT cat") == set()
    assert hits(conn, "(this NOT dog) AND cat") == hits(conn, "cat")
    assert hits(conn, "the, of, a") == set()
    assert hits(conn, "+") == set()


def test_lexer_applies_to_queries(conn):
    assert hits(conn, "{ORA-51805}") == {6}
    assert hits(conn, "ora 51805") == {6}
    assert hits(conn, "agent memory") == {6}
    assert hits(conn, "{agent_memory}") == {6}
    assert hits(conn, "3.14") == {6}
    assert hits(conn, "ORA-51805") == set()       # ora MINUS 51805: equal scores cancel out


def test_wildcards(conn):
    assert hits(conn, "vect%") == {5, 9}
    assert hits(conn, "%arch%") == {4, 5, 9}
    assert hits(conn, "r_n%") == {7}
    assert hits(conn, "zz%") == set()


def test_fuzzy(conn):
    assert hits(conn, "fuzzy(vectr)") == {5, 9}
    assert hits(conn, "?serch") == {4, 5}
    assert hits(conn, "fuzzy(hybird)") == {4, 5}
    assert hits(conn, "fuzzy(vectr, 80)") == {5, 9}      # vector: similarity 83
    weighted = search(conn, "docs_txt", "fuzzy(vectr, 60, 100, W)")
    plain = search(conn, "docs_txt", "fuzzy(vectr)")
    assert weighted[5] < plain[5]


def test_fuzzy_numresults_keeps_the_most_similar_terms():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE t (body TEXT)")
    c.executemany("INSERT INTO t VALUES (?)", [("color",), ("colour",), ("colors",), ("clear",)])
    create_text_index(c, "t_txt", "t", "body")
    assert set(search(c, "t_txt", "fuzzy(colr)")) == {1, 2, 3}     # clear: similarity 40 < 60
    assert set(search(c, "t_txt", "fuzzy(colr, 40)")) == {1, 2, 3, 4}
    assert set(search(c, "t_txt", "fuzzy(colr, 60, 1)")) == {1}    # color: 80, colour/colors: 67
    assert set(search(c, "t_txt", "fuzzy(co)")) == set()           # under 3 characters: not expanded


def test_stem_and_soundex(conn):
    assert hits(conn, "$run") == {7}
    assert search(conn, "docs_txt", "$run")[7] > search(conn, "docs_txt", "run%")[7] // 2
    assert hits(conn, "$search") == {4, 5, 9}
    assert hits(conn, "!robert") == {10}
    assert search(conn, "docs_txt", "!robert")[10] == word_score(2, 1)


def test_equiv(conn):
    assert hits(conn, "rabbit = jack") == {2, 8}
    assert hits(conn, "rabbit=cat sat") == {1, 2}
    assert hits(conn, "grew=sat on") == {1, 2, 8}        # 'on' is a stopword: any word


def test_near(conn):
    assert hits(conn, "near((cat, dog), 3)") == {1, 3}
    assert hits(conn, "near((cat, dog), 2)") == {3}
    assert hits(conn, "near((cat, dog, rabbit), 6)") == {2}
    assert hits(conn, "near((cat, dog, rabbit), 5)") == set()
    assert hits(conn, "near((dog, cat), 10, TRUE)") == {3}
    assert hits(conn, "near((cat, dog), 10, TRUE)") == {1, 2}
    assert hits(conn, "cat ; rabbit") == {2}
    closer = search(conn, "docs_txt", "near((cat, dog), 10)")
    assert closer[3] > closer[1]
    assert hits(conn, "near((jack, jack), 5)") == {8}
    assert hits(conn, "near((cat, cat), 5)") == set()      # a repeated term must occur twice
    assert hits(conn, "near((hybrid search, oracle), 5)") == {4}


def test_about_is_accum_of_its_words(conn):
    assert search(conn, "docs_txt", "about(oracle search)") == search(conn, "docs_txt", "oracle, search")


def test_unknown_index(conn):
    with pytest.raises(TextQueryError) as info:
        search(conn, "nope", "cat")
    assert info.value.code == 10502


def test_json_search_index():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE mem (id INTEGER PRIMARY KEY, doc TEXT)")
    rows = [{"kind": "note", "text": "User prefers dark mode", "tags": ["ui", "settings"]},
            {"kind": "fact", "text": "Oracle Database 26ai", "page": 26},
            {"kind": "dark", "text": "mode switch"}]
    c.executemany("INSERT INTO mem (doc) VALUES (?)", [(json.dumps(r),) for r in rows])
    c.execute("INSERT INTO mem (doc) VALUES ('{broken')")
    create_text_index(c, "mem_idx", "mem", "doc", kind="SEARCH", is_json=True)
    assert set(search(c, "mem_idx", "dark")) == {1, 3}
    assert set(search(c, "mem_idx", "dark mode")) == {1}        # a phrase does not span two fields
    assert set(search(c, "mem_idx", "settings")) == {1}
    assert set(search(c, "mem_idx", "26")) == {2}
    assert set(search(c, "mem_idx", "tags")) == set()           # member names are not words
    errors = c.execute('SELECT rid, error_text FROM "ORA$TEXT_INDEX_ERRORS"').fetchall()
    assert [r[0] for r in errors] == [4] and "JSON" in errors[0][1]


def test_empty_stoplist_indexes_stopwords():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE t (body TEXT)")
    c.executemany("INSERT INTO t VALUES (?)", [("to be or not to be",), ("the answer",)])
    create_text_index(c, "t_txt", "t", "body", parameters="STOPLIST CTXSYS.EMPTY_STOPLIST")
    assert set(search(c, "t_txt", "{to} {be}")) == {1}
    assert set(search(c, "t_txt", "the")) == {2}


_words = st.sampled_from(["cat", "dog", "the", "hybrid", "search", "vect%", "?serch", "$run", "{and}",
                          "jack", "big", "oracle", "x", "3.14", "ora-51805"])
_ops = st.sampled_from([" AND ", " OR ", " NOT ", ", ", " - ", " ; ", " ", "*2 ", ">5 ", " & ", " | "])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_words, _ops), min_size=1, max_size=6), st.booleans())
def test_generated_queries_evaluate_or_raise_text_query_error(parts, wrap):
    c = _shared_conn()
    query = "".join(w + o for w, o in parts).strip()
    if wrap:
        query = f"({query})"
    try:
        result = search(c, "docs_txt", query)
    except TextQueryError:
        return
    assert set(result) <= set(DOCS)
    assert all(isinstance(s, int) and 1 <= s <= 100 for s in result.values())


_SHARED = []


def _shared_conn():
    if not _SHARED:
        c = sqlite3.connect(":memory:")
        c.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT)")
        c.executemany("INSERT INTO docs (id, body) VALUES (?, ?)", DOCS.items())
        create_text_index(c, "docs_txt", "docs", "body")
        _SHARED.append(c)
    return _SHARED[0]


def test_phrases_with_large_and_negative_rowids():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    big = 2 ** 62 + 5
    c.executemany("INSERT INTO t VALUES (?, ?)", [(big, "hybrid search engine"), (-7, "the hybrid search"),
                                                  (3, "search hybrid")])
    create_text_index(c, "t_txt", "t", "body")
    assert set(search(c, "t_txt", "hybrid search")) == {big, -7}
    assert set(search(c, "t_txt", "the hybrid")) == {-7, 3}        # leading stopword: any word before
    assert set(search(c, "t_txt", "search the")) == {big, 3}       # trailing stopword: any word after


def test_long_operator_chains(conn):
    assert set(search(conn, "docs_txt", " AND ".join(["cat"] * 3000))) == {1, 2, 3}
    assert set(search(conn, "docs_txt", " OR ".join(["rabbit"] * 3000))) == {2}
    try:
        search(conn, "docs_txt", "(" * 400 + "cat" + " AND dog)" * 400)
    except TextQueryError as exc:
        assert exc.code == 50901


def test_stopword_only_equiv_is_no_token(conn):
    assert hits(conn, "the = a") == set()
    assert hits(conn, "(the = a) AND cat") == hits(conn, "cat")
