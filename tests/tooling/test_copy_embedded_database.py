"""`workshop.db.copy_embedded_database`: the benchmarks and the golden-pool script work on a consistent private
copy, never on the learner's own file, and say what to run when there is no database yet."""
from __future__ import annotations

import pytest

from workshop import db
from workshop.embedded import connect


def test_a_missing_database_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "missing.db"))
    with pytest.raises(FileNotFoundError, match="python -m workshop.setup"):
        db.copy_embedded_database(tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()


def test_the_copy_holds_committed_rows_and_writes_to_it_leave_the_source_alone(tmp_path, monkeypatch):
    source = tmp_path / "workshop.db"
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(source))
    conn = connect(source)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE notes (id NUMBER PRIMARY KEY, body VARCHAR2(20))")
        cur.execute("INSERT INTO notes VALUES (1, 'kept')")
    conn.commit()
    copy = db.copy_embedded_database(tmp_path / "copy.db")
    other = connect(copy)
    with other.cursor() as cur:
        assert cur.execute("SELECT body FROM notes").fetchall() == [("kept",)]
        cur.execute("INSERT INTO notes VALUES (2, 'copy only')")
    other.commit()
    other.close()
    with conn.cursor() as cur:
        assert cur.execute("SELECT COUNT(*) FROM notes").fetchall() == [(1,)]
    conn.close()
