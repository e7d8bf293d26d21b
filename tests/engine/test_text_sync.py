"""Index maintenance of the embedded Oracle Text: DDL, sync modes, several connections and processes."""
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from workshop.embedded.text import (TextIndexError, create_text_index, drop_indexes_for_table, drop_text_index,
                                    list_text_indexes, on_commit, pending_count, search, sync_index,
                                    text_index_for)

ROOT = Path(__file__).resolve().parents[2]


def connect(path):
    c = sqlite3.connect(path, timeout=10)
    c.execute("PRAGMA journal_mode=WAL")
    return c


def commit(c):
    """What the engine does on COMMIT: on_commit, then the SQLite commit."""
    on_commit(c)
    c.commit()


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "text.db"
    c = connect(path)
    c.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    c.executemany("INSERT INTO notes (body) VALUES (?)", [("alpha beta",), ("beta gamma",)])
    c.commit()
    c.close()
    return path


def ids(c, query, index="notes_txt"):
    return set(search(c, index, query))


@pytest.mark.parametrize("parameters, mode", [
    (None, "AUTO"), ("SYNC (ON COMMIT)", "ON COMMIT"), ('SYNC (EVERY "SYSDATE+1/1440")', "EVERY"),
    ("SYNC (MANUAL)", "MANUAL"), ("MAINTENANCE MANUAL", "MANUAL"),
])
def test_sync_mode_is_recorded(db, parameters, mode):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body", parameters=parameters)
    info = text_index_for(c, "NOTES", "Body")
    assert info.sync_mode == mode and info.index_name == "notes_txt" and info.kind == "CONTEXT"


