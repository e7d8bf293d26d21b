"""The Oracle container's start-up script (.devcontainer/oracle/startdb/01_workshop_user.sh), run here against
a scripted `sqlplus` on PATH: each branch of the vector-pool logic (already sized, dynamic resize, SPFILE and
restart, still too small), the user and grant block, and the refusals of bad settings. The script must never
exit non-zero (that would stop the database container)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.oracle.test_devcontainer_sync import STARTDB

FAKE_SQLPLUS = r"""#!/bin/bash
# scripted sqlplus: logs each session's input; pool queries answer from $FAKE_STATE/pool (one value a line)
input="$(cat)"
printf '%s\n=====\n' "$input" >> "$FAKE_STATE/log"
case "$input" in
  *'v$vector_memory_pool'*)
    value="$(head -n 1 "$FAKE_STATE/pool")"; sed -i 1d "$FAKE_STATE/pool"; echo "   ${value}"; exit 0;;
  *'SCOPE=BOTH'*) exit "${FAKE_BOTH_RC:-0}";;
esac
exit 0
"""


def run_script(tmp_path: Path, pool: list[str], *, both_rc: int = 0, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir(exist_ok=True)
    state.mkdir(exist_ok=True)
    fake = bin_dir / "sqlplus"
    fake.write_text(FAKE_SQLPLUS)
    fake.chmod(0o755)
    (state / "pool").write_text("".join(f"{v}\n" for v in pool))
    (state / "log").write_text("")
    environment = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_STATE": str(state),
                   "FAKE_BOTH_RC": str(both_rc), "WORKSHOP_USER": "WORKSHOP", "WORKSHOP_PASSWORD": "Secret_26ai",
                   "WORKSHOP_VECTOR_POOL_MB": "512", **env}
    done = subprocess.run(["bash", str(STARTDB)], env=environment, capture_output=True, text=True, timeout=60)
    sessions = [s.strip() for s in (state / "log").read_text().split("=====") if s.strip()]
    return done, sessions


def test_an_already_sized_pool_is_left_alone(tmp_path):
    done, sessions = run_script(tmp_path, ["512"])
    assert done.returncode == 0
    assert len(sessions) == 2                                # the user block, one pool read
    assert "ALTER SYSTEM" not in "\n".join(sessions)
    assert "vector memory pool in effect: 512 MB" in done.stdout


def test_the_user_block_creates_resets_and_grants(tmp_path):
    done, sessions = run_script(tmp_path, ["600"])
    user_block = sessions[0]
    assert "ALTER SESSION SET CONTAINER = FREEPDB1;" in user_block
    assert 'CREATE USER WORKSHOP IDENTIFIED BY "Secret_26ai" DEFAULT TABLESPACE USERS' in user_block
    assert 'ALTER USER WORKSHOP IDENTIFIED BY "Secret_26ai" ACCOUNT UNLOCK;' in user_block
    assert "GRANT SELECT ON SYS.V_$VECTOR_MEMORY_POOL TO WORKSHOP;" in user_block
    assert "GRANT CREATE MINING MODEL TO WORKSHOP;" in user_block and "${" not in user_block


def test_an_empty_pool_is_resized_dynamically_and_read_back(tmp_path):
    done, sessions = run_script(tmp_path, ["0", "512"])
    assert done.returncode == 0
    assert any("ALTER SYSTEM SET vector_memory_size = 512M SCOPE=BOTH;" in s for s in sessions)
    assert not any("SHUTDOWN" in s for s in sessions)
    assert "vector memory pool in effect: 512 MB" in done.stdout


def test_a_refused_dynamic_resize_goes_through_the_spfile_and_a_restart(tmp_path):
    done, sessions = run_script(tmp_path, ["0", "512"], both_rc=1)
    restart = next(s for s in sessions if "SCOPE=SPFILE" in s)
    assert restart.index("SCOPE=SPFILE") < restart.index("SHUTDOWN IMMEDIATE;") < restart.index("STARTUP;")
    assert "ALTER PLUGGABLE DATABASE ALL OPEN;" in restart
    assert done.returncode == 0 and "restarting the database" in done.stdout
    assert "in effect: 512 MB" in done.stdout


def test_a_pool_still_too_small_is_reported_but_never_stops_the_container(tmp_path):
    done, _ = run_script(tmp_path, ["0", "0"], both_rc=1)
    assert done.returncode == 0
    assert "WARNING: vector memory pool is 0 MB" in done.stdout and "ORA-51962" in done.stdout


def test_granule_rounding_counts_as_in_effect(tmp_path):
    done, sessions = run_script(tmp_path, ["500"])
    assert "ALTER SYSTEM" not in "\n".join(sessions) and "in effect: 500 MB" in done.stdout


@pytest.mark.parametrize("env, message", [
    ({"WORKSHOP_PASSWORD": ""}, "WORKSHOP_PASSWORD is empty"),
    ({"WORKSHOP_PASSWORD": 'a"b'}, "contains a double quote"),
    ({"WORKSHOP_USER": "work shop; DROP"}, "plain identifier"),
    ({"WORKSHOP_VECTOR_POOL_MB": "lots"}, "number of MB"),
])
def test_bad_settings_are_refused_before_any_sql(tmp_path, env, message):
    done, sessions = run_script(tmp_path, [], **env)
    assert done.returncode == 0 and message in done.stdout and sessions == []


def test_an_unreadable_pool_leaves_the_parameter_alone(tmp_path):
    done, sessions = run_script(tmp_path, ["ORA-00942:"])
    assert done.returncode == 0 and "could not read" in done.stdout
    assert "ALTER SYSTEM" not in "\n".join(sessions)


# --------------------------------------------------------------------------- the read-only user (issue 20, H1)
READONLY = {"WORKSHOP_READONLY_USER": "WORKSHOP_RO", "WORKSHOP_READONLY_PASSWORD": "Ro_Secret_26ai"}


def test_the_read_only_user_is_created_reset_given_create_session_only_and_marked_read_only(tmp_path):
    done, sessions = run_script(tmp_path, ["600"], **READONLY)
    assert done.returncode == 0
    block = next(s for s in sessions if "WORKSHOP_RO" in s)
    assert "ALTER SESSION SET CONTAINER = FREEPDB1;" in block
    assert "CREATE USER WORKSHOP_RO IDENTIFIED BY \"Ro_Secret_26ai\"'" in block
    assert 'ALTER USER WORKSHOP_RO IDENTIFIED BY "Ro_Secret_26ai" ACCOUNT UNLOCK;' in block
    assert "GRANT CREATE SESSION TO WORKSHOP_RO;" in block and "ALTER USER WORKSHOP_RO READ ONLY;" in block
    assert [line for line in block.splitlines() if line.startswith("GRANT")] == ["GRANT CREATE SESSION TO WORKSHOP_RO;"]
    assert "WORKSHOP_RO" not in sessions[0]                   # the workshop user's block names no reader


@pytest.mark.parametrize("env, created", [
    ({}, False),                                                                  # not configured: nothing
    ({**READONLY, "WORKSHOP_READONLY_PASSWORD": ""}, False),                     # no password
    ({**READONLY, "WORKSHOP_READONLY_PASSWORD": 'a"b'}, False),                  # would break the quoting
    ({**READONLY, "WORKSHOP_READONLY_USER": "ro; DROP USER x"}, False),          # not an identifier
    ({**READONLY, "WORKSHOP_READONLY_USER": "workshop"}, False),                 # the owner itself
    (READONLY, True),
], ids=["unset", "no-password", "quote-in-password", "not-an-identifier", "same-as-owner", "valid"])
def test_read_only_settings_are_checked_and_never_stop_the_container(tmp_path, env, created):
    done, sessions = run_script(tmp_path, ["600"], **env)
    assert done.returncode == 0
    assert any("READ ONLY;" in s for s in sessions) is created
    assert ("no read-only user was created" in done.stdout) is (bool(env) and not created)
    assert "GRANT CREATE MINING MODEL TO WORKSHOP;" in sessions[0]     # the workshop user is set up either way
