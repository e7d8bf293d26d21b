"""workshop.display: truncation, highlighting, side-by-side tables and SQL, with hostile text escaped."""
from __future__ import annotations

import pandas as pd
import pytest

from workshop.display import (SqlView, compare_strategies, format_sql, highlight, keywords_from_query,
                              overlap_table, results_html, shorten_columns, show_results, show_sql, term_pattern,
                              truncate)
from workshop.retrieval import Statement

HOSTILE = '<script>alert("x")</script> & <b>bold</b>'


@pytest.mark.parametrize("text, width, expected", [
    ("short", 10, "short"),
    ("exactly10!", 10, "exactly10!"),
    ("abcdefghijk", 10, "abcdefghi…"),
    ("word    spaced\n\nlines  here", 40, "word spaced lines here"),
    ("trailing space cut here", 16, "trailing space…"),
    (None, 5, ""),
    (12345678, 5, "1234…"),
    ("abc", 1, "…"),
])
def test_truncate(text, width, expected):
    out = truncate(text, width)
    assert out == expected and len(out) <= width


def test_truncate_rejects_zero_width():
    with pytest.raises(ValueError):
        truncate("x", 0)


def test_highlight_marks_whole_tokens_case_insensitively():
    text = "Vector search: set VECTOR_MEMORY_SIZE; vectors differ. ORA 51962 and ORA-51962."
    out = highlight(text, ["vector", "vector_memory_size", "ORA-51962"])
    assert out == ("<mark>Vector</mark> search: set <mark>VECTOR_MEMORY_SIZE</mark>; vectors differ. "
                   "<mark>ORA 51962</mark> and <mark>ORA-51962</mark>.")


def test_highlight_escapes_hostile_text_and_terms():
    out = highlight(HOSTILE + " alert", ["alert", "<b>", "script"])
    assert "<script>" not in out and "<b>bold" not in out
    assert out.startswith("&lt;<mark>script</mark>&gt;<mark>alert</mark>(&quot;x&quot;)")
    assert "&amp;" in out
    assert highlight(HOSTILE, []) == '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;'
    assert highlight(None, ["x"]) == ""


def test_highlight_truncates_before_marking():
    out = highlight("alpha beta gamma delta", ["delta", "alpha"], width=12)
    assert out == "<mark>alpha</mark> beta…"
    with pytest.raises(ValueError):
        highlight("x", ["x"], tag="script")


def test_term_pattern_ignores_punctuation_only_terms():
    assert term_pattern(["", "--", "{}"]) is None
    pattern = term_pattern(["{ORA-51962}", "pool"])     # braces from a CONTAINS query are ignored
    assert pattern.search("see ora_51962 now") and not pattern.search("pools")


def test_results_html_escapes_every_cell():
    frame = pd.DataFrame({"rank": [1], "title": [HOSTILE], "text": [HOSTILE + " alert " + "x" * 300],
                          "score": [0.123456], "missing": [None]})
    out = results_html(frame, terms=["alert"], text_columns=("text",), width=60)
    assert "<script>" not in out and "<b>bold" not in out
    assert out.count("<mark>alert</mark>") == 2
    assert "<td>0.1235</td>" in out and "<td></td>" in out
    assert out.startswith("<table><thead><tr><th>rank</th>")
    assert "x" * 300 not in out


def test_shorten_columns_leaves_numbers_alone():
    frame = pd.DataFrame({"id": [1, 2], "text": ["a" * 50, None]})
    short = shorten_columns(frame, width=10)
    assert list(short["text"]) == ["a" * 9 + "…", ""] and list(short["id"]) == [1, 2]
    assert frame["text"].iloc[0] == "a" * 50                     # the input is not modified


def test_compare_strategies_side_by_side():
    results = {
        "keyword": pd.DataFrame({"title": ["A", "B", "C"]}),
        "vector": pd.DataFrame({"title": ["C", "A"]}),
        "rrf": pd.DataFrame({"title": ["A" * 100, "C", "B"]}),
    }
    table = compare_strategies(results, "title", k=3, width=10)
    assert list(table.columns) == ["keyword", "vector", "rrf"]
    assert list(table.index) == [1, 2, 3] and table.index.name == "rank"
    assert list(table["vector"]) == ["C", "A", ""]
    assert table.loc[1, "rrf"] == "A" * 9 + "…"
    with pytest.raises(KeyError, match="no column"):
        compare_strategies(results, "chunk_id")


