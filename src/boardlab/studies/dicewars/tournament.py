"""The Dice Wars course's tournament protocol, with boardlab's reimplemented reference bots.

The course (FIT VUT SUI, 2020) measured every student AI against five reference bots in
4-player games: per board, a group of 4 of the bots in a random order played all 4 rotations
of that order on the same board with the same dice (the course engine's
``scripts/dicewars-tournament.py``; see the Dice Wars rules (docs/references.md)). Its own result
for the reference bots alone, 100 boards x 4 rotations, is :data:`COURSE_RESULT`. :func:`run` plays
the same protocol here: the arena's ``rotations`` format (the same seed for a board's rotations, so
the same map, ownership, dice and chance stream), stored in the arena's SQLite store and resumable,
and :func:`summary` tabulates wins, win rate with its 95 % Wilson interval, and the games the rules
cancelled (stalled: 8 rounds without a battle; battle limit: 10,000 battles), beside the course's
figure for each bot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from boardlab.arena.report import tournament_section
from boardlab.arena.stats import wilson
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.tournament import Progress, TournamentConfig, play_missing, prepare
from boardlab.core.errors import BoardlabError

#: the course's own 4-player result on its engine (100 boards x 4 rotations), win rate by bot
COURSE_RESULT = {"dw-ste": 0.478, "dw-sdc": 0.316, "dw-wpm": 0.278, "dw-template": 0.104, "dw-rand": 0.069}
#: the course's names of the bots
COURSE_NAMES = {"dw-ste": "dt.ste", "dw-sdc": "dt.sdc", "dw-wpm": "dt.wpm_c", "dw-template": "xlogin00 (template)",
                "dw-rand": "dt.rand", "dw-stei": "dt.stei"}
DEFAULT_AGENTS = ("dw-ste", "dw-sdc", "dw-wpm", "dw-template", "dw-rand")
#: how far (win-rate points) a bot may be from the course's figure and still count as reproduced
TOLERANCE = 0.06


def configure(boards: int = 100, agents: Sequence[str] = DEFAULT_AGENTS, players: int = 4, seed: int = 2020,
              game: str = "dicewars", fmt: str = "rotations") -> TournamentConfig:
    """``fmt="rotations-under-test"`` seats the first agent in every game, as the course graded a student's bot."""
    if boards < 1:
        raise BoardlabError("--boards must be at least 1")
    return prepare(game, list(agents), players=players, games=boards, fmt=fmt, seed=seed)


def run(config: TournamentConfig, store: ResultStore, workers: int = 1, command: str = "",
        on_game: Callable[[Progress], None] | None = None) -> tuple[int, int]:
    """Play what is missing of the tournament; (already stored, played now)."""
    count = play_missing(config, store, command=command, workers=workers, on_game=on_game)
    return count.already_stored, count.played


