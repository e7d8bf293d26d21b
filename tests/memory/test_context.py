"""The token estimate and the bounded context: the budget is never exceeded, sections share it in
priority order, the newest turns survive, and every memory type reaches the context."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template  # noqa: F401
from workshop.memory import SECTIONS, assemble_context, estimate_tokens, truncate_to_tokens


@pytest.mark.parametrize("text, tokens", [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_estimate_is_ceil_of_chars_over_four(text, tokens):
    assert estimate_tokens(text) == tokens


@given(st.text(max_size=300), st.integers(min_value=-3, max_value=120))
def test_truncation_respects_the_bound(text, tokens):
    cut = truncate_to_tokens(text, tokens)
    assert estimate_tokens(cut) <= max(tokens, 0)
    assert cut == text or cut.endswith("…") or cut == ""
    if estimate_tokens(text) <= max(tokens, 0):
        assert cut == text


lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=200), max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({key: lines for key in SECTIONS}), st.integers(min_value=1, max_value=2000))
def test_the_budget_is_never_exceeded(candidates, budget):
    context = assemble_context(candidates, budget)
    assert context.tokens <= budget
    assert sum(section.tokens for section in context.sections) <= budget
    assert [section.key for section in context.sections] == list(SECTIONS)


def test_the_newest_turns_survive_and_are_shown_oldest_first():
    turns = [f"user: message number {i} " + "padding " * 5 for i in range(40)]
    flat = [" ".join(turn.split()) for turn in turns]
    kept = assemble_context({"conversation": turns}, budget=200).sections[0].lines
    assert 1 < len(kept) < 40
    assert list(kept[1:]) == flat[-(len(kept) - 1):]          # the newest turns, oldest first
    oldest = flat[-len(kept)]
    assert kept[0] == oldest or (kept[0].endswith("…") and oldest.startswith(kept[0][:-1]))


def test_unused_share_flows_to_later_sections():
    long_knowledge = [f"fact {i}: " + "word " * 30 for i in range(20)]
    alone = assemble_context({"knowledge": long_knowledge}, budget=1000)
    shared = assemble_context({"knowledge": long_knowledge, "toolbox": ["- calculate: does arithmetic"]}, budget=1000)
    assert alone.sections[2].tokens > int(1000 * SECTIONS["knowledge"][1])
    assert shared.sections[5].lines == ("- calculate: does arithmetic",)
    assert shared.tokens <= 1000


def test_a_line_that_does_not_fit_is_shortened_not_dropped():
    context = assemble_context({"knowledge": ["- " + "long " * 200]}, budget=100)
    [line] = context.sections[2].lines
    assert line.endswith("…") and context.tokens <= 100


def test_usage_has_the_documented_keys():
    context = assemble_context({"knowledge": ["- a fact"]}, budget=50)
    assert context.usage() == {"tokens": context.tokens, "budget": 50,
                               "percent": round(100 * context.tokens / 50, 1)}
    assert list(context.as_frame().columns) == ["section", "lines used", "lines available", "tokens"]


@pytest.mark.parametrize("candidates, budget", [({"nope": ["x"]}, 10), ({}, 0), ({}, 2.5), ({}, True)])
def test_bad_arguments_are_refused(candidates, budget):
    with pytest.raises(ValueError):
        assemble_context(candidates, budget)


def test_every_memory_type_reaches_the_context(memory):
    memory.write_conversation("t", "user", "We are tuning the HNSW index of the papers table.")
    memory.write_conversation("t", "assistant", "Start from the default EFCONSTRUCTION.")
    memory.write_conversation("elsewhere", "user", "A turn of another thread.")
    memory.write_knowledge("HNSW recall rises with EFCONSTRUCTION and NEIGHBORS.", {"source": "docs"})
    memory.write_entity("Papers table", "table", "Holds the research papers and their HNSW index.")
    memory.write_workflow("How do I tune HNSW?", ["raise EFCONSTRUCTION", "measure recall"], "Raise it, measure.")
    memory.write_toolbox("recall_workflows", "Recall how a task was done before.")
    old = [memory.write_conversation("t2", "user", f"Old turn {i}.") for i in range(3)]
    memory.write_summary("t", "The user and the assistant discussed HNSW tuning.", [memory.read_conversation("t")[0]["id"]])
    context = memory.build_context("How should I tune HNSW?", "t", budget=1500)
    text = context.text
    for expected in ("### Conversation so far (t)", "assistant: Start from the default EFCONSTRUCTION.",
                     "### Earlier in this thread (summaries)", "discussed HNSW tuning",
                     "- HNSW recall rises with EFCONSTRUCTION and NEIGHBORS. [source: docs]",
                     "- Papers table (table): Holds", "- Query: How do I tune HNSW? Steps: 1. raise EFCONSTRUCTION",
                     "- recall_workflows: Recall how"):
        assert expected in text, expected
    assert "We are tuning" not in text          # summarised, so read through its summary
    assert "another thread" not in text and "Old turn" not in text
    assert context.tokens <= 1500 and len(old) == 3
    small = memory.build_context("How should I tune HNSW?", "t", budget=60)
    assert small.tokens <= 60
    assert memory.build_context("How should I tune HNSW?", "t", max_distance=0.0).text.count("\n- ") == 0
