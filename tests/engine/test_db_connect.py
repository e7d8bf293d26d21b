"""workshop.db.connect(): engine selection and the Oracle path's retry and advice (no network needed)."""
import oracledb
from oracledb import errors as _oracle_errors
import pytest

from workshop import db
from workshop.embedded import EmbeddedConnection


def _error(code=0, message="ORA-12541: TNS:no listener"):
    return oracledb.DatabaseError(_oracle_errors._Error(message=message, code=code))


def test_embedded_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "x" / "w.db"))
    conn = db.connect()
    assert isinstance(conn, EmbeddedConnection) and isinstance(conn, oracledb.Connection)
    assert tuple(int(p) for p in conn.version.split(".")) >= (23, 4)
    assert (tmp_path / "x" / "w.db").exists()
    assert db.engine_name() == "embedded"
    conn.close()


def test_oracle_requires_credentials(monkeypatch):
    monkeypatch.setenv("ORACLE_DSN", "localhost:1521/FREEPDB1")
    monkeypatch.delenv("ORACLE_USER", raising=False)
    with pytest.raises(RuntimeError, match="ORACLE_USER"):
        db.connect()


def test_retries_transient_errors_with_backoff_then_succeeds():
    sleeps, calls = [], []

    def opener(**kwargs):
        calls.append(kwargs)
        if len(calls) < 3:
            raise _error(12541)
        return "connection"

    settings = db.OracleSettings("h:1521/S", "u", "p")
    assert db.connect_oracle(settings, retries=5, first_delay=1, sleep=sleeps.append, opener=opener) == "connection"
    assert sleeps == [1, 2] and calls[0] == {"user": "u", "password": "p", "dsn": "h:1521/S"}


def test_gives_up_with_actionable_message():
    sleeps = []

    def opener(**kwargs):
        raise _error(1033, "ORA-01033: ORACLE initialization or shutdown in progress")

    with pytest.raises(ConnectionError, match="still starting"):
        db.connect_oracle(db.OracleSettings("h/S", "u", "p"), retries=3, sleep=sleeps.append, opener=opener)
    assert len(sleeps) == 2


def test_wrong_password_fails_at_once():
    calls = []

    def opener(**kwargs):
        calls.append(1)
        raise _error(1017, "ORA-01017: invalid credential or not authorized; logon denied")

    with pytest.raises(ConnectionError, match="ORACLE_PASSWORD"):
        db.connect_oracle(db.OracleSettings("h/S", "u", "bad"), retries=5, sleep=lambda s: None, opener=opener)
    assert calls == [1]
