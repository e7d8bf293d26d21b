"""Authored sentence pools that turn each hand-written abstract into a longer paper body.

Only the builder (``build.py``) imports this module. Each body is: three background sentences
for the paper's topic, the paper's own abstract, a setup paragraph naming (fictitious)
benchmarks and generic baselines, and one limitation sentence. The setup paragraph states no
numbers, so it can never contradict the results claimed in the abstract. A fixed seed in the
builder makes the choice of sentences reproducible.
"""
from __future__ import annotations

import random

# Topic -> research groups (authors.tsv) that write about it. Shared groups create the
# cross-topic shared-author hops that the graph notebook walks.
TOPIC_GROUPS: dict[str, list[str]] = {
    "episodic-memory": ["mnemos"],
    "entity-memory": ["mnemos", "agents"],
    "summarisation": ["precis"],
    "context-management": ["precis"],
    "dense-retrieval": ["densa"],
    "ann-indexes": ["annlab"],
    "hybrid-search": ["fusion"],
    "reranking": ["rerank"],
    "chunking": ["segment"],
    "evaluation": ["metrics"],
    "graph-retrieval": ["graphs"],
    "tool-use": ["agents"],
    "multi-tenancy": ["tenancy"],
}

_BACKGROUND: dict[str, list[str]] = {
    "episodic-memory": [
        "Language model agents keep no state between calls, so anything they should remember must be stored and retrieved by the application.",
        "Episodic memory, the record of what happened and when, is the raw material from which longer-lived knowledge is later distilled.",
        "As assistants serve the same users for months, deciding which past events to recall becomes as important as recalling them accurately.",
        "Cognitive science distinguishes memory for events from memory for facts, and agent designers increasingly borrow that distinction.",
    ],
    "entity-memory": [
        "Many questions put to assistants are about a person, a project or a system rather than about a particular earlier message.",
        "Entity records act as hubs to which facts, episodes and documents can be attached and from which they can be collected.",
        "Recognising that different mentions refer to the same entity is a prerequisite for any memory organised around entities.",
        "Personal and organisational entities also concentrate sensitive data, which raises the stakes of every merge and every deletion.",
    ],
    "summarisation": [
        "Long conversations eventually exceed any context window, so older turns must be compressed or dropped.",
        "A summary that serves as memory is judged by whether later questions can still be answered, not by how fluent it reads.",
        "Abstractive summarisers paraphrase freely, which is harmless for narrative and harmful for numbers, dates and identifiers.",
        "Compression policies decide when to summarise, what to keep verbatim and how to prevent summaries from drifting over time.",
    ],
    "context-management": [
        "Every agent turn assembles a prompt from instructions, history, memories, retrieved passages and tool results.",
        "The context window is finite and every token adds latency and cost, which turns prompt assembly into an allocation problem.",
        "Without explicit priorities, whichever section is appended last is the one that gets truncated.",
        "Longer windows move the limit but do not remove the need to decide what the model should see.",
    ],
    "dense-retrieval": [
        "Dense retrieval embeds queries and passages into a shared vector space and ranks passages by their distance to the query.",
        "Sentence encoders capture paraphrase well but can blur rare exact tokens into their more common neighbours.",
        "Small encoders with a few hundred dimensions remain popular in production because they run on CPUs within tight latency budgets.",
        "The way an embedding model was trained constrains how queries, passages and distance metrics should be used with it.",
    ],
    "ann-indexes": [
        "Exact nearest neighbour search compares the query with every stored vector, which becomes slow as collections grow.",
        "Approximate indexes trade a small loss of recall for large gains in speed, using graphs or partitions of the vector space.",
        "Graph indexes such as HNSW keep their structure in memory, while partition-based indexes such as IVF can live on disk.",
        "Index parameters chosen at build time and search parameters chosen at query time together determine recall and latency.",
    ],
    "hybrid-search": [
        "Lexical retrieval excels at exact terms and identifiers, while dense retrieval excels at matching meaning expressed in different words.",
        "Hybrid search runs both kinds of retrieval and fuses their result lists into one ranking.",
        "Because lexical scores and vector distances live on unrelated scales, fusion methods based on ranks are a common default.",
        "Filters for tenant, version or document type must be applied consistently to every leg of a hybrid query.",
    ],
    "reranking": [
        "First-stage retrievers score queries and passages independently, which makes them fast but coarse.",
        "Cross-encoders read a query and a passage together and predict relevance directly, at a much higher cost per pair.",
        "Multi-stage pipelines therefore retrieve broadly with cheap methods and rerank a short candidate list with an expensive model.",
        "The benefit of any reranker is bounded by the recall of the candidates it receives.",
    ],
    "chunking": [
        "Documents must be split into chunks before they can be embedded, because encoders have input limits and one vector cannot represent many topics.",
        "Chunk boundaries decide which sentences are retrieved together and which context is lost.",
        "Structure such as headings, tables and code blocks offers natural boundaries that fixed-size windows ignore.",
        "Every change of chunking strategy invalidates existing chunk identifiers, embeddings and relevance labels.",
    ],
    "evaluation": [
        "Retrieval systems are often tuned by inspecting a handful of results, which hides regressions and overstates improvements.",
        "A small labelled query set with graded relevance makes differences between configurations measurable.",
        "Recall at a cutoff, mean reciprocal rank and normalised discounted cumulative gain answer different questions about a ranking.",
        "Averages over heterogeneous queries can hide large changes on particular kinds of query.",
    ],
    "graph-retrieval": [
        "Similarity search finds documents that resemble the query but misses documents connected to good results in other ways.",
        "Authorship, citation and similarity links form graphs that can extend a set of seed results.",
        "Property graphs defined over relational tables allow pattern matching and vector ranking to run in the same database.",
        "Every hop of expansion adds candidates, so expansions must be scored, bounded and explained.",
    ],
    "tool-use": [
        "Agents that call tools leave traces that record which actions were taken, with which arguments and with what result.",
        "Procedural memory stores how tasks were accomplished so that agents need not rediscover multi-step workflows.",
        "Tool outputs can be far larger than the prompt that needs them, which makes storage and retrieval of outputs a design question.",
        "Traces also contain personal data and secrets, so what is stored must be redacted and retained deliberately.",
    ],
    "multi-tenancy": [
        "Many retrieval and memory services store data of several tenants in shared tables and indexes.",
        "A filter forgotten in one query is enough to return another tenant's documents as nearest neighbours.",
        "Database-enforced policies apply tenant predicates to every statement, independent of application code.",
        "Retention, deletion and auditing requirements frequently differ from tenant to tenant.",
    ],
}

