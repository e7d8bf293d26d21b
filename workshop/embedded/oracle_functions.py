"""Oracle scalar and aggregate SQL functions for the embedded engine (SQLite UDFs).

The implementation lives in ``workshop.embedded.functions`` (one module per family); this
module is the public surface: the registry, ``register_all`` and the helpers the translator
calls directly. See ``functions/registry.py`` for the name -> function table.

Value conventions: NULL is None and '' is NULL; numbers are int/float; RAW is bytes; DATE,
TIMESTAMP and TIMESTAMP WITH TIME ZONE are ISO text ('YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]');
intervals are text ('+DDDDDDDDD HH:MM:SS.ffffff' / '+YYYYYYYYY-MM'). Errors are
``OracleFunctionError`` with ``.code`` (the ORA- number) and an 'ORA-nnnnn: ...' message.
"""

from __future__ import annotations

from .functions.aggregates import (
    LISTAGG_MAX_BYTES,
    Listagg,
    ListaggDistinct,
    ListaggDistinctTruncate,
    ListaggTruncate,
    Median,
    StatsMode,
    Stddev,
    StddevPop,
    StddevSamp,
    Variance,
    VarPop,
    VarSamp,
)
from .functions.conversions import round_, to_char, to_char_date, to_date, to_timestamp, to_timestamp_tz, trunc
from .functions.dateparse import parse_datetime
from .functions.datefmt import format_datetime
from .functions.datetimes import (
    DATE,
    TIMESTAMP,
    TIMESTAMP_TZ,
    add_months,
    current_date,
    current_timestamp,
    date_add_days,
    date_diff_days,
    datetime_value,
    is_datetime_text,
    last_day,
    localtimestamp,
    months_between,
    next_day,
    parse_datetime_text,
    round_date,
    sysdate,
    systimestamp,
    text_kind,
    trunc_date,
)
from .functions.errors import OracleFunctionError, unsupported
from .functions.extract import extract_ex
from .functions.intervals import (
    Interval,
    interval_add,
    interval_compare,
    interval_literal,
    interval_multiply,
    interval_plus,
    is_interval_text,
    numtodsinterval,
    numtoyminterval,
    parse_interval,
    to_dsinterval,
    to_yminterval,
    ts_add_interval,
    ts_diff,
)
from .functions.nulls import decode, greatest, least, nullif, nvl, nvl2
from .functions.numbers import (
    abs_,
    bitand,
    ceil,
    exp,
    floor,
    ln,
    log,
    mod,
    power,
    remainder,
    round_number,
    sign,
    sqrt,
    trunc_number,
)
from .functions.numfmt import format_number, to_char_number, to_number
from .functions.raw import hextoraw, ora_hash, rawtohex, standard_hash, sys_guid
from .functions.regex import (
    compile_oracle_regex,
    regexp_count,
    regexp_instr,
    regexp_like,
    regexp_replace,
    regexp_substr,
    translate_pattern,
)
from .functions.registry import AGGREGATES, NONDETERMINISTIC, PREFIX, SCALAR_FUNCTIONS, arities, register_all
from .functions.strings import (
    ascii_,
    chr_,
    concat,
    initcap,
    instr,
    length,
    lower,
    lpad,
    ltrim,
    replace,
    reverse,
    rpad,
    rtrim,
    substr,
    translate,
    trim,
    trim_ex,
    upper,
)
from .functions.values import MISSING, as_number, as_text
from .values import date_text, number_to_text, timestamp_text

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]
