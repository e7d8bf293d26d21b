"""The rule-based extraction policy: what it keeps, what it drops, and the metadata a record inherits."""
from __future__ import annotations

import pytest

from workshop.agent_memory import conversation as conv
from workshop.agent_memory import policy


def extract(**kwargs):
    return policy.reference_extract(conv.SUPPORT_CONVERSATION, user_id=conv.USER_ID, agent_id=conv.AGENT_ID, **kwargs)


def test_the_support_conversation_gives_typed_records_and_no_secret():
    records = extract()
    texts = [r["content"] for r in records]
    assert not any(conv.ONE_TIME_CODE in t for t in texts)
    assert not any(policy.is_greeting(t) for t in texts)
    assert any(conv.ORDER_ID in t for t in texts) and any(conv.RETURN_ID in t for t in texts)
    assert {r["record_type"] for r in records} == {"memory", "fact", "preference"}
    fact = next(r for r in records if r["record_type"] == "fact")
    assert fact["metadata"]["confirmed_by"] == "tool:order_status"
    assert "tool:order_status" in fact["metadata"]["tags"]


def test_every_record_inherits_the_message_metadata_and_the_scope():
    for r in extract():
        assert (r["user_id"], r["agent_id"]) == (conv.USER_ID, conv.AGENT_ID)
        assert {"tenant": "acme", "source": "support-copilot"}.items() <= r["metadata"].items()


def test_inherit_selects_the_keys():
    for r in extract(inherit=("tenant",)):
        assert set(r["metadata"]) <= {"tenant", "confirmed_by"}


@pytest.mark.parametrize("sentence", ["The courier can use the lobby code LOBBY-7731 tomorrow.",
                                      "My PIN is 4412.", "Card number 4111 1111 1111 1111 please.",
                                      "Your one-time code is 991 204.", "The password is hunter2."])
def test_secrets_are_recognised(sentence):
    assert policy.has_secret(sentence)


@pytest.mark.parametrize("sentence", ["My order ORD-88412 arrived with a cracked hinge.",
                                      "Return RMA-5531 is approved."])
def test_identifiers_are_not_secrets(sentence):
    assert not policy.has_secret(sentence) and policy.identifiers(sentence)


def test_a_message_that_is_a_dict_without_metadata_inherits_nothing():
    records = policy.reference_extract([{"role": "user", "content": "Case CASE-1 was escalated."}],
                                       user_id="u", agent_id="a")
    assert records == [{"content": "Case CASE-1 was escalated.", "record_type": "memory", "user_id": "u",
                        "agent_id": "a", "metadata": {}}]


def test_record_refuses_an_unknown_type():
    with pytest.raises(ValueError, match="record_type"):
        policy.record("x", "note", user_id="u", agent_id="a", metadata={})