_BENCHMARKS: dict[str, list[str]] = {
    "episodic-memory": ["MultiSession-Recall", "LongHorizon-Dialog", "AgentDiary-2k", "TimelineQA-Chat"],
    "entity-memory": ["PersonaLink-12k", "SupportEntities", "OrgChart-Dialog", "MeetingMentions"],
    "summarisation": ["ThreadCompress-400", "SupportThreads-900", "RecapBench", "MeetingNotes-150"],
    "context-management": ["LongSession-300", "BudgetQA", "ToolHeavy-Tasks", "WindowStress"],
    "dense-retrieval": ["RunbookRetrieval", "TicketSearch-40k", "DocsQA-Tech", "ParaphraseProbe-3k"],
    "ann-indexes": ["Mem-Embeddings-10M", "Support-384d-2M", "ArchiveChunks-100M", "RecallProbe"],
    "hybrid-search": ["TechSupport-Hybrid", "ErrorCodeQA", "EnterpriseDocs-8", "MixedIntent-310"],
    "reranking": ["RerankDepth-6", "SupportKB-Rerank", "TerseAnswers-900", "AgentTrace-Rerank"],
    "chunking": ["ManualsQA", "DocStructure-4", "TableLookup", "ConversationChunks"],
    "evaluation": ["GradedQrels-300", "IntentSplit-5", "TenantQrels", "KBUpdates-Weekly"],
    "graph-retrieval": ["LitReview-CS", "CoAuthor-Expand", "MultiHop-Bridge", "CitationSearch"],
    "tool-use": ["RepeatedTasks", "ToolLibrary-120", "AnalyticsTraces", "CredentialOps"],
    "multi-tenancy": ["TenantIsolation-Suite", "SharedKB-300", "TenantSizes-Mix", "DeletionAudit"],
}

_BASELINES: dict[str, list[str]] = {
    "episodic-memory": ["similarity-only recall", "full-history prompting", "recency-only recall", "a single undifferentiated memory table"],
    "entity-memory": ["snippet retrieval over raw messages", "exact alias matching", "open relation extraction", "overwrite-in-place profiles"],
    "summarisation": ["truncation to the last turns", "summarising the previous summary", "a single-pass summary", "extractive selection of turns"],
    "context-management": ["fixed concatenation with truncation", "a fixed retrieval depth", "character-based token estimates", "framework default overflow handling"],
    "dense-retrieval": ["BM25", "a larger general-purpose encoder", "an encoder without domain adaptation", "exact lexical matching"],
    "ann-indexes": ["exact search", "default index parameters", "a flat partition index", "rebuilding on a fixed schedule"],
    "hybrid-search": ["lexical search alone", "dense search alone", "min-max score fusion", "post-filtered fusion"],
    "reranking": ["the first-stage ranking", "a twelve-layer cross-encoder", "a bi-encoder cosine stand-in", "reranking every query"],
    "chunking": ["fixed-size windows", "windows with large overlap", "sentence-level chunks", "whole-section chunks"],
    "evaluation": ["binary relevance labels", "single-average reporting", "pooling from one system", "MRR-only comparison"],
    "graph-retrieval": ["vector search alone", "iterative vector retrieval", "unbounded expansion", "citation counts alone"],
    "tool-use": ["agents without memory", "success-only example retrieval", "inlined tool outputs", "naive result reuse"],
    "multi-tenancy": ["application-level filters", "post-filtering of results", "per-tenant databases", "unscoped shared caches"],
}

