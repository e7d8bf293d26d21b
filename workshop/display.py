"""Readable notebook output for retrieval results: short text, highlighted terms, side-by-side tables, SQL.

Pure functions that return strings or DataFrames; the HTML they produce escapes every piece of
data with ``html.escape``, so a document or query holding ``<script>`` shows as text. Objects with
``_repr_html_`` render as HTML in Jupyter and as plain text everywhere else.
"""
from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

ELLIPSIS = "…"

#: One BASIC_LEXER token (letters and digits of any script), as in workshop.retrieval.keywords.
_TOKEN = re.compile(r"[^\W_]+")


def truncate(text: object, width: int = 160, ellipsis: str = ELLIPSIS) -> str:
    """`text` cut to at most `width` characters, ending in `ellipsis` when cut (None -> "").

    Whitespace runs collapse to one space first, so a chunk's line breaks do not waste the room.
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    if text is None:
        return ""
    flat = " ".join(str(text).split())
    if len(flat) <= width:
        return flat
    room = max(width - len(ellipsis), 0)
    cut = flat[:room].rstrip()
    return cut + ellipsis if room else ellipsis[:width]


def term_pattern(terms: Iterable[str]) -> re.Pattern | None:
    """A regex matching any of `terms` as Oracle Text matches them: whole tokens, case-insensitive,
    an identifier's tokens adjacent with any separator between them (ORA-51962 ~ "ora 51962")."""
    alternatives = []
    for term in terms:
        tokens = _TOKEN.findall(str(term))
        if tokens:
            alternatives.append(r"[\W_]+".join(re.escape(t) for t in tokens))
    if not alternatives:
        return None
    alternatives.sort(key=len, reverse=True)  # longest first: an identifier wins over its parts
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alternatives) + r")(?![^\W_])", re.IGNORECASE)


def highlight(text: object, terms: Iterable[str], width: int | None = None, tag: str = "mark") -> str:
    """HTML of `text` (optionally truncated to `width`) with every match of `terms` wrapped in <mark>.

    Text outside and inside the marks is escaped with html.escape."""
    if tag not in ("mark", "b", "strong", "em"):
        raise ValueError("tag must be mark, b, strong or em")
    plain = truncate(text, width) if width is not None else ("" if text is None else str(text))
    pattern = term_pattern(terms)
    if pattern is None:
        return html.escape(plain)
    out, last = [], 0
    for match in pattern.finditer(plain):
        out.append(html.escape(plain[last:match.start()]))
        out.append(f"<{tag}>{html.escape(match.group(0))}</{tag}>")
        last = match.end()
    out.append(html.escape(plain[last:]))
    return "".join(out)


def shorten_columns(frame: pd.DataFrame, columns: Sequence[str] | None = None, width: int = 80) -> pd.DataFrame:
    """A copy of `frame` with long text cells truncated (all object columns when `columns` is None)."""
    out = frame.copy()
    if columns is None:
        columns = _text_columns(out)
    for name in columns:
        out[name] = out[name].map(lambda v: truncate(v, width) if isinstance(v, str) else _cell(v))
    return out


def results_html(frame: pd.DataFrame, terms: Iterable[str] = (), text_columns: Sequence[str] = ("text",),
                 width: int = 160) -> str:
    """An HTML table of a result frame: every cell escaped; `text_columns` truncated and highlighted."""
    terms = list(terms)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False, name=None):
        cells = []
        for name, value in zip(frame.columns, row):
            if name in text_columns:
                cells.append(f"<td>{highlight(value, terms, width)}</td>")
            else:
                cells.append(f"<td>{html.escape(_cell(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def keywords_from_query(contains_query: str | None) -> list[str]:
    """The brace-escaped terms of a CONTAINS query built by keyword_terms (``}}`` read as ``}``);
    ``{ORA-51962} ACCUM {pool}`` -> ``["ORA-51962", "pool"]``. None -> []."""
    if not contains_query:
        return []
    return [t.replace("}}", "}") for t in re.findall(r"\{((?:[^}]|\}\})*)\}", contains_query)]


def _text_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c].dtype)]


class ResultsView:
    """A result frame for a notebook: HTML with terms highlighted, plain text elsewhere."""

    def __init__(self, frame: pd.DataFrame, terms: Iterable[str], text_columns: Sequence[str], width: int):
        self.frame, self.terms, self.text_columns, self.width = frame, list(terms), list(text_columns), width

    def _repr_html_(self) -> str:
        strategy = self.frame.attrs.get("strategy")
        caption = f"<p><b>{html.escape(str(strategy))}</b>: {len(self.frame)} rows</p>" if strategy else ""
        return caption + results_html(self.frame, self.terms, self.text_columns, self.width)

    def __str__(self) -> str:
        return shorten_columns(self.frame, self.text_columns, min(self.width, 60)).to_string(index=False)

    __repr__ = __str__


