"""Stage 1, query understanding: rules and a small thesaurus turn a question into a retrieval plan.

In production this is one fast-model call returning small JSON; the workshop uses fixed rules so
every run gives the same plan (`understand_query(question, llm=...)` accepts a hook that returns
the same fields). The plan names:

- `entities`: what the data says names something: quoted phrases, known product and paper names,
  identifier-like terms (MK-3307, vector_memory_size, HNSW) and terms rare in the knowledge base
  (corpus_terms.py); never a word for being capitalised;
- `expansions`: thesaurus paraphrases of its concepts (eviction -> pruning, retention, purge ...);
- `intent`: comparison, procedure or lookup (each wants a different candidate mix);
- `collections`: the collections the question asks about (all four when it names none); stage 2
  (`routing.route_collections`) keeps that narrowing only when the narrowed scope still holds enough
  chunks, widens otherwise, and records which in `routing`;
- `token_budget`: the context budget, fixed *before* retrieval starts;
- `diversify_by`: "document_id" for comparisons (the answer needs both sources), else None;
- `lex_query`: an Oracle Text expression where every term is braced, so "within" or "near" is a
  word and never an operator: the entities, the expansions and always the question's own content
  words (stop words removed), so a question is never searched for one of its words alone.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from workshop.retrieval import escape_braces
from workshop.retrieval.keywords import MAX_QUERY_BYTES, split_terms

from .corpus_terms import TermStatistics, general_vocabulary, term_statistics, tokens

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
#: "Quoted phrases" are entities, taken as written.
QUOTED = re.compile(r'"([^"]+)"')
#: A term is *rare* when at most this share of the knowledge base's chunks contain it (and at least one does:
#: a word the corpus never uses names nothing in it). 3% of 238 chunks is 7. Chosen on the development half.
RARE_SHARE = 0.03
#: How the lexical expression joins its terms. ACCUM ranks a chunk by how many of the terms it holds (OR ranks
#: it by its best single term, so a chunk with one common word ties one with all of them). Chosen on the
#: development half (benchmarks/bench_stage1.py).
JOINER = " ACCUM "
#: Every entity's weight in the expression (Oracle Text's `*n`); 1 = no weight. Chosen on the development half.
ENTITY_WEIGHT = 1
TOKEN_BUDGETS = {"comparison": 1200, "procedure": 900, "lookup": 600}


def is_identifier(term: str) -> bool:
    """Identifier-like by its shape: a digit (MK-3307, TPS-7, ORA-51962), an underscore or an inner dot
    (vector_memory_size, DBMS_VECTOR.LOAD_ONNX_MODEL), or two capitals (HNSW, OracleVS). One leading
    capital is not a shape: every sentence has one."""
    return (any(ch.isdigit() for ch in term) or "_" in term or bool(re.search(r"\w\.\w", term))
            or sum(ch.isupper() for ch in term) >= 2)


def is_rare(term: str, stats: TermStatistics | None = None) -> bool:
    """In at least one chunk of the knowledge base and in at most RARE_SHARE of them, and, for a single word,
    not a whole word of the embedding model's general vocabulary (a small corpus makes "say" rare too)."""
    stats = stats or term_statistics()
    if not 1 <= stats.document_frequency(term) <= max(1, int(RARE_SHARE * stats.chunks)):
        return False
    words = tokens(term)
    return len(words) > 1 or words[0] not in general_vocabulary()


def known_names(stats: TermStatistics | None = None) -> tuple[str, ...]:
    """The product names (KNOWN_NAMES) and the names the corpus's own titles give (paper names)."""
    return tuple(dict.fromkeys((*KNOWN_NAMES, *(stats or term_statistics()).names)))


def find_entities(question: str, stats: TermStatistics | None = None) -> list[str]:
    """What the data says names something: quoted phrases, known product and paper names, identifier-like
    terms and rare terms (see `is_identifier`, `is_rare`), in that order, once each. Capitalisation alone
    makes nothing an entity."""
    stats = stats or term_statistics()
    found: list[str] = [m.group(1) for m in QUOTED.finditer(question)]
    rest = QUOTED.sub(" ", question)
    for name in known_names(stats):
        match = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", rest, re.I)
        if match:
            found.append(match.group(0))
    found += [t for t in split_terms(rest) if is_identifier(t) or is_rare(t, stats)]
    unique: dict[str, str] = {}
    covered: set[str] = set()
    for entity in found:
        key = " ".join(tokens(entity))
        if key and key not in unique and not (len(key.split()) == 1 and key in covered):
            unique[key] = entity
            covered.update(key.split())
    return list(unique.values())


def content_terms(question: str) -> list[str]:
    """The question's own searchable terms: every term but the stop words, identifiers kept whole."""
    return split_terms(question)


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


def lexical_expression(entities: list[str], expansions: list[str], question: str, *, joiner: str = JOINER,
                       entity_weight: int = ENTITY_WEIGHT) -> str:
    """Braced terms: the entities, the thesaurus expansions and **always** the question's content words,
    each once (case-insensitive), joined by `joiner`. Entities carry `*entity_weight` when it is not 1."""
    def braced(term: str, weight: int) -> str:
        return escape_braces(term) + (f"*{weight}" if weight != 1 else "")
    terms: dict[str, str] = {}
    for group, weight in ((entities, entity_weight), (expansions, 1), (content_terms(question), 1)):
        for term in group:
            key = " ".join(tokens(term)) or term
            terms.setdefault(key, braced(term, weight))
    parts: list[str] = []
    for part in terms.values():
        if len(joiner.join([*parts, part]).encode()) > MAX_QUERY_BYTES:
            break
        parts.append(part)
    if not parts:
        shown = question if len(question) <= 80 else question[:77] + "..."
        raise ValueError(f"the question {shown!r} has no searchable word")
    return joiner.join(parts)


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
    plan["lex_query"] = lexical_expression(list(plan["entities"]), list(plan["expansions"]), question)
    return plan