_LIMITATIONS: dict[str, list[str]] = {
    "episodic-memory": [
        "The evaluation relies on simulated or anonymised histories, and behaviour with real users over longer periods remains to be studied.",
        "Decay and scoring parameters were tuned per benchmark, and transferring them to new domains may require relabelling.",
        "Storing richer episodes raises privacy obligations that this work addresses only partially.",
    ],
    "entity-memory": [
        "Wrong merges remain possible, and their cost depends heavily on the application, which the evaluation cannot capture fully.",
        "All experiments use English conversations; names and aliases in other languages may behave differently.",
        "Deletion of entity data across derived records is discussed but not evaluated end to end.",
    ],
    "summarisation": [
        "Human evaluation covered a limited number of conversations, and annotator agreement on partial preservation was moderate.",
        "Costs were measured with one family of models, and relative costs may differ for others.",
        "Conversations with heavy code or tabular content were excluded and may need dedicated handling.",
    ],
    "context-management": [
        "Budgets were tuned for one window size, and the best allocation shifts as windows grow.",
        "Latency measurements depend on the serving stack and may not transfer directly to other deployments.",
        "The utility estimates used for allocation are heuristic and could be learned from usage logs in future work.",
    ],
    "dense-retrieval": [
        "Results are reported for English technical text; other languages and domains may show different trade-offs.",
        "Only encoders small enough for CPU deployment were studied.",
        "Relevance labels were collected for a fixed corpus snapshot and may age as documents change.",
    ],
    "ann-indexes": [
        "Measurements were taken on a single hardware configuration, and absolute latencies will differ elsewhere.",
        "Workloads with very high update rates were outside the scope of the experiments.",
        "Recall was measured against exact search on sampled queries rather than on the full query distribution.",
    ],
    "hybrid-search": [
        "The lexical leg used default tokenisation except where stated, and tuned tokenisation might change the balance between legs.",
        "Query intent labels were assigned by annotators and may not match intents inferred automatically.",
        "Collections were limited to technical and enterprise text.",
    ],
    "reranking": [
        "Latency was measured on CPUs only; accelerator deployments change the cost trade-offs considerably.",
        "The rerankers studied were trained on general web data, and domain-trained models may behave differently.",
        "Scores from different rerankers are not comparable, so results should always be reported with the model used.",
    ],
    "chunking": [
        "The study fixed the embedding model per experiment, and interactions with future encoders may differ.",
        "Documents without reliable structure, such as scanned forms, were excluded.",
        "Chunk identifiers changed between strategies, so relevance labels had to be remapped, which introduces some noise.",
    ],
    "evaluation": [
        "The query sets are small by design, so conclusions about small differences carry wide uncertainty.",
        "Labels were produced by a few annotators from one organisation and may reflect its conventions.",
        "The study covers retrieval evaluation and does not measure generation quality directly.",
    ],
    "graph-retrieval": [
        "Graphs were built from curated metadata; noisier sources would require disambiguation first.",
        "Expansion parameters were tuned on computer science literature and may need adjustment elsewhere.",
        "User studies involved a small number of participants.",
    ],
    "tool-use": [
        "Environments were simulated, and real tools may fail in ways the simulations do not model.",
        "Recipes were evaluated within one organisation's task mix.",
        "Long-term maintenance of stored procedures is discussed but not measured over months.",
    ],
    "multi-tenancy": [
        "The analysis assumes that the database enforces policies correctly and does not consider administrator misuse.",
        "Performance was measured for a limited range of tenant sizes.",
        "Regulatory requirements vary by jurisdiction and are treated only in general terms.",
    ],
}


def compose_body(paper: dict, rng: random.Random) -> str:
    """Return the body text of one paper: background, abstract, setup and limitation."""
    topic = paper["topic"]
    background = rng.sample(_BACKGROUND[topic], 3)
    bench_a, bench_b = rng.sample(_BENCHMARKS[topic], 2)
    base_a, base_b = rng.sample(_BASELINES[topic], 2)
    limitation = rng.choice(_LIMITATIONS[topic])
    title = paper["title"]
    name = title.split(":", 1)[0] if ":" in title and len(title.split(":", 1)[0].split()) <= 2 else None
    subject = f"{name}" if name else "The approach studied here"
    repeats = rng.choice([3, 5])
    setup = (
        f"Experimental setup. {subject} is evaluated on {bench_a} and {bench_b}, "
        f"and compared with {base_a} and with {base_b}. "
        f"All configurations use the same data splits, and every reported figure is the mean of {repeats} runs. "
        f"Configuration files and labelled queries are released with the paper."
    )
    return "\n\n".join([
        "Introduction. " + " ".join(background),
        "Overview. " + paper["abstract"],
        setup,
        "Limitations. " + limitation,
    ])