def summary(config: TournamentConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    """Per bot: games, wins, win rate (95 % interval), games cancelled by the rules, the course's figure."""
    names = list(config.agents)
    rows = []
    for number, name in enumerate(names):
        games = wins = stalled = limit = 0
        for result in results:
            if number not in result.seats:
                continue
            games += 1
            seat = result.seats.index(number)
            end = result.record.get("end")
            if end == "won" and result.returns[seat] > 0:
                wins += 1
            stalled += end == "stalled"
            limit += end == "battle-limit"
        low, high = wilson(wins, games)
        base = name.split(":")[0]
        search = search_facts(results, number)
        course = COURSE_RESULT.get(name) if name == base else None
        rate = wins / games if games else None
        rows.append({
            "agent": name, "course_name": COURSE_NAMES.get(base), "games": games, "wins": wins,
            "win_rate": rate, "win_low": low, "win_high": high,
            "cancelled": stalled + limit, "stalled": stalled, "battle_limit": limit,
            "course_win_rate": course,
            "difference": None if course is None or rate is None else rate - course,
            "reproduced": None if course is None or rate is None else abs(rate - course) <= TOLERANCE,
            **({"search": search} if search else {}),
        })
    ends = {"won": 0, "stalled": 0, "battle-limit": 0}
    for result in results:
        end = result.record.get("end") or "unknown"
        ends[end] = ends.get(end, 0) + 1
    return {"tournament": config.id, "config": config.to_dict(), "games": len(results),
            "boards": config.games, "endings": ends, "bots": rows, "tolerance": TOLERANCE}


def search_facts(results: Sequence[GameResult], number: int) -> dict[str, Any] | None:
    """What a searching bot (``dw-emm``) reported about its decisions over the games of agent ``number``:
    decisions, searches, nodes, seconds (mean and largest per decision), its lowest Fischer clock and
    clock overruns; None for bots that report nothing."""
    total: dict[str, float] = {}
    largest = {"max_seconds": 0.0, "max_nodes": 0}
    clock_min = None
    for result in results:
        if number not in result.seats or not result.stats:
            continue
        facts = (result.stats.get("agents") or [None] * len(result.seats))[result.seats.index(number)]
        if not facts or "decisions" not in facts:
            continue
        for key in ("decisions", "searched", "as_ste", "nodes", "seconds", "timeouts"):
            total[key] = total.get(key, 0) + facts.get(key, 0)
        for key in largest:
            largest[key] = max(largest[key], facts.get(key, 0))
        if facts.get("clock_min") is not None:
            clock_min = facts["clock_min"] if clock_min is None else min(clock_min, facts["clock_min"])
    if not total:
        return None
    decisions, searched = total["decisions"], total["searched"]
    return {**{k: (int(v) if k != "seconds" else v) for k, v in total.items()}, **largest,
            "seconds_per_decision": total["seconds"] / decisions if decisions else None,
            "nodes_per_search": total["nodes"] / searched if searched else None, "clock_min": clock_min}


def kernel_policy(spec: str) -> int:
    """The compiled twin of a bot spec (``dw-wpm:quirks=false`` is ``dw-wpm-fixed``)."""
    from boardlab.agents.registry import make_agent
    from boardlab.bots.dicewars.compiled import POLICIES, WPM, WPM_FIXED

    agent = make_agent(spec)
    if agent.name == "dw-wpm":
        return WPM if agent.config["quirks"] else WPM_FIXED
    if agent.name not in POLICIES or agent.name == "uniform":
        known = ", ".join("dw-wpm:quirks=false" if p == "dw-wpm-fixed" else p for p in POLICIES if p != "uniform")
        raise BoardlabError(f"{spec!r} has no compiled twin (compiled bots: {known})")
    return POLICIES[agent.name]


def compiled_estimate(boards: int, agents: Sequence[str] = DEFAULT_AGENTS, players: int = 4, seed: int = 2020,
                      game: str = "dicewars") -> dict[str, Any]:
    """The same protocol on the compiled engine, for many more boards: per board the schedule's group in
    every rotation, on the board's map, with the same deal and the same random stream for every rotation
    (the compiled engine's own stream, so not the same games as the Python arena's)."""
    from boardlab.arena.schedule import make_schedule
    from boardlab.arena.tournament import game_for_players
    from boardlab.bots.dicewars.compiled import CompiledBots
    from boardlab.core.rng import derive_seed

    the_game = game_for_players(game, players)
    bots = CompiledBots(the_game)
    policies = [kernel_policy(a) for a in agents]
    wins = [0] * len(agents)
    games = [0] * len(agents)
    schedule = make_schedule(len(agents), players, boards, "rotations", seed)
    for scheduled in schedule:
        board = the_game.new_initial_state(scheduled.seed).map
        result = bots.bot_games([board], 1, [policies[a] for a in scheduled.seats],
                                seed=derive_seed(scheduled.seed, "compiled"))
        for seat, a in enumerate(scheduled.seats):
            games[a] += 1
            wins[a] += result["wins"][seat]
    rows = []
    for a, name in enumerate(agents):
        low, high = wilson(wins[a], games[a])
        course = COURSE_RESULT.get(name)
        rate = wins[a] / games[a] if games[a] else None
        rows.append({"agent": name, "games": games[a], "wins": wins[a], "win_rate": rate, "win_low": low,
                     "win_high": high, "course_win_rate": course,
                     "difference": None if course is None or rate is None else rate - course})
    return {"boards": boards, "games": len(schedule), "seed": seed, "bots": rows}


def full_report(store: ResultStore, config: TournamentConfig) -> dict[str, Any]:
    """:func:`summary` plus the arena's own section (ratings, seats, endings) for the tournament."""
    results = store.games(config.id)
    info = store.tournament(config.id)
    out = summary(config, results)
    out["config"] = info.config  # as stored: the agents' options it was begun with, not today's
    out["arena"] = tournament_section(info, results)
    return out


def markdown_table(report: dict[str, Any]) -> str:
    """The comparison table for docs/: each bot's win rate here beside the course's."""
    lines = ["| bot (course name) | games | wins | win rate (95 %) | course | difference | cancelled (stalled / limit) |",
             "| --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for r in report["bots"]:
        course = "" if r["course_win_rate"] is None else f"{100 * r['course_win_rate']:.1f} %"
        diff = "" if r["difference"] is None else f"{100 * r['difference']:+.1f}"
        rate = "" if r["win_rate"] is None else (f"{100 * r['win_rate']:.1f} % ({100 * r['win_low']:.1f}–"
                                                 f"{100 * r['win_high']:.1f})")
        lines.append(f"| {r['agent']} ({r['course_name'] or '-'}) | {r['games']} | {r['wins']} | {rate} | {course} | "
                     f"{diff} | {r['cancelled']} ({r['stalled']} / {r['battle_limit']}) |")
    searching = [r for r in report["bots"] if r.get("search")]
    if searching:
        lines += ["", "| searching bot | decisions | ms per decision (mean / largest) | nodes per search (mean / largest) "
                  "| played as dt.ste | lowest clock (s) | clock overruns |", "| --- | ---: | --- | --- | ---: | ---: | ---: |"]
        for r in searching:
            f = r["search"]
            clock = "" if f["clock_min"] is None else f"{f['clock_min']:.2f}"
            lines.append(f"| {r['agent']} | {f['decisions']} | {1000 * f['seconds_per_decision']:.1f} / "
                         f"{1000 * f['max_seconds']:.0f} | {f['nodes_per_search'] or 0:.0f} / {f['max_nodes']} | "
                         f"{f['as_ste']} | {clock} | {f['timeouts']} |")
    if report.get("compiled"):
        c = report["compiled"]
        lines += ["", f"Compiled twins, {c['boards']} boards ({c['games']} games, seed {c['seed']}):", "",
                  "| bot | games | wins | win rate (95 %) | course | difference |", "| --- | ---: | ---: | --- | ---: | ---: |"]
        for r in c["bots"]:
            course = "" if r["course_win_rate"] is None else f"{100 * r['course_win_rate']:.1f} %"
            diff = "" if r["difference"] is None else f"{100 * r['difference']:+.1f}"
            lines.append(f"| {r['agent']} | {r['games']} | {r['wins']} | {100 * r['win_rate']:.1f} % "
                         f"({100 * r['win_low']:.1f}–{100 * r['win_high']:.1f}) | {course} | {diff} |")
    return "\n".join(lines)


def default_store(folder: Path | None = None) -> Path:
    from boardlab.arena.store import default_store_path

    return default_store_path() if folder is None else folder