def show_results(frame: pd.DataFrame, terms: Iterable[str] | None = None,
                 text_columns: Sequence[str] | None = None, width: int = 160) -> ResultsView:
    """Show a search result: text cut to `width`, query terms highlighted (by default the keywords
    the search used, from ``frame.attrs["keywords"]``), every value escaped."""
    if terms is None:
        terms = keywords_from_query(frame.attrs.get("keywords"))
    return ResultsView(frame, terms, text_columns if text_columns is not None else _text_columns(frame), width)


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def compare_strategies(results: Mapping[str, pd.DataFrame], column: str, k: int = 5,
                       width: int = 60) -> pd.DataFrame:
    """Side by side: one row per rank (1..k), one column per strategy, cells from `column`.

    A strategy with fewer than k results shows empty cells (post-filtering often does)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    table = {}
    for name, frame in results.items():
        if column not in frame.columns:
            raise KeyError(f"result {name!r} has no column {column!r} (it has {', '.join(map(str, frame.columns))})")
        values = [truncate(v, width) if isinstance(v, str) else _cell(v) for v in frame[column].head(k)]
        table[name] = values + [""] * (k - len(values))
    return pd.DataFrame(table, index=pd.RangeIndex(1, k + 1, name="rank"))


def overlap_table(results: Mapping[str, pd.DataFrame], id_column: str, k: int = 10) -> pd.DataFrame:
    """How many of their top-k ids each pair of strategies shares (diagonal: each one's own count)."""
    tops = {name: set(frame[id_column].head(k)) for name, frame in results.items()}
    names = list(tops)
    return pd.DataFrame([[len(tops[a] & tops[b]) for b in names] for a in names], index=names, columns=names)


# --------------------------------------------------------------------------- SQL

_CLAUSES = ("WITH", "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "FETCH", "OFFSET",
            "UNION ALL", "UNION", "MINUS", "INTERSECT", "LEFT OUTER JOIN", "RIGHT OUTER JOIN",
            "FULL OUTER JOIN", "LEFT JOIN", "RIGHT JOIN", "INNER JOIN", "JOIN", "AND", "OR")
_CLAUSE = re.compile(r"\s+\b(" + "|".join(c.replace(" ", r"\s+") for c in _CLAUSES) + r")\b", re.IGNORECASE)
#: Quoted strings, quoted identifiers and comments: never reformatted.
_OPAQUE = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)


def format_sql(sql: str) -> str:
    """SQL laid out for reading.

    Text that already has line breaks keeps its layout (dedented, trailing spaces removed).
    One-line SQL gets a line break before each main clause (and AND/OR indented), outside
    string literals, quoted names and comments."""
    if not isinstance(sql, str):
        raise TypeError(f"sql must be str, not {type(sql).__name__}")
    text = textwrap.dedent(sql.replace("\t", "    ")).strip("\n")
    if "\n" in text.strip():
        return "\n".join(line.rstrip() for line in text.strip().splitlines())
    text = text.strip()
    pieces, last = [], 0
    for match in _OPAQUE.finditer(text):
        pieces.append(_break_clauses(text[last:match.start()]))
        pieces.append(match.group(0))
        last = match.end()
    pieces.append(_break_clauses(text[last:]))
    return "".join(pieces).strip()


def _break_clauses(fragment: str) -> str:
    def repl(match: re.Match) -> str:
        word = " ".join(match.group(1).split())
        indent = "  " if word.upper() in ("AND", "OR") else ""
        return "\n" + indent + word
    return _CLAUSE.sub(repl, fragment)


class SqlView:
    """Formatted SQL: prints as plain text, renders highlighted (and escaped) in a notebook."""

    def __init__(self, sql: str, binds: Mapping[str, object] | None = None):
        self.sql = format_sql(sql)
        self.binds = dict(binds or {})

    def _bind_lines(self) -> list[str]:
        return [f":{name} = {truncate(repr(value), 80)}" for name, value in self.binds.items()]

    def __str__(self) -> str:
        lines = self._bind_lines()
        return self.sql + ("\n\n-- binds\n-- " + "\n-- ".join(lines) if lines else "")

    __repr__ = __str__

    def _repr_html_(self) -> str:
        try:
            from pygments import highlight as pyg_highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import SqlLexer
        except ImportError:  # plain, escaped text when pygments is not installed
            code = f"<pre>{html.escape(self.sql)}</pre>"
        else:
            code = pyg_highlight(self.sql, SqlLexer(), HtmlFormatter(noclasses=True, nowrap=False))
        binds = "".join(f"<li><code>{html.escape(line)}</code></li>" for line in self._bind_lines())
        return code + (f"<ul>{binds}</ul>" if binds else "")


