"""Stage 1, query understanding: rules and a small thesaurus turn a question into a retrieval plan.

In production this is one fast-model call returning small JSON; the workshop uses fixed rules so
every run gives the same plan (`understand_query(question, llm=...)` accepts a hook that returns
the same fields). The plan names:

- `entities`: exact names the question mentions (capitalised phrases, identifiers, known names);
- `expansions`: thesaurus paraphrases of its concepts (eviction -> pruning, retention, purge ...);
- `intent`: comparison, procedure or lookup (each wants a different candidate mix);
- `collections`: the collections the question asks about (all four when it names none);
- `token_budget`: the context budget, fixed *before* retrieval starts;
- `diversify_by`: "document_id" for comparisons (the answer needs both sources), else None;
- `lex_query`: an Oracle Text expression where every term is braced, so "within" or "near" is a
  word and never an operator; the fallback is the question's own content words.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from workshop.retrieval import escape_braces, keyword_terms

#: concept stem -> paraphrases the corpus uses for it.
THESAURUS: dict[str, tuple[str, ...]] = {
    "evict": ("eviction", "pruning", "retention", "purge"),
    "prun": ("pruning", "eviction", "truncation"),
    "forget": ("forgetting", "retention", "deletion"),
    "retain": ("retention", "expiry", "purge"),
    "retention": ("retention", "expiry", "purge"),
    "summar": ("rolling summary", "summarisation", "compression"),
    "compress": ("compression", "rolling summary", "summarisation"),
    "rerank": ("reranking", "cross-encoder"),
    "fusion": ("reciprocal rank fusion", "RRF"),
    "fuse": ("reciprocal rank fusion", "RRF"),
    "tenant": ("tenant isolation", "row-level security", "VPD"),
    "isolat": ("tenant isolation", "row-level security"),
    "budget": ("context budget", "token budget"),
    "chunk": ("chunking", "chunk size"),
}

#: Names that are entities even in lower case (the products of the corpus).
KNOWN_NAMES: tuple[str, ...] = ("memkeeper", "langchain-oracledb", "Acme Support Copilot", "Scout", "Lattice")

COLLECTION_WORDS: dict[str, str] = {
    "paper": "ingested-papers", "papers": "ingested-papers", "study": "ingested-papers",
    "runbook": "runbooks", "runbooks": "runbooks", "on-call": "runbooks",
    "docs": "vendor-docs", "documentation": "vendor-docs", "manual": "vendor-docs",
    "blog": "blog", "post": "blog", "postmortem": "blog",
}
ALL_COLLECTIONS: tuple[str, ...] = ("ingested-papers", "vendor-docs", "blog", "runbooks")

COMPARISON = re.compile(r"\b(compare[sd]?|comparison|versus|vs\.?|differ(s|ence)?|contrast)\b", re.I)
PROCEDURE = re.compile(r"\b(how (do|can|should) (i|we)|steps?|procedure|fix|recover|run)\b", re.I)
#: Words that start questions and sentences: capitalised, but never names.
QUESTION_WORDS = frozenset("what which who whom whose when where why how does do did is are can could should "
                           "would will the a an and or in on of for to i we you my our".split())
#: "Quoted phrases" are entities, taken as written.
QUOTED = re.compile(r'"([^"]+)"')
#: Capitalised phrases: one or more capitalised words in a row.
CAPITALISED = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*")
#: Identifier-like tokens: a digit, an underscore or an inner dot/hyphen between letters (ORA-51962, MK-4012).
IDENTIFIER = re.compile(r"\b[A-Za-z][\w]*(?:[-_.][\w]+)+\b|\b\w*\d\w*\b")

TOKEN_BUDGETS = {"comparison": 1200, "procedure": 900, "lookup": 600}


def find_entities(question: str) -> list[str]:
    """Quoted phrases, capitalised phrases (question words stripped), identifiers and known names, once each."""
    found: list[str] = [m.group(1) for m in QUOTED.finditer(question)]
    question = QUOTED.sub(" ", question)
    for match in CAPITALISED.finditer(question):
        words = match.group(0).split()
        while words and words[0].lower() in QUESTION_WORDS:
            words = words[1:]
        if words and len(" ".join(words)) > 1:
            found.append(" ".join(words))
    found += [m.group(0) for m in IDENTIFIER.finditer(question) if not m.group(0).isdigit()]
    found += [name for name in KNOWN_NAMES if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", question, re.I)]
    unique: dict[str, str] = {}
    for entity in found:
        key = entity.lower()
        if key not in unique and not any(key in other.lower().split() for other in unique.values()):
            unique[key] = entity
    return list(unique.values())


def find_expansions(question: str) -> list[str]:
    """The thesaurus paraphrases of every concept stem the question contains."""
    words = re.findall(r"[a-z]+", question.lower())
    out: list[str] = []
    for stem, paraphrases in THESAURUS.items():
        if any(w.startswith(stem) for w in words):
            out += [p for p in paraphrases if p not in out]
    return out


def classify_intent(question: str) -> str:
    """comparison, procedure or lookup."""
    if COMPARISON.search(question):
        return "comparison"
    if PROCEDURE.search(question):
        return "procedure"
    return "lookup"


def choose_collections(question: str) -> list[str]:
    """The collections the question names (paper, runbook, docs, blog), or all four."""
    words = set(re.findall(r"[a-z-]+", question.lower()))
    named = sorted({c for w, c in COLLECTION_WORDS.items() if w in words}, key=ALL_COLLECTIONS.index)
    return named or list(ALL_COLLECTIONS)


def lexical_expression(terms: list[str], question: str) -> str:
    """Braced terms joined by OR; the question's content words when there are no terms."""
    if terms:
        return " OR ".join(escape_braces(t) for t in dict.fromkeys(terms))
    fallback = keyword_terms(question, "or")
    if fallback is None:
        shown = question if len(question) <= 80 else question[:77] + "..."
        raise ValueError(f"the question {shown!r} has no searchable word")
    return fallback


def understand_query(question: str, *, llm: Callable[[str], dict] | None = None) -> dict:
    """The retrieval plan of `question` (see the module docstring); `llm` may replace the rules."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("the question must be a non-empty string")
    if llm is not None:
        plan = dict(llm(question))
        missing = {"entities", "expansions", "intent", "collections", "token_budget", "diversify_by"} - set(plan)
        if missing:
            raise ValueError(f"the LLM plan lacks {sorted(missing)}")
    else:
        intent = classify_intent(question)
        plan = {"entities": find_entities(question), "expansions": find_expansions(question), "intent": intent,
                "collections": choose_collections(question), "token_budget": TOKEN_BUDGETS[intent],
                "diversify_by": "document_id" if intent == "comparison" else None}
    plan["question"] = question
    plan["lex_query"] = lexical_expression(plan["entities"] + plan["expansions"], question)
    return plan
