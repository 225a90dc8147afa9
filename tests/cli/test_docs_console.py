"""docs/adding-a-scenario.md shows what the tool prints: every console line starting with
``$ .venv/bin/fstheory`` is run and the lines below it must be its output, with the README's
rule for ``...`` (lines left out, said so in the text before the block)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from fstheory.cli import main
from test_readme import PROMPT, _matches

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-scenario.md").read_text()


def _commands():
    out = []
    for m in re.finditer(r"^```\n(.*?)^```$", GUIDE, flags=re.S | re.M):
        lines = m.group(1).rstrip("\n").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for n, i in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            out.append((lines[i], lines[i + 1:end]))
    return out


COMMANDS = _commands()


def test_the_guide_shows_the_shipped_examples():
    assert {c.split()[4] for c, _ in COMMANDS if "--scenario " in c} >= {
        "three-variable", "threshold", "xor", "circle", "mixed"}


@pytest.mark.slow
@pytest.mark.parametrize("command, shown", COMMANDS, ids=[c[0][2:] for c in COMMANDS])
def test_each_command_prints_what_the_guide_shows(capsys, command, shown):
    assert command.startswith(PROMPT)
    main(shlex.split(command[len(PROMPT):]))
    out, err = capsys.readouterr()
    printed = (out + err).rstrip("\n").split("\n")
    assert _matches(shown, printed), "\n".join(printed)
