"""The README shows what the tool prints.

Every console block line starting with ``$ .venv/bin/fstheory`` is run (in this process, through
``fstheory.cli.main``), and the lines below it, up to the next command or the block's end, must
be its whole output (stdout then stderr). A line ``...`` stands for lines left out; it is allowed
only when the text just before the block says so in words (mentions `...`), and then the shown
lines must appear in order with only the ``...`` gaps between them. The Python blocks are run as
doctests. The README starts with exactly the two commands ``make reproduce-tables`` and
``make test``.
"""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from fstheory.cli import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
BLOCKS = [(m.group(1), m.group(2), README[: m.start()]) for m in
          re.finditer(r"^```(\w*)\n(.*?)^```$", README, flags=re.S | re.M)]
PROMPT = "$ .venv/bin/fstheory "


def _commands():
    out = []
    for _lang, body, before in BLOCKS:
        lines = body.rstrip("\n").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for n, i in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            intro = before[before.rfind("\n\n", 0, len(before) - 1):]
            out.append((lines[i], lines[i + 1:end], intro))
    return out


COMMANDS = _commands()


def test_the_readme_starts_with_the_two_commands():
    first = BLOCKS[0]
    assert README.startswith("# fstheory\n\n```\n")
    assert first[1] == "make reproduce-tables\nmake test\n"
    assert len(COMMANDS) >= 4


def _matches(shown: list[str], printed: list[str]) -> bool:
    """``shown`` equals ``printed``, '...' lines standing for one or more lines left out."""
    pattern = "".join("(?:.*\n)+" if line == "..." else re.escape(line) + "\n" for line in shown)
    return re.fullmatch(pattern, "".join(line + "\n" for line in printed)) is not None


@pytest.mark.parametrize("command, shown, intro", COMMANDS, ids=[c[0][2:] for c in COMMANDS])
def test_each_command_prints_what_the_readme_shows(capsys, command, shown, intro):
    assert command.startswith(PROMPT), f"only fstheory commands are shown: {command}"
    main(shlex.split(command[len(PROMPT):]))
    out, err = capsys.readouterr()
    printed = (out + err).rstrip("\n").split("\n")
    if "..." in shown:
        assert "`...`" in intro, f"the text before '{command}' must say that `...` marks left-out lines"
    else:
        assert shown == printed
    assert _matches(shown, printed), "\n".join(printed)


def test_the_python_examples_run():
    blocks = [body for lang, body, _ in BLOCKS if lang == "python"]
    assert blocks
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, body in enumerate(blocks):
        runner.run(parser.get_doctest(body, {}, f"README python block {i + 1}", "README.md", 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 5 and result.failed == 0
