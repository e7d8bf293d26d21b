"""The verifier: a claim counts only when authoritative state says so (read back, never the narration)."""
from __future__ import annotations

import oracledb


def finding_saved(conn: oracledb.Connection, run_id: str, case_ref: str) -> bool:
    """True when AGENT_FINDINGS holds the finding this run claims to have saved (committed, seen by `conn`)."""
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_findings WHERE run_id = :r AND case_ref = :c", r=run_id, c=case_ref)
        return cur.fetchone()[0] == 1
