"""The caption that names the reranker (or engine, or model) above a result table."""
from __future__ import annotations

import pandas as pd

from workshop.display import captioned


def test_a_caption_is_escaped_and_shown_above_the_table():
    view = captioned(pd.DataFrame({"subject": ["<b>FINANCE.LOANS.RATE_BP</b>"]}), "reranked by <RERANKER>")
    html = view._repr_html_()
    assert "&lt;RERANKER&gt;" in html and "&lt;b&gt;FINANCE" in html and "<b>FINANCE" not in html
    assert html.index("reranked by") < html.index("<table")
    assert repr(view).splitlines()[0] == "reranked by <RERANKER>"
