"""NULL-handling and comparison functions: NVL, NVL2, DECODE, NULLIF, GREATEST, LEAST.

COALESCE is SQLite's own. Type conversion follows Oracle where the runtime value shows the type
(DECODE converts to the type of the first search value and of the first result; GREATEST/LEAST
to the type of the first argument). NVL cannot see the type of a NULL first argument, so it
returns the second argument unconverted; the translator owns declared-type conversion there.
"""

from __future__ import annotations

import datetime as _dt

from .conversions import to_date, to_timestamp, to_timestamp_tz
from .datetimes import DATE, TIMESTAMP_TZ, datetime_value, is_datetime_text, local_tz, render
from .values import as_number, as_text, is_null


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float))


def nvl(expr1: object, expr2: object) -> object:
    """NVL(expr1, expr2): expr2 when expr1 is NULL."""
    chosen = expr2 if is_null(expr1) else expr1
    return None if chosen == "" else chosen


def nvl2(expr1: object, expr2: object, expr3: object) -> object:
    """NVL2(expr1, expr2, expr3): expr2 when expr1 is not NULL, else expr3."""
    chosen = expr3 if is_null(expr1) else expr2
    return None if chosen == "" else chosen


def nullif(expr1: object, expr2: object) -> object:
    """NULLIF(expr1, expr2): NULL when they are equal, else expr1."""
    if is_null(expr1):
        return None
    if is_null(expr2):
        return expr1
    if _is_number(expr1) or _is_number(expr2):
        return None if as_number(expr1) == as_number(expr2) else expr1
    return None if expr1 == expr2 else expr1


def _convert_like(value: object, numeric: bool) -> object:
    if is_null(value):
        return None
    if numeric:
        return as_number(value)
    if isinstance(value, bytes):
        return value
    return as_text(value)


def decode(expr: object, *pairs: object) -> object:
    """DECODE(expr, search1, result1, ..., [default]); NULL matches NULL.

    expr and the searches are compared in the type of the first search; the chosen result is
    converted to the type of the first result (VARCHAR2 when that is NULL or text).
    """
    if len(pairs) < 2:
        from .errors import OracleFunctionError

        raise OracleFunctionError(1760, "DECODE needs at least 3 arguments")
    searches = pairs[0::2][: len(pairs) // 2]
    results = pairs[1::2]
    default = pairs[-1] if len(pairs) % 2 else None
    numeric_compare = _is_number(searches[0])
    key = _convert_like(expr, numeric_compare)
    chosen = default
    for search, result in zip(searches, results):
        candidate = _convert_like(search, numeric_compare)
        if (key is None and candidate is None) or (key is not None and key == candidate):
            chosen = result
            break
    return _convert_like(chosen, _is_number(results[0]))


def _extreme(args: tuple[object, ...], pick_max: bool) -> object:
    if not args:
        from .errors import OracleFunctionError

        raise OracleFunctionError(1760, "GREATEST/LEAST need at least 1 argument")
    if any(is_null(a) for a in args):
        return None
    if is_datetime_text(args[0]):
        return _datetime_extreme(args, pick_max)
    numeric = _is_number(args[0])
    values = [_convert_like(a, numeric) for a in args]
    best = values[0]
    for value in values[1:]:
        if (value > best) if pick_max else (value < best):  # type: ignore[operator]
            best = value
    return best


def _datetime_extreme(args: tuple[object, ...], pick_max: bool) -> object:
    """GREATEST / LEAST of datetimes: every argument converted to the first one's type (SQLRF "GREATEST": the first
    expr decides the type of the comparison and of the result), compared as instants, so a DATE drops a later
    argument's fraction and WITH TIME ZONE values compare in UTC (their text, offset included, does not sort)."""
    kind = datetime_value(args[0])[1]
    convert = {TIMESTAMP_TZ: to_timestamp_tz, DATE: to_date}.get(kind, to_timestamp)   # a character argument
    moments = [_as_kind(datetime_value(arg if is_datetime_text(arg) else convert(arg))[0], kind) for arg in args]
    return render((max if pick_max else min)(moments), kind)


def _as_kind(moment: _dt.datetime, kind: str) -> _dt.datetime:
    """A datetime as a value of the given type: WITH TIME ZONE keeps (or takes the session's) zone; DATE and TIMESTAMP
    are local times without one (a DATE without a fraction)."""
    if kind == TIMESTAMP_TZ:
        return moment if moment.tzinfo else moment.replace(tzinfo=local_tz())
    if moment.tzinfo:
        moment = moment.astimezone(local_tz()).replace(tzinfo=None)
    return moment.replace(microsecond=0) if kind == DATE else moment


def greatest(*args: object) -> object:
    """GREATEST: NULL if any argument is NULL; compared in the type of the first argument."""
    return _extreme(args, pick_max=True)


def least(*args: object) -> object:
    """LEAST: NULL if any argument is NULL; compared in the type of the first argument."""
    return _extreme(args, pick_max=False)