def show_sql(sql: object, binds: Mapping[str, object] | None = None) -> SqlView:
    """Pretty SQL for a notebook cell: ``show_sql(df.attrs["sql"], df.attrs["binds"])`` or
    ``show_sql(statement)``; anything with ``.sql`` (and ``.binds``) works."""
    if not isinstance(sql, str):
        binds = binds if binds is not None else getattr(sql, "binds", None)
        sql = getattr(sql, "sql", sql)
    return SqlView(sql, binds)


class Captioned:
    """A DataFrame with a caption line above it (which engine, model or reranker produced it), as HTML in
    Jupyter and as text elsewhere; the caption is escaped like every other cell."""

    def __init__(self, frame: pd.DataFrame, caption: str):
        self.frame, self.caption = frame, caption

    def _repr_html_(self) -> str:
        return (f"<div><p style='margin:0 0 4px 0'><em>{html.escape(self.caption)}</em></p>"
                f"{self.frame.to_html(index=False, escape=True)}</div>")

    def __repr__(self) -> str:
        return f"{self.caption}\n{self.frame.to_string(index=False)}"


class IdentityTable:
    """Which engine, model and reranker produced a notebook's numbers: every value in full (a pandas frame cut
    them at 50 characters, losing "not a cross-encoder" and why OAMP is skipped), as an HTML table in Jupyter
    and as aligned `name: value` lines elsewhere; values are escaped."""

    def __init__(self, values: Mapping[str, object], title: str):
        self.values, self.title = {str(k): str(v) for k, v in values.items()}, title

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:left;white-space:normal'>{html.escape(v)}</td></tr>"
                       for k, v in self.values.items())
        return f"<table><caption style='text-align:left'><b>{html.escape(self.title)}</b></caption>{rows}</table>"

    def __repr__(self) -> str:
        width = max((len(k) for k in self.values), default=0)
        return "\n".join([f"{self.title}:", *(f"  {k.ljust(width)}  {v}" for k, v in self.values.items())])


def identity_table(values: Mapping[str, object], title: str = "this notebook's numbers come from") -> IdentityTable:
    """The header table of a part: `identity_table({"engine": banner(conn), "reranker": reranker_label(conn)})`."""
    return IdentityTable(values, title)


class GraphView:
    """A LangGraph graph for a notebook: the diagram in JupyterLab (4.1 and later render `text/vnd.mermaid`), and
    elsewhere one short line per node with where it can go next, instead of 35 lines of Mermaid source."""

    def __init__(self, graph):
        self.graph = graph

    def lines(self) -> list[str]:
        """`node -> next` per node in the graph's order; `?->` marks a conditional edge (the node decides)."""
        out: dict[str, list[str]] = {name: [] for name in self.graph.nodes}
        for edge in self.graph.edges:
            out.setdefault(edge.source, []).append(("?" if edge.conditional else "") + edge.target)
        return [f"{name} -> {' | '.join(targets)}" for name, targets in out.items() if targets]

    def __repr__(self) -> str:
        return "\n".join(["graph (-> always, ?name: the node decides):", *(f"  {line}" for line in self.lines())])

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {"text/vnd.mermaid": self.graph.draw_mermaid(), "text/plain": repr(self)}


def show_graph(graph) -> GraphView:
    """`show_graph(app.get_graph())`: the diagram where the front end draws Mermaid, a short text elsewhere."""
    return GraphView(graph)


def captioned(frame: pd.DataFrame, caption: str) -> Captioned:
    """`frame` shown under `caption`, e.g. captioned(hits, f"reranked by {reranker_label(conn)}")."""
    return Captioned(frame, caption)