def test_creation_indexes_existing_rows(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body", parameters="SYNC (MANUAL)")
    assert ids(c, "beta") == {1, 2}


@pytest.mark.parametrize("parameters", [None, "SYNC (ON COMMIT)"])
def test_committed_rows_are_visible_to_every_connection(db, parameters):
    a, b = connect(db), connect(db)
    create_text_index(a, "notes_txt", "notes", "body", kind="SEARCH", parameters=parameters)
    a.commit()
    assert ids(b, "delta") == set()                  # warms b's cache
    a.execute("INSERT INTO notes (body) VALUES ('delta epsilon')")
    assert ids(a, "delta") == set()                  # not indexed before the commit
    commit(a)
    assert ids(a, "delta") == {3}
    assert ids(b, "delta") == {3}
    assert pending_count(a, text_index_for(a, "notes", "body")) == 0


def test_manual_index_waits_for_sync_index(db):
    a, b = connect(db), connect(db)
    create_text_index(a, "notes_txt", "notes", "body", parameters="SYNC (MANUAL)")
    a.commit()
    a.execute("INSERT INTO notes (body) VALUES ('delta')")
    a.execute("UPDATE notes SET body = 'omega' WHERE id = 1")
    commit(a)
    assert ids(b, "delta") == set() and ids(b, "omega") == set() and ids(b, "alpha") == {1}
    assert pending_count(b, text_index_for(b, "notes", "body")) == 2
    assert sync_index(b, "notes_txt") == 2
    assert ids(a, "delta") == {3} and ids(a, "omega") == {1} and ids(a, "alpha") == set()


def test_deleted_rows_stay_in_a_manual_index_until_sync(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body", parameters="SYNC (MANUAL)")
    c.execute("DELETE FROM notes WHERE id = 2")
    commit(c)
    assert ids(c, "gamma") == {2}                    # stale rowid: the engine's join drops it
    sync_index(c, "notes_txt")
    assert ids(c, "gamma") == set()
    assert ids(c, "beta") == {1}


def test_updates_and_deletes_with_on_commit(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body", parameters="SYNC (ON COMMIT)")
    c.execute("UPDATE notes SET body = 'zeta' WHERE id = 1")
    c.execute("DELETE FROM notes WHERE id = 2")
    commit(c)
    assert ids(c, "beta") == set() and ids(c, "zeta") == {1}
    vocab = {r[0] for r in c.execute('SELECT token FROM "DR$notes_txt$V"')}
    assert vocab == {"zeta"}


def test_scores_use_the_current_document_count(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body")
    c.commit()
    before = search(c, "notes_txt", "alpha")[1]
    c.executemany("INSERT INTO notes (body) VALUES (?)", [("filler text",)] * 98)
    commit(c)
    assert search(c, "notes_txt", "alpha")[1] > before   # 1 of 100 documents is rarer than 1 of 2


def test_rollback_leaves_index_and_caches_consistent(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body")
    c.commit()
    assert ids(c, "beta") == {1, 2}
    c.execute("INSERT INTO notes (body) VALUES ('beta delta')")
    on_commit(c)
    assert ids(c, "beta") == {1, 2, 3}               # the transaction sees its own index changes
    c.rollback()
    assert ids(c, "beta") == {1, 2}
    assert ids(c, "delta") == set()


def test_writer_that_skips_on_commit_is_caught_up_by_the_next_search(db):
    a = connect(db)
    create_text_index(a, "notes_txt", "notes", "body")
    a.commit()
    raw = connect(db)
    raw.execute("INSERT INTO notes (body) VALUES ('delta')")
    raw.commit()                                      # no on_commit: a plain SQLite writer
    assert ids(a, "delta") == {3}                     # automatic maintenance indexes it


def test_manual_index_is_not_caught_up(db):
    a = connect(db)
    create_text_index(a, "notes_txt", "notes", "body", parameters="SYNC (MANUAL)")
    a.commit()
    raw = connect(db)
    raw.execute("INSERT INTO notes (body) VALUES ('delta')")
    raw.commit()
    assert ids(a, "delta") == set()


def test_another_process_sees_and_feeds_the_same_index(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body", parameters="SYNC (ON COMMIT)")
    c.commit()
    assert ids(c, "delta") == set()
    script = (
        "import sqlite3, sys\n"
        "from workshop.embedded.text import on_commit, search\n"
        "c = sqlite3.connect(sys.argv[1], timeout=10)\n"
        "assert set(search(c, 'notes_txt', 'beta')) == {1, 2}\n"
        "c.execute(\"INSERT INTO notes (body) VALUES ('delta from another process')\")\n"
        "on_commit(c); c.commit()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True, cwd=ROOT, timeout=60)
    assert ids(c, "delta") == {3}
    assert ids(c, "another process") == {3}


def test_index_survives_reopening(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body")
    c.commit()
    c.close()
    c = connect(db)
    assert [i.index_name for i in list_text_indexes(c)] == ["notes_txt"]
    assert ids(c, "gamma") == {2}


def test_drop_removes_shadow_tables_and_triggers(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body")
    c.commit()
    drop_text_index(c, "NOTES_TXT")
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE name LIKE 'DR$%'")}
    assert names == set()
    c.execute("INSERT INTO notes (body) VALUES ('still works')")
    assert text_index_for(c, "notes", "body") is None
    with pytest.raises(TextIndexError) as info:
        drop_text_index(c, "notes_txt")
    assert info.value.code == 1418


def test_drop_indexes_for_table(db):
    c = connect(db)
    c.execute("CREATE TABLE other (body TEXT)")
    create_text_index(c, "notes_txt", "notes", "body")
    create_text_index(c, "other_txt", "other", "body")
    drop_indexes_for_table(c, "NOTES")
    assert [i.index_name for i in list_text_indexes(c)] == ["other_txt"]


@pytest.mark.parametrize("table, column, parameters, code, words", [
    ("missing", "body", None, 942, "does not exist"),
    ("notes", "nope", None, 904, "invalid identifier"),
    ("notes", "body", "SYNC (SOMETIMES)", 29855, "SOMETIMES"),
    ("notes", "body", "FROBNICATE 1", 29855, "FROBNICATE"),
    ("notes", "body", "DATASTORE ctxsys.url_datastore", 3001, "DATASTORE"),
    ("notes", "body", "LEXER my_lexer", 3001, "my_lexer"),
    ("notes", "body", "STOPLIST my_stoplist", 10700, "my_stoplist"),
    ("notes", "body", "MAINTENANCE AUTO SYNC (ON COMMIT)", 29855, "MAINTENANCE AUTO"),
])
def test_create_errors(db, table, column, parameters, code, words):
    c = connect(db)
    with pytest.raises(TextIndexError) as info:
        create_text_index(c, "notes_txt", table, column, parameters=parameters)
    assert info.value.code == code
    assert words in str(info.value)
    assert list_text_indexes(c) == []


def test_one_text_index_per_column_and_unique_names(db):
    c = connect(db)
    create_text_index(c, "notes_txt", "notes", "body")
    with pytest.raises(TextIndexError) as info:
        create_text_index(c, "notes_txt2", "notes", "body")
    assert info.value.code == 29879
    c.execute("CREATE TABLE other (body TEXT)")
    with pytest.raises(TextIndexError) as info:
        create_text_index(c, "Notes_Txt", "other", "body")
    assert info.value.code == 955


def test_null_and_non_text_values(db):
    c = connect(db)
    c.execute("INSERT INTO notes (body) VALUES (NULL)")
    c.execute("INSERT INTO notes (body) VALUES (42)")
    create_text_index(c, "notes_txt", "notes", "body")
    assert ids(c, "42") == {4}
