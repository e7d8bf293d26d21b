"""The translator's notes on parse-tree nodes, in a channel the statement's text cannot reach.

sqlglot fills `Expression.meta` from any comment that contains `sqlglot.meta` (`/* sqlglot.meta rls_inner */`
sets `meta["rls_inner"] = True`), so a string key there is something a learner's comment can set: it once
turned row-level security off. Comments are dropped before parsing (dialect.parse), and the engine's own
marks are keyed by these enum members, which no text can produce (comment-derived keys are always strings;
deepcopy keeps an enum member as itself, so the marks survive `Expression.copy()`).
"""
from __future__ import annotations

import enum


class Mark(enum.Enum):
    """One note the translator leaves on a node for a later step of the same translation."""

    WRITTEN_UNQUOTED = "identifier written without quotes (heading keeps it unquoted)"
    WRITTEN_NAME = "column name as the CREATE TABLE wrote it"
    ORACLE_TEXT = "projection text as written (the column heading)"
    ROWNUM_ORDER = "ORDER BY to apply after ROWNUM filtering"
    RLS_INNER = "the base-table reference inside a row-level security inline view"
    VECTOR_METRIC = "distance metric of a vector function call"
    ORACLE_TYPE = "Oracle datatype of an expression the translator rewrote"
    BIND_NAME = "the Oracle bind name of a rewritten placeholder (its datatype comes from the bound value)"
    IGNORE_DUPKEY = "the INSERT's IGNORE_ROW_ON_DUPKEY_INDEX hint: (table, columns, index)"
    TEXT_SLOT = "slot of the CONTAINS search a SCORE refers to"
    TEXT_ALIAS = "table alias of the CONTAINS search a SCORE refers to"
    ORACLE_TABLE = "the Oracle name of a table reference the translator pointed at its SQLite storage name"
    NVL = "a COALESCE the translator made from NVL (its operands already converted as NVL converts)"
