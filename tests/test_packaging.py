"""The Docker image holds the installed wheel and nothing of the build (docker itself cannot
run here: the image's command line is exercised by tests/e2e, its layout is checked here)."""

from __future__ import annotations

import re

from tests.support.servers import ROOT


def test_the_image_stage_copies_only_the_built_wheel_and_drops_it() -> None:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    build, image = text.split("\nFROM ")[-2:]
    assert " AS build" in build and "pip wheel" in build
    copies = re.findall(r"^(?:COPY|ADD) (.*)$", image, re.M)
    assert copies == ["--from=build /wheels /wheels"], copies
    assert re.search(r"pip install /wheels/\*\.whl .*rm -rf /wheels", image)


def test_the_build_context_leaves_out_build_leftovers() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for leftover in (".venv", "build", "dist", "**/*.egg-info", "**/__pycache__"):
        assert leftover in ignored
