"""The FINANCE demo schema of part 04 (a fictitious bank with an AML function): table definitions with
their dictionary comments, a seeded generator pinned by MANIFEST.json, and the set-up step that builds it.

    from workshop.data.finance import FINANCE_TABLES, generate, ensure_finance
"""
from .generator import COUNTS, FinanceDataError, digest, generate, verify
from .install import ensure_finance, expected_finance_counts, finance_counts
from .tables import FINANCE_TABLES, SCHEMA_NAME, SURPRISING_COLUMNS, TABLE_PREFIX, logical_name

__all__ = ["COUNTS", "FINANCE_TABLES", "FinanceDataError", "SCHEMA_NAME", "SURPRISING_COLUMNS", "TABLE_PREFIX",
           "digest", "ensure_finance", "expected_finance_counts", "finance_counts", "generate", "logical_name",
           "verify"]
