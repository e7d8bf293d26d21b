"""BASIC_LEXER tokenisation and the default stoplist of the embedded Oracle Text."""
import pytest

from workshop.embedded.text.lexer import DEFAULT_STOPWORDS, JSON_VALUE_GAP, document_positions, tokenize


@pytest.mark.parametrize("text, tokens", [
    ("ORA-51805", ["ora", "51805"]),
    ("agent_memory", ["agent", "memory"]),
    ("Hybrid SEARCH, vector-search!", ["hybrid", "search", "vector", "search"]),
    ("Oracle 26ai", ["oracle", "26ai"]),
    ("pi is 3.14 and 1,000 rows", ["pi", "is", "3.14", "and", "1,000", "rows"]),
    ("v26.1", ["v26", "1"]),
    ("end. 2024.", ["end", "2024"]),
    ('"quoted" (paren) {brace}', ["quoted", "paren", "brace"]),
    ("Café naïve ÜBER", ["café", "naïve", "über"]),
    ("", []),
    ("--- ... ___", []),
])
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_default_stoplist_is_oracles_english_list():
    assert len(DEFAULT_STOPWORDS) == 114
    for word in ("a", "the", "and", "of", "mr", "yours", "ve", "ll", "therefore"):
        assert word in DEFAULT_STOPWORDS
    for word in ("about", "oracle", "search", "vector", "after"):
        assert word not in DEFAULT_STOPWORDS


def test_document_positions_count_stopwords():
    positions, n = document_positions("The cat and the dog", False)
    assert positions == {"the": [0, 3], "cat": [1], "and": [2], "dog": [4]}
    assert n == 5


def test_json_document_indexes_values_not_member_names():
    positions, n = document_positions('{"title": "Vector search", "tags": ["fast", "hybrid"], "page": 7, '
                                      '"ok": true, "none": null}', True)
    assert set(positions) == {"vector", "search", "fast", "hybrid", "7"}
    assert "title" not in positions and "true" not in positions
    # values are kept apart so phrases cannot span two fields
    assert positions["fast"][0] - positions["search"][0] > JSON_VALUE_GAP


def test_json_document_must_be_json():
    with pytest.raises(ValueError):
        document_positions("not json", True)


def test_null_is_not_a_document():
    assert document_positions(None, False) is None
