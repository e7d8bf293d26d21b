"""Part 06: measuring retrieval. Reference metrics, the ablation runner, paired bootstrap
intervals and the labelling flow (retrieval_result logs -> harvest -> RETRIEVAL_LABELS -> JSONL)."""
