"""Name -> implementation tables and registration of every function on a SQLite connection.

``SCALAR_FUNCTIONS[name] = (fn, nargs)``: nargs is the exact count, or -1 when the count varies.
``register_all`` registers each name as ``ORA_<name>``; for an optional-argument function it
registers every accepted count separately (SQLite then rejects a wrong count when the statement
is prepared) and only true varargs (DECODE, GREATEST, LEAST) as -1.
"""

from __future__ import annotations

import inspect
import sqlite3
from typing import Callable

from . import aggregates, conversions, datefmt, datetimes, extract, intervals, nulls, numbers, numfmt, raw, regex, strings

SCALAR_FUNCTIONS: dict[str, tuple[Callable[..., object], int]] = {
    # characters
    "SUBSTR": (strings.substr, -1),
    "INSTR": (strings.instr, -1),
    "LENGTH": (strings.length, 1),
    "UPPER": (strings.upper, 1),
    "LOWER": (strings.lower, 1),
    "INITCAP": (strings.initcap, 1),
    "TRIM": (strings.trim, 1),
    "TRIM_EX": (strings.trim_ex, 3),
    "LTRIM": (strings.ltrim, -1),
    "RTRIM": (strings.rtrim, -1),
    "REPLACE": (strings.replace, -1),
    "LPAD": (strings.lpad, -1),
    "RPAD": (strings.rpad, -1),
    "CONCAT": (strings.concat, 2),
    "CHR": (strings.chr_, 1),
    "ASCII": (strings.ascii_, 1),
    "TRANSLATE": (strings.translate, 3),
    "REVERSE": (strings.reverse, 1),
    "REGEXP_LIKE": (regex.regexp_like, -1),
    "REGEXP_REPLACE": (regex.regexp_replace, -1),
    "REGEXP_SUBSTR": (regex.regexp_substr, -1),
    "REGEXP_INSTR": (regex.regexp_instr, -1),
    "REGEXP_COUNT": (regex.regexp_count, -1),
    # NULL handling and comparison
    "NVL": (nulls.nvl, 2),
    "NVL2": (nulls.nvl2, 3),
    "DECODE": (nulls.decode, -1),
    "NULLIF": (nulls.nullif, 2),
    "GREATEST": (nulls.greatest, -1),
    "LEAST": (nulls.least, -1),
    # numbers
    "ROUND": (conversions.round_, -1),
    "TRUNC": (conversions.trunc, -1),
    "ROUND_NUMBER": (numbers.round_number, -1),
    "TRUNC_NUMBER": (numbers.trunc_number, -1),
    "MOD": (numbers.mod, 2),
    "REMAINDER": (numbers.remainder, 2),
    "CEIL": (numbers.ceil, 1),
    "FLOOR": (numbers.floor, 1),
    "ABS": (numbers.abs_, 1),
    "SIGN": (numbers.sign, 1),
    "POWER": (numbers.power, 2),
    "SQRT": (numbers.sqrt, 1),
    "EXP": (numbers.exp, 1),
    "LN": (numbers.ln, 1),
    "LOG": (numbers.log, 2),
    "BITAND": (numbers.bitand, 2),
    "TO_NUMBER": (numfmt.to_number, -1),
    # conversion
    "TO_CHAR": (conversions.to_char, -1),
    "TO_CHAR_NUMBER": (numfmt.to_char_number, -1),
    "TO_CHAR_DATE": (conversions.to_char_date, -1),
    "TO_DATE": (conversions.to_date, -1),
    "TO_TIMESTAMP": (conversions.to_timestamp, -1),
    "TO_TIMESTAMP_TZ": (conversions.to_timestamp_tz, -1),
    "CAST_DATE": (conversions.cast_date, 1),
    "CAST_TIMESTAMP": (conversions.cast_timestamp, 1),
    # datetimes
    "SYSDATE": (datetimes.sysdate, 0),
    "SYSTIMESTAMP": (datetimes.systimestamp, -1),
    "SYS_EXTRACT_UTC": (datetimes.sys_extract_utc, 1),
    "CURRENT_DATE": (datetimes.current_date, 0),
    "CURRENT_TIMESTAMP": (datetimes.current_timestamp, -1),
    "LOCALTIMESTAMP": (datetimes.localtimestamp, -1),
    "TRUNC_DATE": (datetimes.trunc_date, -1),
    "ROUND_DATE": (datetimes.round_date, -1),
    "ADD_MONTHS": (datetimes.add_months, 2),
    "MONTHS_BETWEEN": (datetimes.months_between, 2),
    "LAST_DAY": (datetimes.last_day, 1),
    "NEXT_DAY": (datetimes.next_day, 2),
    "EXTRACT_EX": (extract.extract_ex, 2),
    "DATE_ADD_DAYS": (datetimes.date_add_days, 2),
    "DATE_DIFF_DAYS": (datetimes.date_diff_days, 2),
    # intervals
    "NUMTODSINTERVAL": (intervals.numtodsinterval, 2),
    "NUMTOYMINTERVAL": (intervals.numtoyminterval, 2),
    "TO_DSINTERVAL": (intervals.to_dsinterval, 1),
    "TO_YMINTERVAL": (intervals.to_yminterval, 1),
    "INTERVAL_LITERAL": (intervals.interval_literal, 2),
    "INTERVAL_ADD": (intervals.interval_add, -1),
    "TS_ADD_INTERVAL": (intervals.ts_add_interval, 2),
    "TS_DIFF": (intervals.ts_diff, 2),
    "INTERVAL_PLUS": (intervals.interval_plus, -1),
    "INTERVAL_MULTIPLY": (intervals.interval_multiply, 2),
    "INTERVAL_COMPARE": (intervals.interval_compare, 2),
    "INTERVAL_KEY": (intervals.interval_key, 1),
    # RAW and hashing
    "SYS_GUID": (raw.sys_guid, 0),
    "HEXTORAW": (raw.hextoraw, 1),
    "RAWTOHEX": (raw.rawtohex, 1),
    "STANDARD_HASH": (raw.standard_hash, -1),
    "ORA_HASH": (raw.ora_hash, -1),
}

