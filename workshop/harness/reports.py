"""Governed report tools over the FINANCE schema: "the agent does not write SQL".

Each report is a trusted analyst query published as a tool: fixed SQL text with bind variables, typed
inputs validated before any SQL runs, and a deterministic ORDER BY (ties broken by the key), so the same
question follows the same path every time. The agent is only clever enough to pick the right report.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import oracledb

_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def month(value: Any) -> str:
    if not isinstance(value, str) or not _MONTH.fullmatch(value):
        raise ValueError(f"month must be 'YYYY-MM', not {value!r}")
    return value


def bounded_int(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"expected an integer from {low} to {high}, not {value!r}")
        return value
    check.__name__ = f"int[{low}..{high}]"
    return check


@dataclass(frozen=True)
class ReportTool:
    """A governed tool: name, description, typed parameters (validators) and one fixed statement."""
    name: str
    description: str
    parameters: dict[str, Callable[[Any], Any]]
    sql: str
    descriptions: dict[str, str] = field(default_factory=dict)

    def validate(self, arguments: dict) -> dict:
        """The validated binds; ValueError before any SQL runs for unknown, missing or ill-typed inputs."""
        if not isinstance(arguments, dict):
            raise ValueError(f"{self.name}: arguments must be a dict")
        unknown, missing = set(arguments) - set(self.parameters), set(self.parameters) - set(arguments)
        if unknown or missing:
            raise ValueError(f"{self.name}: unknown arguments {sorted(unknown)}, missing {sorted(missing)}")
        return {name: check(arguments[name]) for name, check in self.parameters.items()}

    def run(self, conn: oracledb.Connection, **arguments: Any) -> list[dict]:
        binds = self.validate(arguments)
        with conn.cursor() as cur:
            cur.execute(self.sql, binds)
            names = [d[0].lower() for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]

    def schema(self) -> dict:
        """The OpenAI/MCP-style tool schema (what a model or an MCP client is shown)."""
        props = {n: {"type": "string" if check is month else "integer",
                     "description": self.descriptions.get(n, check.__name__)} for n, check in self.parameters.items()}
        return {"name": self.name, "description": self.description,
                "inputSchema": {"type": "object", "properties": props, "required": list(props),
                                "additionalProperties": False}}


TRANSACTIONS_BY_MERCHANT = ReportTool(
    "transactions_by_merchant",
    "Card and account transactions of one month at or above an amount, totalled per merchant.",
    {"month": month, "min_amount_cents": bounded_int(0, 10**12)},
    """SELECT m.merchant_id, m.name AS merchant, COUNT(*) AS txns, SUM(t.amount_cents) AS total_cents
FROM finance_transactions t JOIN finance_merchants m ON m.merchant_id = t.merchant_id
WHERE t.txn_ts >= TO_TIMESTAMP(:month || '-01', 'YYYY-MM-DD')
  AND t.txn_ts < ADD_MONTHS(TO_TIMESTAMP(:month || '-01', 'YYYY-MM-DD'), 1)
  AND t.amount_cents >= :min_amount_cents
GROUP BY m.merchant_id, m.name
ORDER BY total_cents DESC, m.merchant_id""",
    {"month": "calendar month, 'YYYY-MM'", "min_amount_cents": "smallest amount in integer cents"})

LOANS_ABOVE_RATE = ReportTool(
    "loans_above_rate",
    "Loans whose interest rate is above a threshold in basis points (450 = 4.50 %).",
    {"rate_bp": bounded_int(0, 10000)},
    """SELECT l.loan_id, l.customer_id, l.product, l.rate_bp, l.status
FROM finance_loans l
WHERE l.rate_bp > :rate_bp
ORDER BY l.rate_bp DESC, l.loan_id""",
    {"rate_bp": "threshold in basis points, 0..10000"})

HIGH_RISK_CUSTOMERS = ReportTool(
    "high_risk_customers",
    "Customers at or above an AML risk rating (70 and above needs enhanced due diligence).",
    {"min_rating": bounded_int(1, 100)},
    """SELECT c.customer_id, c.full_name, c.customer_type, c.risk_rating, c.pep_flag
FROM finance_customers c
WHERE c.risk_rating >= :min_rating
ORDER BY c.risk_rating DESC, c.customer_id""",
    {"min_rating": "AML risk rating, 1..100"})

REPORTS = (TRANSACTIONS_BY_MERCHANT, LOANS_ABOVE_RATE, HIGH_RISK_CUSTOMERS)


def report_tools() -> dict[str, ReportTool]:
    return {r.name: r for r in REPORTS}
