"""The Docker image holds the installed wheel and nothing of the build, and compose.yaml runs
it as the README says (docker itself cannot run here: the image's command line is exercised
by tests/e2e, the image's layout and the compose file's wiring are checked here)."""

from __future__ import annotations

import re

import yaml

from service.server.config import Settings
from tests.support.servers import ROOT, dockerfile_command


def test_the_image_stage_copies_only_the_built_wheel_and_drops_it() -> None:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    build, image = text.split("\nFROM ")[-2:]
    assert " AS build" in build and "pip wheel" in build
    copies = re.findall(r"^(?:COPY|ADD) (.*)$", image, re.M)
    assert copies == ["--from=build /wheels /wheels"], copies
    assert re.search(r"pip install /wheels/\*\.whl .*rm -rf /wheels", image)


def test_the_build_context_leaves_out_build_leftovers() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for leftover in (".venv", "build", "dist", "**/*.egg-info", "**/__pycache__", "**/node_modules", ".git"):
        assert leftover in ignored


def test_compose_puts_two_nodes_on_one_redis_behind_one_address() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "referee-1", "referee-2", "proxy"}

    redis = services["redis"]
    assert "noeviction" in redis["command"] and redis["healthcheck"]["test"][-1] == "ping"

    _, image_env = dockerfile_command()
    node_port = image_env["REFEREE_BIND"].rsplit(":", 1)[1]
    for name in ("referee-1", "referee-2"):
        node = services[name]
        assert node["build"] == "." and node["depends_on"] == {"redis": {"condition": "service_healthy"}}
        env = node["environment"]
        assert env["REDIS_URL"].startswith("redis://redis:6379/")
        assert env["REFEREE_SECRET"].startswith("${REFEREE_SECRET:?"), "one shared secret, required"
        settings = Settings.from_env({**env, "REFEREE_SECRET": "s"})
        assert (settings.store_kind, settings.proxy_hops) == ("redis", 1)

    proxy = services["proxy"]
    assert proxy["ports"] == ["8000:8000"]
    assert proxy["depends_on"] == {n: {"condition": "service_healthy"} for n in ("referee-1", "referee-2")}
    mount, target = proxy["volumes"][0].split(":")[:2]
    nginx = (ROOT / mount).read_text()
    assert target == "/etc/nginx/conf.d/default.conf"
    assert re.findall(r"^\s*server (\S+?):(\d+)", nginx, re.M) == [("referee-1", node_port), ("referee-2", node_port)]
    assert re.search(r"^\s*listen 8000;", nginx, re.M)
    assert re.search(r"proxy_buffering off;", nginx), "event streams pass unbuffered"
    assert "X-Forwarded-For $remote_addr" in nginx


def test_the_readme_runs_compose_as_written() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("### Docker compose", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert "export REFEREE_SECRET=" in block and "docker compose up --build" in block
    assert "http://127.0.0.1:8000/readyz" in block
