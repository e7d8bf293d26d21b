"""Part 08: agent memory the Oracle AI Agent Memory (OAMP) way, and its embedded mirror.

- `policy`: a rule-based extraction policy (what OAMP's custom extraction instructions ask an LLM to do),
  turning a support conversation into typed memory records with inherited metadata;
- `store`: the AGENT_MEMORIES table (scope columns, JSON metadata, an in-database embedding, a CONTEXT
  index with SYNC (ON COMMIT)) and its vector-only search;
- `evaluation`: the seed's five memories and five queries, scored as the rank of the expected memory;
- `oamp`: whether the oracleagentmemory package can run here, and the support policy texts;
- `oamp_static`: the static check of the notebook's OAMP code against the installed package.
"""
