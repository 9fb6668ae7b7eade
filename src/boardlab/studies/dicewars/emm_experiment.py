"""``dw-emm`` measured against the Dice Wars course's reference bots.

Seat-fair measurements, all in the arena's resumable store with the course's rotations
(per board every rotation of one group, on one seed, so the same map, deal and chance stream):

* **course**: the agent graded as the course graded a student's bot (its script's
  ``--ai-under-test``): in every game, with three of the course's five reference bots (dt.ste,
  dt.sdc, dt.wpm_c, the template, dt.rand), the one it has met least among them. **course-baseline**
  is dt.ste graded the same way against the other four, the like-for-like reference for the
  course's own tournament, where dt.ste won 47.8 %;
* **four-player**: ``dw-emm`` with dt.ste, dt.sdc and dt.wpm_c, the strongest three reference bots
  in every game (a harder table than the course's);
* **duel**: ``dw-emm`` against ``dw-ste``, two players, seats rotated (the first player wins about
  70 % of duels between reference bots, so every board is played from both seats);
* **paired**: the agent in place of dt.ste. Two tournaments with the same opponents (dt.sdc,
  dt.wpm_c, dt.stei) and the same seed have the same schedule, game for game: the same boards,
  seats and chance streams, with agent 0 either ``dw-ste`` or the agent. The paired difference of
  agent 0's wins, with a 95 % interval that treats each board (its rotations together) as one
  sample, says how much the agent gains over dt.ste where it sits. Ablations (other specs of the
  agent) are played in the same place, so every variant is compared on the same games.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.tournament import TournamentConfig
from boardlab.core.errors import BoardlabError
from boardlab.studies.dicewars.tournament import COURSE_RESULT, DEFAULT_AGENTS, configure, full_report, run

FOUR_OPPONENTS = ("dw-ste", "dw-sdc", "dw-wpm")
PAIRED_OPPONENTS = ("dw-sdc", "dw-wpm", "dw-stei")
BASELINE = "dw-ste"


def configs(agent: str, boards: int, seed: int, ablations: Sequence[str] = (), duel_boards: int | None = None,
            game: str = "dicewars") -> dict[str, TournamentConfig]:
    """Every tournament of the experiment, by name (``ablation:SPEC`` for each ablation)."""
    out = {
        "course": configure(boards, (agent, *DEFAULT_AGENTS), 4, seed, game, fmt="rotations-under-test"),
        # dt.ste against the other four bots, as it played in the course's tournament
        "course-baseline": configure(boards, (BASELINE, *(a for a in DEFAULT_AGENTS if a != BASELINE)), 4, seed, game,
                                     fmt="rotations-under-test"),
        "four-player": configure(boards, (agent, *FOUR_OPPONENTS), 4, seed, game),
        "duel": configure(duel_boards or boards, (agent, BASELINE), 2, seed, game),
        "paired-baseline": configure(boards, (BASELINE, *PAIRED_OPPONENTS), 4, seed, game),
        "paired-agent": configure(boards, (agent, *PAIRED_OPPONENTS), 4, seed, game),
    }
    for spec in ablations:
        if spec.split(":")[0] != agent.split(":")[0]:
            raise BoardlabError(f"--ablation {spec!r}: an ablation is a spec of the agent under test ({agent.split(':')[0]})")
        out[f"ablation:{spec}"] = configure(boards, (spec, *PAIRED_OPPONENTS), 4, seed, game)
    return out


def agent0_wins(results: Sequence[GameResult]) -> dict[int, int]:
    """Game index -> 1 when agent 0 of the tournament won it, else 0."""
    out = {}
    for r in results:
        seat = r.seats.index(0)
        out[r.index] = int(r.record.get("end") == "won" and r.returns[seat] > 0)
    return out


def paired_difference(base: Sequence[GameResult], other: Sequence[GameResult], players: int) -> dict[str, Any]:
    """Agent 0's win rate in ``other`` minus that in ``base``, over the games both have, with a 95 %
    interval from the spread of the per-board differences (a board's rotations share its map and
    deal, so they are one sample, not ``players`` independent ones)."""
    a, b = agent0_wins(base), agent0_wins(other)
    common = sorted(set(a) & set(b))
    # whole boards only: a board cut short (a tournament still running) would weigh its seats unevenly
    count: dict[int, int] = {}
    for i in common:
        count[i // players] = count.get(i // players, 0) + 1
    common = [i for i in common if count[i // players] == players]
    boards: dict[int, int] = {}
    for i in common:
        boards[i // players] = boards.get(i // players, 0) + b[i] - a[i]
    n_boards, games = len(boards), len(common)
    if n_boards == 0:
        return {"games": 0, "boards": 0, "difference": None, "low": None, "high": None}
    diffs = [v / players for v in boards.values()]
    mean = sum(diffs) / n_boards
    if n_boards > 1:
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n_boards - 1))
        from scipy.stats import t

        half = float(t.ppf(0.975, n_boards - 1)) * sd / math.sqrt(n_boards)
    else:
        half = math.inf
    base_wins, other_wins = sum(a[i] for i in common), sum(b[i] for i in common)
    return {"games": games, "boards": n_boards, "base_wins": base_wins, "wins": other_wins,
            "base_rate": base_wins / games, "rate": other_wins / games,
            "difference": mean, "low": mean - half, "high": mean + half,
            "games_changed": sum(a[i] != b[i] for i in common)}


def agent_row(report: dict[str, Any]) -> dict[str, Any]:
    """The row of agent 0 (the agent under test) in a tournament summary."""
    return report["bots"][0]


def run_all(cfgs: dict[str, TournamentConfig], store: ResultStore, workers: int = 1, command: str = "",
            on_game: Callable[[str, Any], None] | None = None) -> dict[str, Any]:
    """Play what is missing of every tournament, then report each and the paired differences."""
    played = 0
    for name, config in cfgs.items():
        _, now = run(config, store, workers, f"{command} [{name}]",
                     on_game=None if on_game is None else (lambda update, name=name: on_game(name, update)))
        played += now
    reports = {name: full_report(store, config) for name, config in cfgs.items()}
    base = store.games(cfgs["paired-baseline"].id)
    paired = {name: paired_difference(base, store.games(config.id), 4) | {"agent": config.agents[0]}
              for name, config in cfgs.items() if name == "paired-agent" or name.startswith("ablation:")}
    rows = {}
    for name, report in reports.items():
        row = agent_row(report)
        rows[name] = {"agent": row["agent"], "games": row["games"], "wins": row["wins"], "win_rate": row["win_rate"],
                      "win_low": row["win_low"], "win_high": row["win_high"], "search": row.get("search"),
                      "tournament": report["tournament"]}
    return {"tournaments": rows, "paired": paired, "played": played, "reports": reports}


def markdown(result: dict[str, Any]) -> str:
    lines = ["| measurement | agent | games | wins | win rate (95 %) | ms per decision | nodes per search |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: |"]
    for name, row in result["tournaments"].items():
        f = row.get("search") or {}
        ms = "" if not f.get("seconds_per_decision") else f"{1000 * f['seconds_per_decision']:.1f}"
        nodes = "" if not f.get("nodes_per_search") else f"{f['nodes_per_search']:.0f}"
        rate = "" if row["win_rate"] is None else (f"{100 * row['win_rate']:.1f} % ({100 * row['win_low']:.1f}–"
                                                   f"{100 * row['win_high']:.1f})")
        lines.append(f"| {name} | {row['agent']} | {row['games']} | {row['wins']} | {rate} | {ms} | {nodes} |")
    lines += ["", f"course: the agent in every game with three of {', '.join(DEFAULT_AGENTS)} (the course's "
              f"--ai-under-test); course-baseline: {BASELINE} the same way against the other four. In the course's "
              f"own tournament dt.ste won {100 * COURSE_RESULT[BASELINE]:.1f} %."]
    lines += ["", "| in place of dt.ste | games | dt.ste's wins | its wins | difference (95 %) |",
              "| --- | ---: | ---: | ---: | --- |"]
    for _name, p in result["paired"].items():
        if p["difference"] is None:
            continue
        lines.append(f"| {p['agent']} | {p['games']} | {p['base_wins']} | {p['wins']} | {100 * p['difference']:+.1f} "
                     f"({100 * p['low']:+.1f} to {100 * p['high']:+.1f}) |")
    return "\n".join(lines)
