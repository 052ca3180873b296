"""Builds the wheel with the client generated from the API's spec.

`saboteur_client` (openapi-python-client, configured as the example clients are) is generated
into a temporary folder from `../../openapi/openapi.json` (or, in an sdist, the copy it
carries) and packed next to `saboteur_sdk`, with a `py.typed` and `saboteur_client/event.py`:
`Event`, the union of the event types the spec names, and `API_VERSION`, the spec's
`info.version` (sent as `Api-Version`). The package's version is the spec's `info.version`.
Nothing generated is kept in the source tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

HERE = Path(__file__).resolve().parent


def found(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"none of {', '.join(map(str, candidates))}")


def spec_path() -> Path:
    return found(HERE / "../../openapi/openapi.json", HERE / "openapi.json").resolve()


def config_path() -> Path:
    return found(HERE / "../../tests/clients/python/config.yaml", HERE / "config.yaml").resolve()


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict[str, Any]) -> None:
        metadata["version"] = json.loads(spec_path().read_text())["info"]["version"]


def event_alias(spec: dict[str, Any]) -> str:
    """`saboteur_client/event.py`: the spec's `Event` (one of its variants) as a type alias of
    the generated classes, named as the generator names them (after their schemas), and the
    spec's version."""
    names = sorted(ref.rsplit("/", 1)[1] for ref in spec["components"]["schemas"]["Event"]["discriminator"]["mapping"].values())
    imports = "".join(f"from .models import {name}\n" for name in names)
    union = "".join(f"    | {name}\n" for name in names).replace("    | ", "    ", 1)
    version = json.dumps(spec["info"]["version"])
    return (
        '"""The spec\'s `Event`: every event type it names (generated at build time)."""\n\n'
        f"from typing import TypeAlias\n\n{imports}\nEvent: TypeAlias = (\n{union})\n\n"
        f"API_VERSION = {version}\n"
        '"""The API version this client was generated from (the spec\'s `info.version`): sent as\n'
        '`Api-Version`, events of types a later version introduced come wrapped as `NewerEvent`."""\n'
    )


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        self.out = Path(tempfile.mkdtemp(prefix="saboteur-client-"))
        package = self.out / "saboteur_client"
        env = dict(os.environ)
        # The generator formats its output with ruff, which it installs beside itself.
        try:
            from ruff.__main__ import find_ruff_bin

            env["PATH"] = os.pathsep.join([os.path.dirname(find_ruff_bin()), env.get("PATH", "")])
        except ImportError:
            pass
        env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env["PATH"]])
        subprocess.run(
            [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(spec_path()),
             "--config", str(config_path()), "--meta", "none", "--output-path", str(package)],
            check=True,
            env=env,
        )
        (package / "py.typed").write_text("")
        (package / "event.py").write_text(event_alias(json.loads(spec_path().read_text())))
        build_data["force_include"][str(package)] = "saboteur_client"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.target_name == "wheel":
            shutil.rmtree(self.out, ignore_errors=True)
