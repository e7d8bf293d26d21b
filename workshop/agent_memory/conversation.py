"""The fixed support conversation of part 08 (the custom-extraction article's shape, our own text).

It plants every signal of the article's baseline-vs-custom table: exact identifiers, a return request, a
delivery issue and its escalation, a stable preference, a tool-confirmed fact, and things no memory may keep:
greetings, small talk and a unique one-time code (LOBBY-7731), which looks like an identifier on purpose.
"""
from __future__ import annotations

USER_ID = "customer_4471"
AGENT_ID = "support_copilot"
ORDER_ID = "ORD-88412"
RETURN_ID = "RMA-5531"
CASE_ID = "CASE-2093"
ONE_TIME_CODE = "LOBBY-7731"

_META = {"tenant": "acme", "source": "support-copilot", "tags": ["support", "replacement"]}
_TOOL_META = {"tenant": "acme", "source": "support-copilot", "tags": ["support", "tool:order_status", "replacement"]}

SUPPORT_CONVERSATION: list[dict] = [
    {"role": "user", "content": "Hi there! Hope you are having a good day.", "metadata": _META},
    {"role": "user", "content": f"My order {ORDER_ID} arrived with a cracked hinge. I requested a replacement "
                                f"under return {RETURN_ID}.", "metadata": _META},
    {"role": "assistant", "content": f"Thanks for the details. Your return {RETURN_ID} is approved and I opened "
                                     f"case {CASE_ID}.", "metadata": _META},
    {"role": "user", "content": "I prefer email updates, please never call me at work.", "metadata": _META},
    {"role": "user", "content": f"The courier can use the lobby code {ONE_TIME_CODE} tomorrow. "
                                "The weather is lovely here by the way.", "metadata": _META},
    {"role": "tool", "tool": "order_status",
     "content": f"The replacement for {ORDER_ID} is backordered until 14 March; shipment escalated to logistics.",
     "metadata": _TOOL_META},
    {"role": "assistant", "content": "Thank you, I will keep you posted.", "metadata": _META},
]