class StrategyExplorer:
    """The notebook's explorer: a question box, a Search button and each strategy's top k side by side.

    It owns what it needs: its **own connection** (opened with `connect()` on first use, reopened if it was
    closed), so closing the notebook's `conn` at the end of "Run All" does not break it; and its errors
    show in its own output area, as one line, instead of in JupyterLab's hidden log.

        explorer = StrategyExplorer(lambda db, q: run_strategies(q, db=db), connect, question="...")
        explorer.show()
    """

    def __init__(self, run, connect, *, question: str = "", column: str = "title", k: int = 5, width: int = 42,
                 describe=None):
        import ipywidgets as widgets

        self._run, self._connect = run, connect
        self._conn = None
        self.column, self.k, self.width = column, k, width
        self.describe = describe or (lambda q: q)
        self.box = widgets.Text(value=question, description="Question", layout=widgets.Layout(width="75%"),
                                continuous_update=False)
        self.button = widgets.Button(description="Search", button_style="primary", icon="search")
        self.output = widgets.Output()
        self.button.on_click(self.update)
        self.box.observe(self.update, names="value")
        self.widget = widgets.VBox([widgets.HBox([self.box, self.button]), self.output])

    def connection(self):
        """The explorer's own connection, (re)opened when it is missing or closed."""
        healthy = False
        if self._conn is not None:
            try:
                healthy = self._conn.is_healthy()
            except Exception:  # noqa: BLE001 - a dead connection is replaced
                healthy = False
        if not healthy:
            self._conn = self._connect()
        return self._conn

    def update(self, _=None) -> None:
        """Run every strategy for the question in the box; show the table, or the error, in the output."""
        question = self.box.value.strip()
        self.output.outputs = ()
        if not question:
            self.output.append_stdout("Type a question first.\n")
            return
        try:
            results = self._run(self.connection(), question)
            table = compare_strategies(results, self.column, k=self.k, width=self.width)
        except Exception as exc:  # noqa: BLE001 - shown to the learner in the widget, never swallowed
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            self.output.append_stdout(f"⚠️ the search failed: {type(exc).__name__}: {first}\n")
            return
        self.output.append_stdout(self.describe(question) + "\n")
        self.output.append_display_data(table)

    def show(self) -> None:
        from IPython.display import display
        display(self.widget)
        self.update()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - already closed
                pass
            self._conn = None


# --------------------------------------------------------------------------- part 06: evaluation plots and the grader
def plot_metric_bars(differences: pd.DataFrame, title: str = "difference from the baseline, 95% paired bootstrap CI"):
    """One bar per (comparison, metric): the mean difference with its interval as error bars."""
    import matplotlib.pyplot as plt

    metrics = list(dict.fromkeys(differences["metric"]))
    comparisons = list(dict.fromkeys(differences["comparison"]))
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.8 / max(len(comparisons), 1)
    for i, comparison in enumerate(comparisons):
        rows = differences[differences["comparison"] == comparison].set_index("metric").reindex(metrics)
        x = [m + i * width for m in range(len(metrics))]
        err = [rows["diff"] - rows["ci_low"], rows["ci_high"] - rows["diff"]]
        ax.bar(x, rows["diff"], width, yerr=err, capsize=3, label=comparison)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks([m + width * (len(comparisons) - 1) / 2 for m in range(len(metrics))], metrics)
    ax.set_ylabel("mean difference")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_per_query_scatter(scores: pd.DataFrame, x: str, y: str, metric: str = "ndcg@10"):
    """Per-query scores of two strategies against each other; points above the diagonal favour `y`."""
    import matplotlib.pyplot as plt

    wide = scores.pivot(index="query_id", columns="strategy", values=metric)
    intents = scores.drop_duplicates("query_id").set_index("query_id")["intent"].reindex(wide.index)
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    for intent in dict.fromkeys(intents):
        chosen = intents == intent
        ax.scatter(wide.loc[chosen, x], wide.loc[chosen, y], s=18, alpha=0.7, label=intent)
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
    ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), xlabel=f"{x} {metric}", ylabel=f"{y} {metric}",
           title=f"per query: {y} vs {x}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def grader_widget(grader, texts: Mapping[str, str], width: int = 300):
    """An ipywidgets grader over `grader.pending()`: the pair, the chunk text, buttons 0-3 (writes through
    `grader.grade`, the same API a script uses)."""
    import ipywidgets as widgets

    pending = grader.pending().to_dict("records")
    state = {"i": 0}
    header, body, status = widgets.HTML(), widgets.HTML(), widgets.HTML()
    buttons = [widgets.Button(description=str(g), layout=widgets.Layout(width="48px")) for g in range(4)]

    def show() -> None:
        if state["i"] >= len(pending):
            header.value, body.value = "<b>All pairs graded.</b>", ""
            return
        row = pending[state["i"]]
        header.value = (f"<b>{state['i'] + 1}/{len(pending)}</b> · question: <i>{html.escape(row['question'])}</i> "
                        f"· candidate #{row['position']}: <code>{html.escape(row['chunk_id'])}</code>")
        body.value = f"<div style='max-width:60em'>{html.escape(truncate(texts.get(row['chunk_id'], ''), width))}</div>"

    def on_click(button) -> None:
        if state["i"] < len(pending):
            row = pending[state["i"]]
            grader.grade(row["log_id"], row["chunk_id"], int(button.description))
            status.value = f"graded {html.escape(row['chunk_id'])} = {button.description}"
            state["i"] += 1
            show()

    for button in buttons:
        button.on_click(on_click)
    show()
    return widgets.VBox([header, body, widgets.HBox(buttons), status])
