"""The facilitator's side of progress: a participant's JSON export (no answers, no secrets) and the room table
that merges a folder of them (where the room is, who is stuck)."""
from __future__ import annotations

import json

import pytest

from checkpoints import part01, progress, room
from checkpoints.framework import escalation, progress_log, registry
from workshop.embedded import connect

PART01 = [e for e in registry.series() if e.part == "01"]


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "workshop.db"))
    monkeypatch.setenv("WORKSHOP_PROGRESS_FILE", str(tmp_path / "progress.json"))
    escalation.reset()
    conn = connect(tmp_path / "workshop.db")
    yield conn
    conn.close()


def test_failures_in_a_row_count_until_a_pass_and_restart_after_it(db):
    key = part01.check_search_papers.key
    for _ in range(3):
        progress_log.record(key, "fail", "returned papers of other subjects", db)
    record = progress_log.last_outcomes(db)[key]
    assert record["failures_in_a_row"] == 3 and record["failing_since"]
    progress_log.record(key, "pass", "ok", db)
    assert "failures_in_a_row" not in progress_log.last_outcomes(db)[key]
    progress_log.record(key, "fail", "again", db)
    assert progress_log.last_outcomes(db)[key]["failures_in_a_row"] == 1


def test_the_export_holds_states_and_reasons_and_nothing_the_learner_wrote(db, monkeypatch):
    secret_sql = "SELECT * FROM papers WHERE subject = 'cs.AI' -- my answer"
    monkeypatch.setenv("ORACLE_PASSWORD", "hunter2-secret")
    progress_log.record(part01.check_search_papers.key, "fail",
                        "returned papers of other subjects\n" + secret_sql, db)
    data = progress.export(progress.collect(db, PART01), "ana", "embedded")
    text = json.dumps(data)
    assert data["format"] == progress.EXPORT_FORMAT and data["participant"] == "ana"
    assert [t["name"] for t in data["todos"]] == ["paper_vectors", "vector_index", "search_papers", "papers_store"]
    row = next(t for t in data["todos"] if t["name"] == "search_papers")
    assert (row["status"], row["reason"], row["failures_in_a_row"]) == (
        progress.FAILING, "returned papers of other subjects", 1)
    for leak in (secret_sql, "hunter2", str(db.dsn), "workshop.db"):
        assert leak not in text


def test_a_long_reason_is_cut(db):
    progress_log.record(part01.check_search_papers.key, "fail", "x" * 290, db)
    row = next(t for t in progress.export(progress.collect(db, PART01), "a", "embedded")["todos"]
               if t["name"] == "search_papers")
    assert len(row["reason"]) == progress.REASON_CHARS and row["reason"].endswith("…")


def test_command_line_export_to_a_file(db, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("workshop.doctor.preflight", lambda *a, **k: None)
    monkeypatch.setenv("GITHUB_USER", "octo-ana")
    target = tmp_path / "ana.json"
    assert progress.main(["--part", "01", "--json", str(target)]) == 0
    assert "0 of 4 TODOs pass" in capsys.readouterr().out
    data = json.loads(target.read_text())
    assert data["participant"] == "octo-ana" and data["engine"] == "embedded" and len(data["todos"]) == 4


def _export(name, states, fails=None):
    names = ["paper_vectors", "vector_index", "search_papers", "papers_store"]
    fails = fails or {}
    return {"format": progress.EXPORT_FORMAT, "participant": name, "engine": "embedded",
            "exported_at": "2026-12-02 10:00:00",
            "todos": [{"part": "01", "todo": i + 1, "name": n, "status": s, "reason": "" if s == "pass" else "why",
                       "failures_in_a_row": fails.get(n, 0), "failing_since": "2026-12-02 09:40:00" if n in fails else ""}
                      for i, (n, s) in enumerate(zip(names, states))]}


@pytest.mark.parametrize("case, files, on_most, stuck_names", [
    ("empty folder", {}, None, []),
    ("one participant done", {"a": _export("a", ["pass"] * 4)}, "all done", []),
    ("most on TODO 3", {"a": _export("a", ["pass", "pass", "failing", "not yet"], {"search_papers": 4}),
                        "b": _export("b", ["pass", "pass", "not yet", "not yet"]),
                        "c": _export("c", ["pass", "not yet", "not yet", "not yet"])},
     "part 01 TODO 3 (search_papers) (2 of 3)", ["a"]),
    ("two failures are not stuck", {"a": _export("a", ["failing", "not yet", "not yet", "not yet"],
                                                 {"paper_vectors": 2})}, "part 01 TODO 1", []),
    ("stuck on an earlier TODO while ahead", {"a": _export("a", ["pass", "pass", "pass", "failing"],
                                                           {"papers_store": 5})}, "TODO 4", ["a"]),
])
def test_the_room_table(tmp_path, case, files, on_most, stuck_names):
    for name, data in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    participants, stuck_rows, problems = room.merge(tmp_path)
    text = room.as_text(participants, stuck_rows, problems)
    assert problems == []
    assert sorted({r["participant"] for r in stuck_rows}) == stuck_names
    if on_most is None:
        assert text == "no progress exports found"
    else:
        assert on_most in text.splitlines()[0]


@pytest.mark.parametrize("content", ["not json", json.dumps({"todos": []}), json.dumps([1, 2]),
                                     json.dumps({"format": "other", "todos": []})])
def test_a_file_that_is_not_an_export_is_named_and_skipped(tmp_path, content):
    (tmp_path / "bad.json").write_text(content)
    (tmp_path / "ok.json").write_text(json.dumps(_export("ok", ["pass"] * 4)))
    participants, _, problems = room.merge(tmp_path)
    assert [p.name for p in participants] == ["ok"] and len(problems) == 1 and problems[0].startswith("bad.json")
    assert "skipped bad.json" in room.as_text(participants, [], problems)


def test_room_command_line(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(_export("a", ["pass", "failing", "not yet", "not yet"],
                                                        {"vector_index": 3})))
    assert room.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 participant; most are on part 01 TODO 2 (vector_index)" in out and "stuck (3 or more" in out
    assert room.main([str(tmp_path / "missing")]) == 2
