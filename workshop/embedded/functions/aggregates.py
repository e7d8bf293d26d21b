"""Aggregate classes for ``sqlite3.Connection.create_aggregate`` / ``create_window_function``.

Each class also has ``inverse`` and ``value``, so ``register_all`` registers them as window
functions: they work both in GROUP BY and with OVER (...).

LISTAGG concatenates in arrival order (the engine feeds rows in WITHIN GROUP order), skips
NULLs, returns NULL when nothing was aggregated and raises ORA-01489 past ``max_bytes`` (4000,
MAX_STRING_SIZE=STANDARD) unless it is an ON OVERFLOW TRUNCATE variant. Statistics follow Oracle:
VARIANCE/STDDEV are sample statistics that return 0 for one row, *_SAMP return NULL for one row.
"""

from __future__ import annotations

import statistics
from decimal import Decimal

from .datetimes import sys_extract_utc
from .errors import OracleFunctionError
from .values import Number, as_number, as_text, number_out, to_decimal

LISTAGG_MAX_BYTES = 4000


class InstantMin:
    """MIN over TIMESTAMP WITH TIME ZONE: the value (with its own offset) at the earliest instant. Oracle compares
    such values in UTC; their stored text, offset and all, does not sort by instant."""

    pick = staticmethod(min)

    def __init__(self) -> None:
        self.values: list[object] = []

    def step(self, value: object) -> None:
        if value is not None and value != "":
            self.values.append(value)

    def inverse(self, value: object) -> None:
        if value is not None and value != "":
            self.values.remove(value)

    def value(self) -> object:
        return self.pick(self.values, key=sys_extract_utc) if self.values else None

    finalize = value


class InstantMax(InstantMin):
    """MAX over TIMESTAMP WITH TIME ZONE: the value at the latest instant."""

    pick = staticmethod(max)


class Listagg:
    """LISTAGG(expr[, delimiter]) ON OVERFLOW ERROR."""

    distinct = False
    truncate = False
    max_bytes = LISTAGG_MAX_BYTES

    def __init__(self) -> None:
        self.values: list[str] = []
        self.delimiter = ""
        self.indicator = "..."
        self.with_count = True

    def step(self, value: object, delimiter: object = None, indicator: object = "...", with_count: object = 1) -> None:
        """Take one row; the delimiter (and overflow options) come with every row."""
        self.delimiter = as_text(delimiter) or ""
        self.indicator = as_text(indicator) or ""
        self.with_count = bool(with_count)
        text = as_text(value)
        if text is not None:
            self.values.append(text)

    def inverse(self, value: object, *_options: object) -> None:
        """Window frame moved past a row: drop its (oldest) value."""
        text = as_text(value)
        if text is not None:
            self.values.remove(text)

    def value(self) -> str | None:
        """The concatenation, or ORA-01489 / the truncated form past the limit."""
        values = list(dict.fromkeys(self.values)) if self.distinct else self.values
        if not values:
            return None
        result = self.delimiter.join(values)
        if len(result.encode("utf-8")) <= self.max_bytes:
            return result
        if not self.truncate:
            raise OracleFunctionError(1489)
        return self._truncated(values)

    finalize = value

    def _truncated(self, values: list[str]) -> str:
        kept: list[str] = []
        size = 0
        delimiter_size = len(self.delimiter.encode("utf-8"))
        for index, text in enumerate(values):
            dropped = len(values) - index - 1
            tail = self.delimiter + self.indicator + (f"({dropped})" if self.with_count else "")
            needed = size + (delimiter_size if kept else 0) + len(text.encode("utf-8"))
            if needed + len(tail.encode("utf-8")) > self.max_bytes:
                break
            kept.append(text)
            size = needed
        dropped = len(values) - len(kept)
        suffix = self.indicator + (f"({dropped})" if self.with_count else "")
        return self.delimiter.join(kept) + (self.delimiter if kept else "") + suffix


class ListaggDistinct(Listagg):
    """LISTAGG(DISTINCT expr[, delimiter]): the first arrival of each value is kept."""

    distinct = True


class ListaggTruncate(Listagg):
    """LISTAGG(expr, delimiter ON OVERFLOW TRUNCATE [indicator] [WITH|WITHOUT COUNT]).

    step(value, delimiter, indicator='...', with_count=1): the result keeps whole values,
    then the delimiter, the indicator and '(n)' with the number of values left out.
    """

    truncate = True


class ListaggDistinctTruncate(Listagg):
    """LISTAGG(DISTINCT ...) ON OVERFLOW TRUNCATE."""

    distinct = True
    truncate = True


class _Numbers:
    def __init__(self) -> None:
        self.values: list[Decimal] = []

    def step(self, value: object) -> None:
        number = as_number(value)
        if number is not None:
            self.values.append(to_decimal(number))

    def inverse(self, value: object) -> None:
        number = as_number(value)
        if number is not None:
            self.values.remove(to_decimal(number))

    def value(self) -> Number | None:
        return self.finalize()  # type: ignore[attr-defined]


class Median(_Numbers):
    """MEDIAN(expr): middle value, or the mean of the two middle values."""

    def finalize(self) -> Number | None:
        if not self.values:
            return None
        return number_out(statistics.median(self.values))


class Variance(_Numbers):
    """VARIANCE(expr): sample variance, 0 for one row."""

    single_row: object = 0
    population = False

    def _variance(self) -> Decimal | None:
        if not self.values:
            return None
        if len(self.values) == 1 and not self.population:
            return None
        if self.population:
            return statistics.pvariance(self.values)
        return statistics.variance(self.values)

    def finalize(self) -> Number | None:
        if len(self.values) == 1 and not self.population:
            return self.single_row  # type: ignore[return-value]
        value = self._variance()
        return None if value is None else number_out(value)


class VarSamp(Variance):
    """VAR_SAMP(expr): sample variance, NULL for one row."""

    single_row = None


class VarPop(Variance):
    """VAR_POP(expr): population variance."""

    population = True


class Stddev(Variance):
    """STDDEV(expr): sample standard deviation, 0 for one row."""

    def finalize(self) -> Number | None:
        if len(self.values) == 1 and not self.population:
            return self.single_row  # type: ignore[return-value]
        value = self._variance()
        return None if value is None else number_out(value.sqrt())


class StddevSamp(Stddev):
    """STDDEV_SAMP(expr): NULL for one row."""

    single_row = None


class StddevPop(Stddev):
    """STDDEV_POP(expr): population standard deviation."""

    population = True


class StatsMode:
    """STATS_MODE(expr): the most frequent value; among ties, the first to arrive."""

    def __init__(self) -> None:
        self.values: list[object] = []

    @staticmethod
    def _key(value: object) -> object:
        return to_decimal(value) if isinstance(value, (int, float)) else value

    def step(self, value: object) -> None:
        if value is not None and value != "":
            self.values.append(value)

    def inverse(self, value: object) -> None:
        if value is not None and value != "":
            key = self._key(value)
            index = next(i for i, v in enumerate(self.values) if self._key(v) == key)
            del self.values[index]

    def value(self) -> object:
        counts: dict[object, int] = {}
        first: dict[object, object] = {}
        for item in self.values:
            key = self._key(item)
            counts[key] = counts.get(key, 0) + 1
            first.setdefault(key, item)
        if not counts:
            return None
        best = max(counts.values())
        return next(first[key] for key, count in counts.items() if count == best)

    finalize = value