AGGREGATES: dict[str, tuple[type, int]] = {
    "LISTAGG": (aggregates.Listagg, -1),
    "LISTAGG_DISTINCT": (aggregates.ListaggDistinct, -1),
    "LISTAGG_TRUNCATE": (aggregates.ListaggTruncate, -1),
    "LISTAGG_DISTINCT_TRUNCATE": (aggregates.ListaggDistinctTruncate, -1),
    "MEDIAN": (aggregates.Median, 1),
    "INSTANT_MIN": (aggregates.InstantMin, 1),
    "INSTANT_MAX": (aggregates.InstantMax, 1),
    "VARIANCE": (aggregates.Variance, 1),
    "VAR_SAMP": (aggregates.VarSamp, 1),
    "VAR_POP": (aggregates.VarPop, 1),
    "STDDEV": (aggregates.Stddev, 1),
    "STDDEV_SAMP": (aggregates.StddevSamp, 1),
    "STDDEV_POP": (aggregates.StddevPop, 1),
    "STATS_MODE": (aggregates.StatsMode, 1),
}

NONDETERMINISTIC = frozenset(
    {"SYSDATE", "SYSTIMESTAMP", "CURRENT_DATE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "SYS_GUID"}
)

PREFIX = "ORA_"

# Kept for the translator: the default NLS-like formats used when no mask is given.
DEFAULT_FORMATS = {
    "DATE": datefmt.DEFAULT_DATE_FORMAT,
    "TIMESTAMP": datefmt.DEFAULT_TIMESTAMP_FORMAT,
    "TIMESTAMP WITH TIME ZONE": datefmt.DEFAULT_TIMESTAMP_TZ_FORMAT,
}


def arities(fn: Callable[..., object], nargs: int) -> list[int]:
    """The argument counts to register: [nargs], each accepted count, or [-1] for *args."""
    if nargs != -1:
        return [nargs]
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return [-1]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is inspect.Parameter.empty)
    return list(range(required, len(positional) + 1))


def register_all(conn: sqlite3.Connection, prefix: str = PREFIX) -> None:
    """Register every scalar function and aggregate as ``<prefix><NAME>`` on the connection."""
    for name, (fn, nargs) in SCALAR_FUNCTIONS.items():
        for count in arities(fn, nargs):
            conn.create_function(prefix + name, count, fn, deterministic=name not in NONDETERMINISTIC)
    for name, (cls, nargs) in AGGREGATES.items():
        counts = [nargs] if nargs != -1 else [n - 1 for n in arities(cls.step, -1)]  # drop ``self``
        for count in counts:
            # A window function is an ordinary aggregate too, and also works with OVER (...).
            conn.create_window_function(prefix + name, count, cls)
