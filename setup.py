"""Packages of the wheel: ``service``, ``schemas`` and the game data as ``service.seeds``.

The game data stays in the repository's top-level ``seeds/`` (one folder per game, JSON) and
ships inside the package under ``service/seeds/``, where ``service.engine.seeds`` reads it with
importlib.resources: an installed referee needs no checkout. pyproject.toml cannot both find
packages and add one mapped from another folder, hence these few lines.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["service", "service.*", "schemas", "schemas.*"]), "service.seeds"],
    package_dir={"service.seeds": "seeds"},
)
