"""The devcontainer, the compose file, the start-up script and the workflow agree with each other and with
the code: one database image (full flavour, pinned by tag and digest), one set of credentials, the grants
of workshop.oracle_grants, the README's set-up command and the doctor after creation, a light
configuration without Oracle, and CI jobs that run what the issue asks."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from tests.oracle.test_devcontainer_config import COMPOSE, DEVCONTAINERS, ROOT, read_jsonc
from workshop.oracle_grants import GRANTS, grant_statements, readonly_user_statements

STARTDB = ROOT / ".devcontainer" / "oracle" / "startdb" / "01_workshop_user.sh"
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
IMAGE = re.compile(r"^gvenzl/oracle-free:(?P<tag>23\.26\.\d+-full)@sha256:[0-9a-f]{64}$")


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def test_the_database_image_is_full_and_pinned_by_tag_and_digest_in_both_places():
    image = compose()["services"]["oracle"]["image"]
    assert IMAGE.match(image), image
    assert "slim" not in image
    assert workflow()["jobs"]["oracle"]["services"]["oracle"]["image"] == image


def test_the_start_up_script_grants_exactly_workshop_oracle_grants():
    text = STARTDB.read_text().replace("\\$", "$")
    block = text[text.index("-- grants:"):text.index("-- end of grants")]
    statements = [line.rstrip(";") for line in block.splitlines()[1:] if line.strip()]
    assert statements == grant_statements("${WORKSHOP_USER}")
    assert all(g.reason for g in GRANTS) and len({g.label for g in GRANTS}) == len(GRANTS)
    assert "DB_DEVELOPER_ROLE" not in text and " DBA" not in text


def test_the_start_up_script_gives_the_read_only_user_only_create_session_and_marks_it_read_only():
    text = STARTDB.read_text()
    block = text[text.index("-- read-only grants:"):text.index("-- end of read-only grants")]
    statements = [line.rstrip(";") for line in block.splitlines()[1:] if line.strip()]
    assert statements == readonly_user_statements("${READONLY_USER}")
    after = text[text.index("-- end of read-only grants"):]
    assert "ALTER USER ${READONLY_USER} READ ONLY;" in after.split("exit")[0]
    assert not re.search(r"GRANT (READ|SELECT|EXECUTE)\b[^;]*TO \$\{READONLY_USER\}", text)


def test_every_grant_names_the_documented_owner():
    owners = {g.object_name: g.owner for g in GRANTS if g.kind == "object"}
    assert owners == {"DBMS_VECTOR": "SYS", "DBMS_VECTOR_CHAIN": "CTXSYS", "DBMS_HYBRID_VECTOR": "CTXSYS",
                      "DBMS_RLS": "SYS", "V_$VECTOR_MEMORY_POOL": "SYS"}
    assert "CREATE SEQUENCE" not in {g.privilege for g in GRANTS}


def test_the_start_up_script_runs_on_every_start_and_is_executable():
    oracle = compose()["services"]["oracle"]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in oracle["volumes"]}
    assert mounts["/container-entrypoint-startdb.d"] == "./oracle/startdb"
    assert (COMPOSE.parent / "oracle" / "startdb" / STARTDB.name).is_file()
    mode = subprocess.run(["git", "ls-files", "-s", str(STARTDB.relative_to(ROOT))], cwd=ROOT,
                          capture_output=True, text=True).stdout.split()[0]
    assert mode == "100755"


def test_one_set_of_credentials_and_a_dsn_that_names_the_service():
    services = compose()["services"]
    workspace, oracle = services["workspace"]["environment"], services["oracle"]["environment"]
    assert workspace["ORACLE_USER"] == oracle["WORKSHOP_USER"]
    assert workspace["ORACLE_PASSWORD"] == oracle["WORKSHOP_PASSWORD"]
    host, rest = workspace["ORACLE_DSN"].split(":", 1)
    assert host == "oracle" and rest == "1521/FREEPDB1"
    env = workflow()["jobs"]["oracle"]["env"]
    assert (env["ORACLE_USER"], env["ORACLE_PASSWORD"]) == (workspace["ORACLE_USER"], workspace["ORACLE_PASSWORD"])
    assert workspace["ORACLE_READONLY_USER"] == oracle["WORKSHOP_READONLY_USER"] != workspace["ORACLE_USER"]
    assert workspace["ORACLE_READONLY_PASSWORD"] == oracle["WORKSHOP_READONLY_PASSWORD"]
    assert (env["ORACLE_READONLY_USER"], env["ORACLE_READONLY_PASSWORD"]) == (
        workspace["ORACLE_READONLY_USER"], workspace["ORACLE_READONLY_PASSWORD"])
    assert env["ORACLE_DSN"] == "localhost:1521/FREEPDB1"


def test_the_workspace_waits_for_a_healthy_database_with_a_sized_vector_pool():
    services = compose()["services"]
    assert services["workspace"]["depends_on"]["oracle"]["condition"] == "service_healthy"
    health = services["oracle"]["healthcheck"]
    assert health["test"] == ["CMD", "healthcheck.sh"]
    assert int(services["oracle"]["environment"]["WORKSHOP_VECTOR_POOL_MB"]) >= 256
    assert "WORKSHOP_VECTOR_POOL_MB" in STARTDB.read_text()


def test_the_lifecycle_splits_what_a_prebuild_caches_from_the_database_part():
    """updateContentCommand (cached by a Codespaces prebuild) prepares everything that needs no database; the
    postCreateCommand (after the compose file waited for a healthy database) runs the database set-up and the
    doctor. Together they are the README's `bash scripts/setup.sh`."""
    main = read_jsonc(DEVCONTAINERS[0])
    assert main["updateContentCommand"] == "bash .devcontainer/prepare.sh"
    assert main["postCreateCommand"] == "bash .devcontainer/post-create.sh"
    prepare = (ROOT / ".devcontainer" / "prepare.sh").read_text()
    assert "bash scripts/setup.sh --no-database" in prepare and "workshop.setup" not in prepare
    assert "WORKSHOP_OAMP" in prepare and "bash scripts/setup_oamp_env.sh" in prepare
    script = (ROOT / ".devcontainer" / "post-create.sh").read_text()
    assert script.index("-m workshop.setup") < script.index("-m workshop.doctor")
    assert "bash scripts/setup.sh" in (ROOT / "README.md").read_text()
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    no_db = setup[setup.index('if [ "$NO_DATABASE" = "1" ]'):]
    assert no_db.index("ensure_embedding_model") < no_db.index("exec .venv/bin/python -m workshop.setup")
    readme = (ROOT / ".devcontainer" / "README.md").read_text()
    assert "## Prebuilds" in readme and "updateContentCommand" in readme
    assert main["forwardPorts"] == ["oracle:1521"] and main["hostRequirements"]["cpus"] >= 4


