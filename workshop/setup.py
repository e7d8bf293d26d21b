"""`python -m workshop.setup`: prepare the database the notebooks use, idempotently.

Today it opens the configured engine (creating the embedded database file if needed) and prints
which engine answered; later parts add the schema, the models and the data.
"""
from __future__ import annotations

import argparse
import sys

from . import config, db


def describe_engine(conn) -> str:
    cur = conn.cursor()
    cur.execute("SELECT banner FROM v$version")
    banner = cur.fetchone()[0]
    where = config.embedded_db_path() if db.engine_name() == "embedded" else config.oracle_dsn()
    return f"engine: {db.engine_name()} | {banner} | {where}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reset", action="store_true", help="delete the embedded database file first")
    args = parser.parse_args(argv)
    if args.reset and db.engine_name() == "embedded" and config.embedded_db_path().exists():
        for suffix in ("", "-wal", "-shm"):
            path = config.embedded_db_path().with_name(config.embedded_db_path().name + suffix)
            path.unlink(missing_ok=True)
    conn = db.connect()
    try:
        print(describe_engine(conn))
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
