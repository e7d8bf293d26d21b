"""Aggregate classes for ``sqlite3.Connection.create_aggregate``.

LISTAGG concatenates in arrival order (the engine feeds rows in WITHIN GROUP order), skips
NULLs, returns NULL when nothing was aggregated and raises ORA-01489 past ``max_bytes`` (4000,
MAX_STRING_SIZE=STANDARD) unless it is an ON OVERFLOW TRUNCATE variant. Statistics follow Oracle:
VARIANCE/STDDEV are sample statistics that return 0 for one row, *_SAMP return NULL for one row.
"""

from __future__ import annotations

import statistics
from decimal import Decimal

from .errors import OracleFunctionError
from .values import Number, as_number, as_text, number_out, to_decimal

LISTAGG_MAX_BYTES = 4000


class Listagg:
    """LISTAGG(expr[, delimiter]) ON OVERFLOW ERROR."""

    distinct = False
    truncate = False
    max_bytes = LISTAGG_MAX_BYTES

    def __init__(self) -> None:
        self.values: list[str] = []
        self.seen: set[str] = set()
        self.delimiter = ""
        self.indicator = "..."
        self.with_count = True

    def step(self, value: object, delimiter: object = None, indicator: object = "...", with_count: object = 1) -> None:
        """Take one row; the delimiter (and overflow options) come with every row."""
        self.delimiter = as_text(delimiter) or ""
        self.indicator = as_text(indicator) or ""
        self.with_count = bool(with_count)
        text = as_text(value)
        if text is None:
            return
        if self.distinct:
            if text in self.seen:
                return
            self.seen.add(text)
        self.values.append(text)

    def finalize(self) -> str | None:
        """The concatenation, or ORA-01489 / the truncated form past the limit."""
        if not self.values:
            return None
        result = self.delimiter.join(self.values)
        if len(result.encode("utf-8")) <= self.max_bytes:
            return result
        if not self.truncate:
            raise OracleFunctionError(1489)
        return self._truncated()

    def _truncated(self) -> str:
        kept: list[str] = []
        size = 0
        delimiter_size = len(self.delimiter.encode("utf-8"))
        for index, text in enumerate(self.values):
            dropped = len(self.values) - index - 1
            tail = self.delimiter + self.indicator + (f"({dropped})" if self.with_count else "")
            needed = size + (delimiter_size if kept else 0) + len(text.encode("utf-8"))
            if needed + len(tail.encode("utf-8")) > self.max_bytes:
                break
            kept.append(text)
            size = needed
        dropped = len(self.values) - len(kept)
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
        self.counts: dict[object, int] = {}
        self.first: dict[object, object] = {}

    def step(self, value: object) -> None:
        if value is None or value == "":
            return
        key = to_decimal(value) if isinstance(value, (int, float)) else value
        self.counts[key] = self.counts.get(key, 0) + 1
        self.first.setdefault(key, value)

    def finalize(self) -> object:
        if not self.counts:
            return None
        best = max(self.counts.values())
        for key, count in self.counts.items():
            if count == best:
                return self.first[key]
        return None  # pragma: no cover
