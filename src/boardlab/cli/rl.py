"""``boardlab rl ...``: the old spellings of the Connect Four Q-learning commands, kept for one release.

Each prints one deprecation line on stderr naming the new spelling, then runs the
new command with the same arguments:

=================================  ====================================================
old                                new
=================================  ====================================================
``rl train CONFIG | --resume RUN``  ``train c4-qlearning CONFIG | --resume RUN``
``rl runs``                         ``train c4-qlearning --list-runs``
``rl export RUN --out FILE``        ``train c4-qlearning --export RUN --out FILE``
``rl rank all-play-all|with-random``  ``experiment c4-ranking all-play-all|with-random``
``rl curve RUN...``                 ``experiment c4-curves RUN...``
``rl experiment c4-stages``         ``experiment c4-stages``
=================================  ====================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from boardlab.cli import plugin
from boardlab.cli.app import command, command_group, deprecated

rl = command_group(
    "rl",
    "Deprecated (removed in the next release): use boardlab train c4-qlearning, boardlab evaluate and "
    "boardlab experiment c4-stages | c4-ranking | c4-curves.",
)

#: the alias takes every argument as it comes and hands it on; --help too
FORWARD = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def _forward(ctx: typer.Context, old: str, new: str, cmd: Any, args: list[str]) -> Any:
    """Print the deprecation line, then run ``cmd`` (the new command, named by ``cmd.name``) on ``args``."""
    deprecated(old, new)
    group = "train" if " train " in new else "experiment"
    with cmd.make_context(f"{group} {cmd.name}", args, parent=ctx.find_root()) as sub:
        return cmd.invoke(sub)


@command("train", group=rl, context_settings=FORWARD, help="Deprecated: use boardlab train c4-qlearning (same arguments).")
def train(ctx: typer.Context) -> Any:
    return _forward(ctx, "boardlab rl train", "boardlab train c4-qlearning", plugin.train_command("c4-qlearning"), ctx.args)


@command("runs", group=rl, context_settings=FORWARD, help="Deprecated: use boardlab train c4-qlearning --list-runs.")
def runs(ctx: typer.Context) -> Any:
    return _forward(ctx, "boardlab rl runs", "boardlab train c4-qlearning --list-runs",
                    plugin.train_command("c4-qlearning"), ["--list-runs", *ctx.args])


@command("export", group=rl, help="Deprecated: use boardlab train c4-qlearning --export RUN --out FILE.")
def export(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument(help="Run name (or path).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Model file to write.")],
    snapshot: Annotated[Optional[int], typer.Option("--snapshot", help="Export the snapshot at this many games.")] = None,
    runs_dir: Annotated[Path, typer.Option("--runs-dir", help="Folder holding the runs.")] = Path("runs"),
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object: run, games_played, out, bytes.")] = False,
) -> Any:
    args = ["--export", run, "--out", str(out), "--runs-dir", str(runs_dir)]
    args += ["--snapshot", str(snapshot)] if snapshot is not None else []
    args += ["--json"] if json_out else []
    return _forward(ctx, "boardlab rl export", "boardlab train c4-qlearning --export RUN --out FILE",
                    plugin.train_command("c4-qlearning"), args)


@command("rank", group=rl, context_settings=FORWARD, help="Deprecated: use boardlab experiment c4-ranking (same arguments).")
def rank(ctx: typer.Context) -> Any:
    return _forward(ctx, "boardlab rl rank", "boardlab experiment c4-ranking", plugin.experiment_command("c4-ranking"), ctx.args)


@command("curve", group=rl, context_settings=FORWARD, help="Deprecated: use boardlab experiment c4-curves (same arguments).")
def curve(ctx: typer.Context) -> Any:
    return _forward(ctx, "boardlab rl curve", "boardlab experiment c4-curves", plugin.experiment_command("c4-curves"), ctx.args)


experiment = typer.Typer(name="experiment", help="Deprecated: use boardlab experiment.", no_args_is_help=True, add_completion=False)
rl.add_typer(experiment, name="experiment")


@command("c4-stages", group=experiment, context_settings=FORWARD, help="Deprecated: use boardlab experiment c4-stages (same arguments).")
def c4_stages(ctx: typer.Context) -> Any:
    return _forward(ctx, "boardlab rl experiment c4-stages", "boardlab experiment c4-stages",
                    plugin.experiment_command("c4-stages"), ctx.args)
