"""Tests marked `oracle`: the Oracle-only branches of workshop/ and checkpoints/ against a live Oracle AI
Database 26ai, after `python -m workshop.setup` (the Oracle job of .github/workflows/ci.yml). Without
ORACLE_DSN they skip with the reason. test_oracle_branches.py runs the same branches on a scripted cursor."""
from __future__ import annotations

import pytest

from checkpoints import part01
from workshop import doctor, schema
from workshop import setup as setup_mod
from workshop import verify_oracle as vo
from workshop.oracle_grants import missing_grants

pytestmark = pytest.mark.oracle


def test_the_connection_is_oracle_not_the_embedded_engine(live_oracle):
    assert not setup_mod.is_embedded(live_oracle) and setup_mod.engine_of(live_oracle) == "oracle"
    assert "Oracle" in setup_mod.banner(live_oracle)
    assert part01.answers_exactly(live_oracle) is False


def test_the_image_has_oracle_text(live_oracle):
    assert setup_mod.oracle_text_installed(live_oracle)
    assert doctor.check_oracle_text_installed(live_oracle).ok


def test_the_workshop_user_holds_every_grant(live_oracle):
    assert [g.label for g in missing_grants(live_oracle)] == []


def test_the_vector_pool_is_in_effect(live_oracle):
    result = doctor.check_vector_pool(live_oracle)
    assert result.ok and "MB allocated" in result.detail, result


def test_the_edition_offers_dbms_rls(live_oracle):
    assert doctor.check_edition(live_oracle).ok


def test_every_doctor_check_passes_after_the_set_up(live_oracle):
    failed = [(r.name, r.detail, r.advice) for r in doctor.run_checks(live_oracle) if not r.ok]
    assert failed == []


def test_the_set_up_found_both_models_and_nothing_was_refused(live_oracle):
    found = setup_mod.existing_models(live_oracle)
    assert found[schema.EMBEDDING_MODEL.name] == "EMBEDDING" and found[schema.RERANKER_MODEL.name] == "REGRESSION"
    assert setup_mod.RERANKER_REFUSED_KEY not in setup_mod.read_meta(live_oracle)


def test_a_second_set_up_changes_nothing(live_oracle):
    report = setup_mod.build(live_oracle, progress=False, log=lambda _: None)
    assert report.actions == [] and report.engine == "oracle"


@pytest.mark.parametrize("step", vo.DATABASE_STEPS, ids=lambda f: f.__name__)
def test_each_first_live_test_step_passes(live_oracle, step):
    failed = [(s.name, s.detail) for s in step(live_oracle) if s.status == "FAIL"]
    assert failed == []


def test_the_read_only_user_reads_what_part_07_needs_and_writes_nothing(live_oracle):
    """H1 of issue 20: the start-up script's WORKSHOP_RO with the owner's reader grants."""
    assert doctor.check_readonly_user(live_oracle).ok, doctor.check_readonly_user(live_oracle)
    from workshop import verify_probes
    failed = [(s.name, s.detail) for s in verify_probes.readonly_session(live_oracle) if s.status == "FAIL"]
    assert failed == []


def test_the_ctxsys_packages_are_granted_under_their_real_owner(live_oracle):
    """H3 of issue 20: EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN and CTXSYS.DBMS_HYBRID_VECTOR took."""
    from workshop import verify_probes
    direct = [s for s in verify_probes.ctxsys_packages(live_oracle) if "directly" in s.name]
    assert [s.status for s in direct] == ["PASS", "PASS"], direct
