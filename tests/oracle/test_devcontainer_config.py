"""Offline validation of the Oracle path's configuration: actionlint on the workflows, shellcheck on every
shell script, the Compose Specification schema on the compose file, a devcontainer.json schema and the
devcontainer CLI's own configuration reading on both devcontainer configurations. Each validator is also
shown to reject a broken file, so none of these tests can pass by not looking.

The validators come from requirements-validate.txt (installed by .ci/run) and @devcontainers/cli (npm,
installed by .ci/run into .ci-tools/). Without them the tests skip, except under CI=true, where a missing
validator is a failure."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).resolve().parent / "schemas"
DEVCONTAINERS = [ROOT / ".devcontainer" / "devcontainer.json", ROOT / ".devcontainer" / "light" / "devcontainer.json"]
COMPOSE = ROOT / ".devcontainer" / "compose.yaml"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def shell_scripts() -> list[Path]:
    found = [ROOT / ".ci" / "run", *sorted((ROOT / "scripts").glob("*.sh")),
             *sorted((ROOT / ".devcontainer").rglob("*.sh"))]
    return [p for p in found if p.is_file()]


def tool(name: str) -> str:
    """The validator's executable: next to this Python, on PATH, or in .ci-tools (npm)."""
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", ""),
                              str(ROOT / ".ci-tools" / "node_modules" / ".bin")])
    found = shutil.which(name, path=search)
    if found:
        return found
    message = f"{name} is not installed (pip install -r requirements-validate.txt; npm for the devcontainer CLI)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=120)


def read_jsonc(path: Path) -> dict:
    """devcontainer.json allows // comments; this project writes them on lines of their own only."""
    lines = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("//")]
    return json.loads("\n".join(lines))


# --------------------------------------------------------------------------- actionlint
def test_the_workflows_exist():
    assert [p.name for p in WORKFLOWS] == ["ci.yml"]


def test_actionlint_accepts_the_workflows():
    done = run(tool("actionlint"), "-no-color", *map(str, WORKFLOWS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    steps:\n"
                   "      - run: echo ${{ github.event.nosuch.title }}\n      - uses: actions/checkout@v5\n"
                   "        with:\n          not-an-input: 1\n")
    done = run(tool("actionlint"), "-no-color", str(bad))
    assert done.returncode != 0 and "not-an-input" in done.stdout


# --------------------------------------------------------------------------- shellcheck
def test_shellcheck_accepts_every_script():
    scripts = shell_scripts()
    assert len(scripts) >= 6, scripts
    done = run(tool("shellcheck"), "--severity=info", *map(str, scripts))
    assert done.returncode == 0, done.stdout + done.stderr


def test_shellcheck_rejects_a_broken_script(tmp_path):
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/bin/bash\nfor f in $(ls *.txt); do rm $f; done\n")
    assert run(tool("shellcheck"), str(bad)).returncode != 0


# --------------------------------------------------------------------------- compose schema
def test_compose_file_matches_the_compose_specification():
    done = run(tool("check-jsonschema"), "--schemafile", str(SCHEMAS / "compose-spec.json"), str(COMPOSE))
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_schema_rejects_a_misspelt_key(tmp_path):
    bad = tmp_path / "compose.yaml"
    bad.write_text(COMPOSE.read_text().replace("healthcheck:", "health_check:", 1))
    done = run(tool("check-jsonschema"), "--schemafile", str(SCHEMAS / "compose-spec.json"), str(bad))
    assert done.returncode != 0 and "health_check" in done.stdout + done.stderr


# --------------------------------------------------------------------------- devcontainer.json
@pytest.mark.parametrize("path", DEVCONTAINERS, ids=lambda p: p.parent.name)
def test_devcontainer_json_matches_the_schema(path):
    import jsonschema
    schema = json.loads((SCHEMAS / "devcontainer.subset.schema.json").read_text())
    jsonschema.validate(read_jsonc(path), schema)


@pytest.mark.parametrize("change", [
    lambda c: c.update(postCreateCommands=c.pop("postCreateCommand")),          # misspelt key
    lambda c: c["hostRequirements"].update(memory="8 GB"),                       # wrong unit syntax
    lambda c: c.update(image="python:3.11"),                                     # image and compose together
], ids=["misspelt-key", "memory-syntax", "image-and-compose"])
def test_devcontainer_schema_rejects_mistakes(change):
    import jsonschema
    schema = json.loads((SCHEMAS / "devcontainer.subset.schema.json").read_text())
    config = read_jsonc(DEVCONTAINERS[0])
    change(config)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, schema)


def _stub_docker(tmp_path: Path) -> Path:
    """`devcontainer read-configuration` asks docker for running containers; with no Docker here, a stub
    answers 'none' to `docker ps` and refuses everything else (so nothing is started or pulled)."""
    stub = tmp_path / "docker"
    stub.write_text('#!/bin/sh\nif [ "$1" = ps ]; then exit 0; fi\necho "stub docker: $*" >&2\nexit 1\n')
    stub.chmod(0o755)
    return stub


@pytest.mark.parametrize("path", DEVCONTAINERS, ids=lambda p: p.parent.name)
def test_devcontainer_cli_reads_the_configuration(path, tmp_path):
    """The CLI parses each file (JSONC) to exactly what this project means. It does not check property names
    or types (it accepts '{"image": 5}'), which is why the schema test above exists."""
    done = run(tool("devcontainer"), "read-configuration", "--workspace-folder", str(ROOT), "--config", str(path),
               "--docker-path", str(_stub_docker(tmp_path)))
    assert done.returncode == 0, done.stderr[-2000:]
    config = json.loads(done.stdout)["configuration"]
    config.pop("configFilePath")
    expected = json.loads(json.dumps(read_jsonc(path)).replace("${localWorkspaceFolderBasename}", ROOT.name))
    assert config == expected


def test_devcontainer_cli_fails_on_a_missing_configuration(tmp_path):
    done = run(tool("devcontainer"), "read-configuration", "--workspace-folder", str(ROOT), "--config",
               str(tmp_path / "nosuch.json"), "--docker-path", str(_stub_docker(tmp_path)))
    assert done.returncode != 0
