"""The FINANCE demo schema of part 04: fifteen tables of a fictitious retail bank with an AML
(anti-money-laundering) function, documented in the data dictionary with COMMENT ON TABLE/COLUMN.

One schema, both engines: the embedded engine has a single schema (WORKSHOP) and the set-up runs as
one user on Oracle too, so the logical schema FINANCE is the table-name prefix `FINANCE_`
(FINANCE_LOANS is the LOANS table of FINANCE). Facts about it name the logical schema:
`FINANCE.LOANS.RATE_BP` (see workshop.knowledge.scan).

Two columns are deliberately surprising, the facts a senior engineer remembers and a language model
guesses wrong: FINANCE_TRANSACTIONS.AMOUNT_CENTS (integer cents, not currency units) and
FINANCE_LOANS.RATE_BP (basis points, not a percentage).
"""
from __future__ import annotations

import json
from pathlib import Path

from workshop.schema import Column, Table

#: The logical schema name and the table-name prefix that stands for it in the one real schema.
SCHEMA_NAME = "FINANCE"
TABLE_PREFIX = "FINANCE_"

#: The definitions, as data: per table its name without the prefix, comment, primary key, foreign keys
#: ({column, parent table, parent column}) and columns ({name, type, comment[, inline constraint]}).
DEFINITIONS = Path(__file__).with_name("tables.json")


def _pk(table: str, columns: list[str]) -> str:
    return f"CONSTRAINT {TABLE_PREFIX.lower()}{table.lower()}_pk PRIMARY KEY ({', '.join(columns)})"


def _fk(table: str, column: str, parent: str, parent_column: str) -> str:
    return (f"CONSTRAINT {TABLE_PREFIX.lower()}{table.lower()}_{column.lower()}_fk FOREIGN KEY ({column}) "
            f"REFERENCES {TABLE_PREFIX.lower()}{parent.lower()} ({parent_column})")


def _table(definition: dict) -> Table:
    """One table of tables.json: the prefixed name, the columns, then the primary key and foreign keys."""
    name = definition["name"]
    columns = tuple(Column(c["name"], c["type"], c["comment"], c.get("constraint", ""))
                    for c in definition["columns"])
    constraints = (_pk(name, definition["primary_key"]),
                   *(_fk(name, fk["column"], fk["parent"], fk["parent_column"]) for fk in definition["foreign_keys"]))
    return Table(TABLE_PREFIX + name, definition["comment"], columns, constraints)


#: Creation order (parents before children, the order of tables.json); dropped in reverse.
FINANCE_TABLES: tuple[Table, ...] = tuple(_table(d) for d in json.loads(DEFINITIONS.read_text(encoding="utf-8")))

#: The two columns the lesson is about (table without prefix, column).
SURPRISING_COLUMNS = (("TRANSACTIONS", "AMOUNT_CENTS"), ("LOANS", "RATE_BP"))


def logical_name(table_name: str) -> str:
    """FINANCE_LOANS -> LOANS (the name inside the logical FINANCE schema)."""
    name = table_name.upper()
    if not name.startswith(TABLE_PREFIX):
        raise ValueError(f"{table_name} is not a FINANCE table (no {TABLE_PREFIX} prefix)")
    return name[len(TABLE_PREFIX):]
