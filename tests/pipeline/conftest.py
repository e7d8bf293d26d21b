from tests.pipeline.kb_db import kb_db, kb_template, secured, secured_db  # noqa: F401
