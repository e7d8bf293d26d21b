"""Approval replays, expiry and concurrent consumers (issue 19, claim: approval expiry is decided by the database
clock in the compare-and-set, never by the client's time zone; an approval is consumed once, also with
consumers in several processes).

Expiry: the request stores SYS_EXTRACT_UTC(SYSTIMESTAMP) + ttl and the UPDATE compares with
SYS_EXTRACT_UTC(SYSTIMESTAMP). The old pair (SYSTIMESTAMP + ttl into a TIMESTAMP, compared with SYSTIMESTAMP)
converts the stored value in the session's time zone: a consumer at UTC+14 found a fresh approval expired, one at
UTC-8 found an expired one still valid. Consumers run in forked processes with their own TZ, on one database file.
"""
from __future__ import annotations

import multiprocessing
import os
import time
import uuid

import pytest

from tests.security.harness_support import pair, small_db  # noqa: F401 - fixtures
from workshop.harness import approvals
from workshop.harness.approvals import consume_approval, digest

ARGS = {"case_ref": "AC-1"}
FORK = multiprocessing.get_context("fork")


def _approval(conn, *, status="approved", actor="ana", ttl=900, tool="close_case", arguments=ARGS,
              stored_now="SYS_EXTRACT_UTC(SYSTIMESTAMP)") -> tuple[str, str]:
    run_id, approval_id = "run-" + uuid.uuid4().hex[:12], "ap-" + uuid.uuid4().hex[:12]
    with conn.cursor() as cur:
        cur.execute("INSERT INTO agent_approvals (approval_id, run_id, tool, args_digest, status, actor, expires_at) "
                    f"VALUES (:a, :r, :t, :d, :s, :actor, {stored_now} + NUMTODSINTERVAL(:ttl, 'SECOND'))",
                    a=approval_id, r=run_id, t=tool, d=digest(tool, arguments), s=status, actor=actor, ttl=ttl)
    conn.commit()
    return approval_id, run_id


#: (id, how the approval was made, how the consumer presents it) -> must not consume
REPLAYS = [
    ("other-arguments", {}, {"arguments": {"case_ref": "AC-2"}}),
    ("arguments-as-list", {}, {"arguments": {"case_ref": ["AC-1"]}}),
    ("extra-argument", {}, {"arguments": {"case_ref": "AC-1", "force": True}}),
    ("other-actor", {}, {"actor": "mallory"}),
    ("actor-case-variant", {}, {"actor": "ANA"}),
    ("actor-empty", {}, {"actor": ""}),
    ("actor-none", {}, {"actor": None}),
    ("other-run", {}, {"run_id": "run-other"}),
    ("other-tool", {}, {"tool": "reopen_case"}),
    ("pending", {"status": "pending", "actor": None}, {}),
    ("rejected", {"status": "rejected"}, {}),
    ("already-consumed", {"status": "consumed"}, {}),
    ("expired", {"ttl": -1}, {}),
    ("unknown-id", {}, {"approval_id": "ap-nobody"}),
]


@pytest.mark.parametrize("made, presented", [(m, p) for _, m, p in REPLAYS], ids=[i for i, *_ in REPLAYS])
def test_a_replayed_or_moved_approval_consumes_nothing(pair, made, presented):
    rw, _ = pair
    approval_id, run_id = _approval(rw, **made)
    call = {"approval_id": approval_id, "run_id": run_id, "tool": "close_case", "arguments": ARGS, "actor": "ana"}
    call.update(presented)
    assert consume_approval(rw, call["approval_id"], call["run_id"], call["tool"], call["arguments"],
                            call["actor"]) is False
    assert approvals.approval_status(rw, approval_id) == made.get("status", "approved")


def test_an_approval_is_consumed_once_and_argument_order_does_not_matter(pair):
    rw, _ = pair
    args = {"case_ref": "AC-1", "note": "n"}
    approval_id, run_id = _approval(rw, arguments=args)
    assert consume_approval(rw, approval_id, run_id, "close_case", {"note": "n", "case_ref": "AC-1"}, "ana") is True
    assert consume_approval(rw, approval_id, run_id, "close_case", args, "ana") is False