def test_the_light_configuration_has_no_oracle():
    light = read_jsonc(DEVCONTAINERS[1])
    assert "dockerComposeFile" not in light and "image" in light
    assert "ORACLE_DSN" not in str(light)
    assert light["postCreateCommand"].startswith("bash scripts/setup.sh") and "workshop.doctor" in light["postCreateCommand"]
    assert light["hostRequirements"]["cpus"] <= read_jsonc(DEVCONTAINERS[0])["hostRequirements"]["cpus"]


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_ci_runs_dot_ci_run_and_the_oracle_job_runs_setup_nbval_and_the_oracle_tests():
    jobs = workflow()["jobs"]
    assert "bash .ci/run" in _runs(jobs["embedded"])
    oracle = _runs(jobs["oracle"])
    for needle in ("01_workshop_user.sh", "bash scripts/setup.sh", "-m workshop.doctor",
                   "-m workshop.verify_oracle --full", "--output verify-oracle-report.md"):
        assert needle in oracle, needle
    assert oracle.index("bash scripts/setup.sh") < oracle.index("-m workshop.doctor") < oracle.index("--full")
    for name in ("embedded", "oracle"):
        cache = next(s for s in jobs[name]["steps"] if s.get("uses", "").startswith("actions/cache@"))
        assert "models" in cache["with"]["path"] and "venv" in cache["with"]["path"]
        assert "requirements" in cache["with"]["key"] and "workshop/models" in cache["with"]["key"]


def test_the_live_verification_runs_after_the_set_up_even_when_the_doctor_fails_and_its_report_is_kept():
    steps = workflow()["jobs"]["oracle"]["steps"]
    setup = next(s for s in steps if "bash scripts/setup.sh" in s.get("run", ""))
    verify = next(s for s in steps if "verify_oracle --full" in s.get("run", ""))
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert "!cancelled()" in verify["if"] and f"steps.{setup['id']}.outcome == 'success'" in verify["if"]
    assert upload["if"] == "always()" and "verify-oracle-report.md" in upload["with"]["path"]
    prepare = next(s for s in steps if "01_workshop_user.sh" in s.get("run", ""))
    assert "WORKSHOP_READONLY_USER=\"$ORACLE_READONLY_USER\"" in prepare["run"] and "tee startdb.log" in prepare["run"]


def test_ci_run_installs_the_pinned_validators():
    assert "requirements-validate.txt" in (ROOT / ".ci" / "run").read_text()
    pins = [line.split("#")[0].strip() for line in (ROOT / "requirements-validate.txt").read_text().splitlines()]
    pins = [p for p in pins if p]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", p) for p in pins), pins


def test_the_devcontainer_readme_lists_every_grant_with_its_reason():
    text = (ROOT / ".devcontainer" / "README.md").read_text()
    section = text[text.index("## The workshop user"):text.index("## The image")]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows == [f"| `{g.label}` | {g.reason} |" for g in GRANTS]