def test_overlap_table():
    results = {"a": pd.DataFrame({"id": [1, 2, 3]}), "b": pd.DataFrame({"id": [3, 4, 1]})}
    table = overlap_table(results, "id", k=3)
    assert table.loc["a", "b"] == 2 and table.loc["a", "a"] == 3


def test_format_sql_keeps_authored_layout():
    sql = """
        SELECT id,
               SCORE(1) AS score   
        FROM docs
    """
    assert format_sql(sql) == "SELECT id,\n       SCORE(1) AS score\nFROM docs"


def test_format_sql_breaks_one_line_sql_outside_literals():
    sql = ("select id from docs where tenant = 'a where b' and contains(body, :q, 1) > 0 "
           "order by score(1) desc fetch first 5 rows only")
    assert format_sql(sql) == ("select id\nfrom docs\nwhere tenant = 'a where b'\n  and contains(body, :q, 1) > 0\n"
                               "order by score(1) desc\nfetch first 5 rows only")
    joined = format_sql("SELECT a FROM x FULL  OUTER JOIN y ON x.id = y.id /* from here */ WHERE 1 = 1")
    assert joined == "SELECT a\nFROM x\nFULL OUTER JOIN y ON x.id = y.id /* from here */\nWHERE 1 = 1"
    with pytest.raises(TypeError):
        format_sql(None)


def test_show_sql_plain_and_html():
    statement = Statement("SELECT id FROM docs WHERE body = :q", {"q": HOSTILE, "v": [0.5] * 100})
    view = show_sql(statement)
    assert isinstance(view, SqlView)
    text = str(view)
    assert text.startswith("SELECT id\nFROM docs\nWHERE body = :q") and "-- binds" in text
    assert max(len(line) for line in text.splitlines()) <= 90           # a long vector is truncated
    page = view._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "SELECT" in page
    assert str(show_sql("SELECT 1 FROM dual")) == "SELECT 1\nFROM dual"


def test_keywords_from_query_reads_keyword_terms_output():
    from workshop.retrieval import keyword_terms
    assert keywords_from_query(keyword_terms("Fix ORA-51962 in the pool")) == ["Fix", "ORA-51962", "pool"]
    assert keywords_from_query("{a}}b} AND {c}") == ["a}b", "c"]
    assert keywords_from_query(None) == []


def test_show_results_highlights_the_search_keywords():
    frame = pd.DataFrame({"rank": [1, 2], "id": ["D1", "D2"],
                          "text": ["The pool for ORA-51962 <empty>", "nothing here " * 30]})
    frame.attrs.update({"strategy": "keyword", "keywords": "{ORA-51962} ACCUM {pool}"})
    view = show_results(frame, width=50)
    page = view._repr_html_()
    assert "<mark>ORA-51962</mark>" in page and "<mark>pool</mark>" in page
    assert "&lt;empty&gt;" in page and "<p><b>keyword</b>: 2 rows</p>" in page
    assert "ACCUM" not in page
    plain = str(view)
    assert "ORA-51962" in plain and "<mark>" not in plain and "nothing here " * 5 not in plain


class _Conn:
    def __init__(self):
        self.open = True

    def is_healthy(self):
        return self.open

    def close(self):
        self.open = False


def _explorer(run, connections):
    from workshop.display import StrategyExplorer

    def connect():
        connections.append(_Conn())
        return connections[-1]
    return StrategyExplorer(run, connect, question="a question")


def _shown(explorer):
    return "".join(o.get("text", "") for o in explorer.output.outputs)


def test_the_explorer_owns_its_connection_and_reopens_it():
    """The notebook's last cell closes `conn`; the explorer never used it, and replaces its own when closed."""
    connections, seen = [], []
    explorer = _explorer(lambda db, q: seen.append(db) or {"x": pd.DataFrame({"title": ["t"]})}, connections)
    explorer.update()
    explorer.update()
    assert len(connections) == 1 and seen == [connections[0]] * 2
    connections[0].close()
    explorer.update()
    assert len(connections) == 2 and seen[-1] is connections[1]


def test_the_explorer_shows_its_errors_in_its_output():
    def broken(db, question):
        raise RuntimeError("DPY-1001: not connected to database\nmore detail")
    explorer = _explorer(broken, [])
    explorer.update()     # does not raise: the error is shown where the learner looks
    assert "⚠️ the search failed: RuntimeError: DPY-1001: not connected to database" in _shown(explorer)
    explorer.box.value = "   "
    assert "Type a question first." in _shown(explorer)
