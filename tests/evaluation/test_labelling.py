"""The labelling flow end to end: an agent session logs retrieval_result records, the harvest query
returns them in order, the grader writes RETRIEVAL_LABELS, the export reloads through the loader."""
from __future__ import annotations

import json

import pytest

from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template  # noqa: F401
from workshop.data.loaders import read_golden_jsonl
from workshop.evaluation import labelling
from workshop.memory.agent import MemoryAgent, Plan, ToolCall
from workshop.memory.retrieval_log import RETRIEVAL_RESULT, Retrieved
from workshop.memory.tools import Tool

CANDIDATES = {"What is ORA-51962?": ["DOC10-C07", "DOC26-C01", "DOC20-C01"],
              "How do rolling summaries work?": ["DOC02-C03", "DOC02-C01"]}


class _Retrieving:
    name = "scripted-retrieval"

    def plan(self, message, context, tools):
        return Plan([ToolCall("search_chunks", {"query": message})], "")

    def respond(self, message, context, results):
        return f"{len(results[0].output)} chunks"


def _search_chunks(query: str) -> Retrieved:
    ids = CANDIDATES[query]
    return Retrieved([f"text of {i}" for i in ids], ids, tenant="acme")


@pytest.fixture
def session(memory):  # noqa: F811
    tool = Tool("search_chunks", "Search the research chunks for a question about the corpus.",
                {"query": {"type": "string", "description": "the question"}}, _search_chunks, None)
    agent = MemoryAgent(memory, _Retrieving(), tools=[tool], tools_per_turn=1)
    agent.register_tools()
    for question in CANDIDATES:
        agent.run("eval-thread", question)
    agent.run("eval-thread", "What is ORA-51962?")  # asked again: a second logged retrieval
    labelling.create_labels_table(memory.conn)
    yield memory.conn
    with memory.conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS retrieval_labels")


def test_the_agent_logs_a_retrieval_result_per_retrieval(session, memory):  # noqa: F811
    logged = [r for r in memory.read_tool_log("eval-thread", 50) if r["tool_name"] == RETRIEVAL_RESULT]
    assert [r["arguments"]["candidates"] for r in logged] == [*CANDIDATES.values(), CANDIDATES["What is ORA-51962?"]]
    assert all(r["arguments"]["tool"] == "search_chunks" and r["arguments"]["tenant"] == "acme" for r in logged)


def test_the_harvest_returns_one_row_per_retrieval_in_logged_order(session):
    rows = labelling.harvest(session)
    assert [(r["question"], r["candidate_ids"]) for r in rows] == [
        *CANDIDATES.items(), ("What is ORA-51962?", CANDIDATES["What is ORA-51962?"])]
    assert [r["log_id"] for r in rows] == sorted(r["log_id"] for r in rows)


def test_harvesting_twice_adds_nothing_and_grades_export_and_reload(session, tmp_path):
    rows = labelling.harvest(session)
    assert labelling.harvest_into_labels(session, rows) == 8
    assert labelling.harvest_into_labels(session, labelling.harvest(session)) == 0
    grader = labelling.Grader(session, "tester")
    pending = grader.pending()
    assert len(pending) == 8 and list(pending.columns) == ["log_id", "tenant", "question", "chunk_id", "position"]
    grades = {"DOC10-C07": 3, "DOC26-C01": 2, "DOC20-C01": 0, "DOC02-C03": 3}
    for row in pending.itertuples():
        if row.chunk_id in grades and (row.chunk_id != "DOC20-C01" or row.position == 3):
            grader.grade(row.log_id, row.chunk_id, grades[row.chunk_id])
    with pytest.raises(ValueError):
        grader.grade(int(pending.log_id[0]), "DOC10-C07", 4)
    with pytest.raises(LookupError):
        grader.grade(int(pending.log_id[0]), "NOPE", 1)
    path = tmp_path / "harvested.jsonl"
    exported = labelling.export_golden_jsonl(session, path)
    reloaded = read_golden_jsonl(path)
    assert reloaded == exported
    assert [(q["query"], q["relevance"]) for q in reloaded] == [
        ("What is ORA-51962?", {"DOC10-C07": 3, "DOC20-C01": 0, "DOC26-C01": 2}),
        ("How do rolling summaries work?", {"DOC02-C03": 3})]
    assert json.loads(path.read_text().splitlines()[0])["tenant"] == "acme"


def test_the_loader_refuses_a_malformed_file(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"query_id": "X", "query": "q", "tenant": None, "intent": "i",
                                "relevance": {"a": 5}}) + "\n")
    with pytest.raises(ValueError, match="grades 0..3"):
        read_golden_jsonl(path)