def _consume_in_zone(path: str, zone: str, approval_id: str, run_id: str, sql: str | None, out) -> None:
    os.environ["TZ"] = zone
    time.tzset()
    from workshop.embedded import connect
    conn = connect(path)
    if sql is None:
        out.put(consume_approval(conn, approval_id, run_id, "close_case", ARGS, "ana"))
    else:
        with conn.cursor() as cur:
            cur.execute(sql, a=approval_id)
            out.put(cur.rowcount == 1)
        conn.commit()
    conn.close()


def _in_zone(small_db, zone, approval_id, run_id, sql=None) -> bool:
    out = FORK.Queue()
    process = FORK.Process(target=_consume_in_zone, args=(str(small_db), zone, approval_id, run_id, sql, out))
    process.start()
    result = out.get(timeout=120)
    process.join(60)
    return result


#: (id, consumer's time zone, ttl in seconds, may it consume)
ZONES = [
    ("utc-fresh", "UTC", 900, True),
    ("kiritimati-fresh", "Pacific/Kiritimati", 900, True),           # UTC+14
    ("los-angeles-fresh", "America/Los_Angeles", 900, True),         # UTC-8
    ("kathmandu-fresh", "Asia/Kathmandu", 900, True),                # UTC+5:45
    ("utc-expired", "UTC", -60, False),
    ("los-angeles-expired", "America/Los_Angeles", -60, False),
    ("baker-island-expired-an-hour-ago", "Etc/GMT+12", -3600, False),  # UTC-12
]


@pytest.mark.parametrize("zone, ttl, allowed", [(z, t, a) for _, z, t, a in ZONES], ids=[i for i, *_ in ZONES])
def test_expiry_is_the_database_clock_whatever_the_consumer_s_time_zone(pair, small_db, zone, ttl, allowed):
    rw, _ = pair
    approval_id, run_id = _approval(rw, ttl=ttl)             # requested here (the test process: TZ as it is)
    assert _in_zone(small_db, zone, approval_id, run_id) is allowed


@pytest.mark.parametrize("zone, ttl, wrong", [("Pacific/Kiritimati", 900, False), ("America/Los_Angeles", -60, True)],
                         ids=["fresh-seen-expired-at-utc+14", "expired-seen-valid-at-utc-8"])
def test_the_old_comparison_depended_on_the_consumer_s_time_zone(pair, small_db, zone, ttl, wrong):
    """Without the fix: SYSTIMESTAMP + ttl stored in a TIMESTAMP, compared with SYSTIMESTAMP, requested at UTC."""
    rw, _ = pair
    os.environ["TZ"], previous = "UTC", os.environ.get("TZ")
    time.tzset()
    try:
        approval_id, run_id = _approval(rw, ttl=ttl, stored_now="SYSTIMESTAMP")
    finally:
        if previous is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = previous
        time.tzset()
    old = ("UPDATE agent_approvals SET status = 'consumed' WHERE approval_id = :a AND status = 'approved' "
           "AND expires_at > SYSTIMESTAMP")
    assert _in_zone(small_db, zone, approval_id, run_id, old) is wrong


def _race(path: str, approval_id: str, run_id: str, barrier, out) -> None:
    from workshop.embedded import connect
    conn = connect(path, busy_timeout=30)
    barrier.wait(60)
    out.put(consume_approval(conn, approval_id, run_id, "close_case", ARGS, "ana"))
    conn.close()


@pytest.mark.parametrize("consumers", [2, 6], ids=["two-processes", "six-processes"])
def test_concurrent_consumers_in_several_processes_consume_it_once(pair, small_db, consumers):
    rw, _ = pair
    approval_id, run_id = _approval(rw)
    barrier, out = FORK.Barrier(consumers), FORK.Queue()
    processes = [FORK.Process(target=_race, args=(str(small_db), approval_id, run_id, barrier, out))
                 for _ in range(consumers)]
    for process in processes:
        process.start()
    results = [out.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(60)
    assert sorted(results) == [False] * (consumers - 1) + [True]
    assert approvals.approval_status(rw, approval_id) == "consumed"
