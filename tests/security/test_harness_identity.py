"""Identity races (issue 19, claim: two tools bound to different tenants cannot see each other's rows, even from
two threads on one session).

`open_cases_tool(conn, tenant)` sets the session's tenant and then runs its report. Two such tools on one session,
called from two threads, interleave: thread A sets acme, thread B sets initech, thread A's query then runs as
initech. `identity.as_tenant` holds the session's lock from set_tenant to the end of the statement. The rows
below are the interleavings; the widened race (set_tenant slowed down) makes a lost race certain instead of
likely, and shows the lock is what holds.
"""
from __future__ import annotations

import threading
import time

import pytest

from tests.security.harness_support import pair, small_db  # noqa: F401 - fixtures
from workshop.harness import identity
from workshop.harness.approvals import close_case_tool
from workshop.harness.identity import CASES, open_cases_tool
from workshop.pipeline import security

OWN = {t: sorted(c[1] for c in CASES if c[0] == t and c[3] == "open") for t in ("acme", "initech")}


def _hammer(tools: dict, rounds: int) -> dict[str, set]:
    """Call each tenant's tool from its own thread `rounds` times; every case reference each one saw."""
    seen: dict[str, set] = {t: set() for t in tools}
    errors: list[BaseException] = []
    start = threading.Barrier(len(tools))

    def work(tenant: str) -> None:
        try:
            start.wait()
            for _ in range(rounds):
                seen[tenant].update(r["case_ref"] for r in tools[tenant](limit=50))
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
    threads = [threading.Thread(target=work, args=(t,)) for t in tools]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return seen


@pytest.fixture
def slow_set_tenant(monkeypatch):
    """set_tenant that yields the processor right after binding: the other thread runs in that gap."""
    original = security.set_tenant

    def slow(conn, tenant):
        original(conn, tenant)
        time.sleep(0.002)
    monkeypatch.setattr(security, "set_tenant", slow)


@pytest.mark.parametrize("rounds", [1, 25], ids=["one-call-each", "25-calls-each"])
def test_two_tenants_on_one_session_from_two_threads_see_only_their_rows(pair, slow_set_tenant, rounds):
    _, ro = pair
    tools = {t: open_cases_tool(ro, t) for t in OWN}
    seen = _hammer(tools, rounds)
    assert {t: sorted(refs) for t, refs in seen.items()} == OWN


def test_without_the_session_lock_the_race_is_lost(pair, slow_set_tenant, monkeypatch):
    """The fix fails without it: a lock that does not lock lets one tenant's query run under the other."""
    class NoLock:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False
    monkeypatch.setattr(identity, "session_lock", lambda conn: NoLock())
    _, ro = pair
    seen = _hammer({t: open_cases_tool(ro, t) for t in OWN}, 25)
    assert {t: sorted(refs) for t, refs in seen.items()} != OWN


def test_a_write_tool_and_a_read_tool_of_different_tenants_share_a_session_safely(pair, slow_set_tenant):
    """close_case (acme) and open_cases (initech) on one session from two threads: the close touches only acme's
    case, and initech never sees an acme row."""
    rw, _ = pair
    identity.create_case_table(rw)                    # the cases again, all open as seeded
    close = close_case_tool(rw, "acme")
    read = open_cases_tool(rw, "initech")
    seen: set = set()
    errors: list[BaseException] = []

    def reader():
        try:
            for _ in range(20):
                seen.update(r["case_ref"] for r in read(limit=50))
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
    thread = threading.Thread(target=reader)
    thread.start()
    close("AC-2")
    thread.join(60)
    assert not errors and seen == set(OWN["initech"])
    security.set_tenant(rw, "acme")
    with rw.cursor() as cur:
        cur.execute("SELECT case_ref, status FROM agent_cases ORDER BY case_ref")
        assert dict(cur.fetchall())["AC-2"] == "closed"
    identity.create_case_table(rw)


def test_the_tool_leaves_the_session_as_it_found_it(pair):
    _, ro = pair
    security.set_tenant(ro, "initech")
    open_cases_tool(ro, "acme")(limit=5)
    assert security.current_tenant(ro) == "initech"


@pytest.mark.parametrize("tenant", [None, "", 7], ids=["none", "empty", "int"])
def test_a_tool_without_a_verified_tenant_is_refused(pair, tenant):
    _, ro = pair
    with pytest.raises(ValueError):
        open_cases_tool(ro, tenant)
