"""Embedded Oracle-subset SQL engine on stdlib sqlite3."""
