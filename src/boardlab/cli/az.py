"""``boardlab train az --game G``: AlphaZero-style training by self-play (:mod:`boardlab.experiments.az_training`)."""

from __future__ import annotations

import re
import shlex
from contextlib import nullcontext
from dataclasses import asdict, fields
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from boardlab.commands.console import JSON_HELP, console, err_console, print_json, progress_bar
from boardlab.commands.plugin import Recipe
from boardlab.core.errors import BoardlabError


def _opt(flag: str, text: str):
    return typer.Option(flag, help=text, show_default=False)


def train(
    game: Annotated[Optional[str], _opt("--game", "Game spec to learn (e.g. connect4, mancala, connect4:rows=4,cols=5,k=3, dicewars:players=2, "
                                        "nothanks, tickettoride). Default connect4.")] = None,
    out: Annotated[Optional[Path], _opt("--out", "Run folder (created, with the folders above it). Default runs/az-<game>. "
                                        "Running the command again resumes the run in it, after a kill too.")] = None,
    iterations: Annotated[Optional[int], _opt("--iterations", "Iterations to reach (self-play, then learning). Default 100. "
                                              "0 with --imitate: the lesson alone (resume with more to go on to self-play). "
                                              "A resumed run may change it and --eval-every, nothing else.")] = None,
    games: Annotated[Optional[int], _opt("--games", "Self-play games per iteration. Default 64.")] = None,
    lockstep: Annotated[Optional[int], _opt("--lockstep", "Games played in lockstep in one process (their leaves share one forward pass); "
                                            "chunks of this size go to the workers. Default 64.")] = None,
    simulations: Annotated[Optional[int], _opt("--simulations", "PUCT simulations per self-play move. Default 50.")] = None,
    c: Annotated[Optional[float], _opt("--c", "PUCT exploration constant. Default 1.5.")] = None,
    alpha: Annotated[Optional[float], _opt("--alpha", "Dirichlet concentration of the root noise in self-play. Default 1.0.")] = None,
    noise_weight: Annotated[Optional[float], _opt("--noise-weight", "Weight of the root noise (0: none). Default 0.25.")] = None,
    temp_moves: Annotated[Optional[int], _opt("--temp-moves", "Self-play moves of each game drawn in proportion to visits (then the most visited). "
                                              "Default 10.")] = None,
    buffer: Annotated[Optional[int], _opt("--buffer", "Replay buffer size in positions. Default 50000.")] = None,
    batch: Annotated[Optional[int], _opt("--batch", "Minibatch size. Default 256.")] = None,
    steps: Annotated[Optional[int], _opt("--steps", "Gradient steps per iteration. Default 100.")] = None,
    lr: Annotated[Optional[float], _opt("--lr", "Adam learning rate. Default 0.001.")] = None,
    weight_decay: Annotated[Optional[float], _opt("--weight-decay", "L2 weight decay. Default 0.0001.")] = None,
    net: Annotated[Optional[str], _opt("--net", "Network: auto (resnet for board planes, MLP for vectors), mlp or resnet. Default auto.")] = None,
    hidden: Annotated[Optional[int], _opt("--hidden", "MLP width (and the resnet's value head). Default 128.")] = None,
    layers: Annotated[Optional[int], _opt("--layers", "MLP hidden layers. Default 2.")] = None,
    channels: Annotated[Optional[int], _opt("--channels", "Resnet filters. Default 32.")] = None,
    blocks: Annotated[Optional[int], _opt("--blocks", "Resnet residual blocks. Default 2.")] = None,
    value_inputs: Annotated[Optional[str], _opt("--value-inputs", "The part of the observation tensor the value reads, as a Python "
                                                "slice START:STOP of the flat tensor (e.g. --value-inputs=-44: for its last 44 "
                                                "entries): the value gets a trunk of its own over them, so that it cannot learn "
                                                "what differs from game to game (a Dice Wars map) by heart. MLP only. "
                                                "Default: all of it, through the policy's trunk.")] = None,
    eval_every: Annotated[Optional[int], _opt("--eval-every", "Evaluate and save the network every this many iterations (and at the last). "
                                                      "Default 5; a resumed run may change it.")] = None,
    eval_games: Annotated[Optional[int], _opt("--eval-games", "Games per evaluation duel (seats alternate). Default 20.")] = None,
    eval_simulations: Annotated[Optional[int], _opt("--eval-simulations", "Simulations per move of the evaluated network. Default 100.")] = None,
    eval_mcts: Annotated[Optional[int], _opt("--eval-mcts", "Iterations of the MCTS opponent in evaluations. Default 200.")] = None,
    eval_positions: Annotated[Optional[Path], _opt("--eval-positions", "A file of solved positions for the evaluations to grade, in "
                                                   "the format of boardlab grade --positions (games that grade: standard Connect "
                                                   "Four), e.g. a validation set kept apart from the shipped set that reports "
                                                   "the final figure. Default: the shipped set.")] = None,
    seed: Annotated[Optional[int], _opt("--seed", "Seed of the whole run. Default 0.")] = None,
    augment: Annotated[Optional[bool], typer.Option("--augment/--no-augment", show_default=False, help="Train on each minibatch sample seen through a symmetry "
                                                    "of the game drawn at random (Connect Four: its mirror), the identity included; "
                                                    "games that declare none refuse it. Default off.")] = None,
    discount: Annotated[Optional[float], _opt("--discount", "A result k plies ahead is worth discount**k, in the value targets and in the search's backups; "
                                              "below 1 the network learns to prefer the nearer win and the farther loss (the graded set counts only the "
                                              "quickest win as optimal). The model records it and az plays with it. Default 1.")] = None,
    discount_toward: Annotated[Optional[float], _opt("--discount-toward", "What a discounted result fades toward: 0 (far wins and far "
                                                     "losses both count less) or the loss, -1 (only wins fade: no seat learns that "
                                                     "losing later is better; games whose network values every seat, such as Dice "
                                                     "Wars). Write it --discount-toward=-1. Default 0.")] = None,
    value_target: Annotated[Optional[str], _opt("--value-target", "The value head's target: result (the game's result, discounted) "
                                                "or average (its mean with the root's search value for the player to move: "
                                                "less noise from the moves drawn late in a game; two-player zero-sum games). Default result.")] = None,
    fpu: Annotated[Optional[str], _opt("--fpu", "The value of a move not yet tried in self-play searches: zero (the AlphaZero paper) "
                                       "or mean (of the moves tried from the same position). Default zero. The model files record "
                                       "it, and the az agent plays a model with it unless given fpu=.")] = None,
    solver: Annotated[Optional[bool], typer.Option("--solver/--no-solver", show_default=False, help="Self-play searches prove wins, "
                                                   "draws and losses as they reach them (MCTS-Solver, as the az agent does by default) "
                                                   "and play the quickest proven win after the drawn moves; two-player zero-sum games without chance. "
                                                   "Default off; runs started before the option resume without it.")] = None,
    engine: Annotated[Optional[str], _opt("--engine", "Self-play search: auto (the game's compiled PUCT where it offers one for the network: "
                                          "Connect Four, Dice Wars and Ticket to Ride with --net mlp, on the CPU; the same searches, many times faster) "
                                          "or generic (games in lockstep, one forward pass per round). Default auto; runs started before the option "
                                          "resume as generic.")] = None,
    max_moves: Annotated[Optional[int], _opt("--max-moves", "Stop a self-play game after this many moves and train on it as "
                                             "lost by every seat (the game's least utility, as Dice Wars counts a game cancelled at its "
                                             "battle limit), so that stalling never pays; for games whose players can stall "
                                             "(Dice Wars allows 10,000 battles). Default 0: never.")] = None,
    random_opening: Annotated[Optional[int], _opt("--random-opening", "Start each self-play game with a number of uniformly random legal "
                                                  "moves drawn from 0..N (not trained on; the searched moves after them are): the network "
                                                  "then also learns positions that its own play never reaches, such as those of benchmark "
                                                  "sets drawn from random play. Default 0: every game from the start.")] = None,
    policy_q: Annotated[Optional[float], _opt("--policy-q", "The policy's target: the root's visit shares (0), or those tilted toward "
                                              "the moves whose searched values are best, each share times exp(POLICY_Q * (its mean "
                                              "- the best mean)), as Gumbel AlphaZero's targets do: a few hundred simulations share "
                                              "their visits by the priors among moves a few hundredths apart (the quicker of two "
                                              "wins), so the visits alone teach the policy its own priors back. Default 0.")] = None,
    init: Annotated[Optional[Path], _opt("--init", "Start the network from this model file's weights (az-*.pt, a run's model.pt or "
                                         "models/iter-NNNN.pt) instead of fresh ones: the same game, and the same --net, --hidden, "
                                         "--layers (a fresh optimiser and an empty replay buffer). Default: fresh weights.")] = None,
    imitate: Annotated[Optional[str], _opt("--imitate", "Before self-play, learn from the games of this agent (an agent spec, "
                                           "e.g. ttr-algorithmic; itself in every seat): its moves as the policy's targets, each "
                                           "seat's result as the value's; evaluated as iteration 0. The positions stay in the replay "
                                           "buffer until self-play pushes them out. Default: none.")] = None,
    imitate_games: Annotated[Optional[int], _opt("--imitate-games", "Games of the --imitate agent. Default 1000.")] = None,
    imitate_steps: Annotated[Optional[int], _opt("--imitate-steps", "Gradient steps on them before the first iteration. Default 1000.")] = None,
    opponents: Annotated[Optional[str], _opt("--opponents", "Agents that play against the network in --opponent-share of the "
                                             "self-play games: one spec for every other seat, or one per seat joined by '+' "
                                             "(dw-ste+dw-sdc+dw-wpm); the network sits in a seat drawn per game. Their moves are "
                                             "not learnt from, the network's moves and results are: its value learns what its "
                                             "play costs at their table, not only against itself. Default: none.")] = None,
    opponent_share: Annotated[Optional[float], _opt("--opponent-share", "The share of self-play games played against "
                                                    "--opponents (0..1). Default 0.")] = None,
    device: Annotated[Optional[str], _opt("--device", "auto (CUDA when torch sees it), cpu or cuda. Default cpu.")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Processes playing self-play chunks at once (one core each).")] = 1,
    backend: Annotated[str, typer.Option("--backend", help="'process' (a local pool of --workers) "
                                         "or 'ray' (a local Ray instance, or the cluster at --address).")] = "process",
    address: Annotated[Optional[str], typer.Option("--address", help="With --backend ray: the cluster's address.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + " Keys: run, game, iterations, positions, "
                                           "hours and cpu_hours (self-play and learning; CPU: this process and its workers' jobs), "
                                           "checkpoint, model, curve (PNG or null), last_eval ({random, mcts, previous, optimal, kept}: scores 0..1, or null), "
                                           "imitation (with --imitate: agent, games, positions, mean_moves, policy_loss, value_loss, "
                                           "hours, cpu_hours, eval; else null), "
                                           "history (one entry per iteration: iteration, games, positions, policy_loss, value_loss, "
                                           "first_player_return, mean_moves, cut_games (stopped by --max-moves), hours, cpu_hours, "
                                           "with --opponents opponent_games and opponent_win_share (the network's mean win share "
                                           "in them, or null), eval when evaluated).")] = False,
) -> None:
    """Train a policy-value network by self-play with PUCT search (AlphaZero); play it with [b]az:path=RUN/model.pt[/]."""
    from boardlab.core.files import check_output_folder, make_parents
    from boardlab.core.registry import make
    from boardlab.experiments.az_training import AZConfig, Trainer, load_run_config

    if backend not in ("process", "ray"):
        raise BoardlabError(f"--backend must be 'process' or 'ray', not {backend!r}")
    given = {"game": game, "iterations": iterations, "games": games, "lockstep": lockstep, "simulations": simulations, "c": c,
             "alpha": alpha, "noise_weight": noise_weight, "temp_moves": temp_moves, "buffer": buffer, "batch": batch,
             "steps": steps, "lr": lr, "weight_decay": weight_decay, "kind": net, "hidden": hidden, "layers": layers,
             "channels": channels, "blocks": blocks, "value_inputs": value_inputs, "eval_every": eval_every, "eval_games": eval_games,
             "eval_simulations": eval_simulations, "eval_mcts": eval_mcts,
             "eval_positions": str(eval_positions) if eval_positions is not None else None, "seed": seed, "device": device,
             "augment": augment, "engine": engine, "discount": discount, "discount_toward": discount_toward,
             "value_target": value_target, "fpu": fpu,
             "solver": solver, "max_moves": max_moves, "random_opening": random_opening, "policy_q": policy_q,
             "init": str(init) if init is not None else None, "imitate": imitate, "imitate_games": imitate_games,
             "imitate_steps": imitate_steps, "opponents": opponents, "opponent_share": opponent_share}
    given = {k: v for k, v in given.items() if v is not None}
    if device is not None and device not in ("auto", "cpu", "cuda"):
        raise BoardlabError(f"--device must be auto, cpu or cuda, not {device!r}")
    if game is not None:
        given["game"] = make(game).spec()  # a wrong game spec fails before a folder is made
    if out is None:
        out = Path("runs") / f"az-{re.sub(r'[^A-Za-z0-9]+', '_', given.get('game', 'connect4'))}"
    folder = check_output_folder(make_parents(out, "--out"), "--out")  # runs/ is made in a fresh folder
    base = asdict(load_run_config(folder)) if (folder / "config.json").is_file() else {}
    if base and game is not None and base["game"] != given["game"]:
        raise BoardlabError(f"{folder}: this run learns {base['game']}, not {given['game']}")
    spec = given.get("game", base.get("game", "connect4"))
    values = {**{f.name: f.default for f in fields(AZConfig)}, **base, **given}
    cfg = AZConfig(**values)
    trainer = Trainer(folder, cfg, workers=workers, backend=backend, address=address)
    if not json_out:
        err_console.print(f"run {folder}: {spec}, from iteration {trainer.iteration} to {cfg.iterations}")
        if cfg.imitate and trainer.imitation is None:
            err_console.print(f"first learning from {cfg.imitate_games} games of {cfg.imitate} ({cfg.imitate_steps} steps)", markup=False)
    with progress_bar("az", transient=False) as progress:
        task = progress.add_task("az", total=cfg.iterations, completed=trainer.iteration, note="")

        def report(tr) -> None:
            last = tr.history[-1]
            note = f"loss {last['policy_loss']:.2f}+{last['value_loss']:.2f}"
            if last.get("opponent_win_share") is not None:
                note += f" vs opponents {100 * last['opponent_win_share']:.0f}%"
            if "eval" in last:
                note += " " + " ".join(f"{k} {100 * v:.0f}%" for k, v in last["eval"].items() if v is not None)
            progress.update(task, completed=tr.iteration, note=note)

        lesson_task = progress.add_task(f"games of {cfg.imitate}", total=None, note="", visible=False)

        def report_lesson(played: int, games: int) -> None:
            progress.update(lesson_task, completed=played, total=games, visible=True, note=f"games of {cfg.imitate}")

        try:
            trainer.run(report, report_lesson)
        except KeyboardInterrupt:
            err_console.print(f"stopped; the same command resumes from iteration {trainer.iteration}")
            raise typer.Exit(130) from None
    evals = [h["eval"] for h in trainer.history if "eval" in h]
    curve = folder / "curve.png"
    result = {"run": str(folder), "game": spec, "iterations": trainer.iteration, "positions": trainer.buffer.added,
              "hours": trainer.seconds / 3600, "cpu_hours": trainer.cpu_seconds / 3600,
              "checkpoint": str(trainer.checkpoint_path), "model": str(folder / "model.pt"),
              "curve": str(curve) if curve.exists() else None, "last_eval": evals[-1] if evals else None,
              "imitation": trainer.imitation,
              "history": trainer.history}
    if json_out:
        print_json(result)
        return
    console.print(f"{folder}: {trainer.iteration} iterations, {trainer.buffer.added} positions, "
                  f"{result['hours'] * 60:.1f} min of self-play and learning")
    lesson = trainer.imitation
    if lesson:
        console.print(f"first lesson: {lesson['games']} games of {lesson['agent']}, {lesson['positions']} positions; then "
                      + ", ".join(f"{k} {100 * v:.1f} %" for k, v in lesson.get("eval", {}).items() if v is not None), markup=False)
    if evals:
        console.print("last evaluation: " + ", ".join(f"{k} {100 * v:.1f} %" for k, v in evals[-1].items() if v is not None))
    console.print(f"play it: {play_command(spec, folder / 'model.pt')}", markup=False)


def play_command(spec: str, model: Path) -> str:
    """The ``boardlab play`` command line that plays ``model`` (quoted for a POSIX shell, to be copied as it is)."""
    return f"boardlab play {shlex.quote(spec)} --agent {shlex.quote(f'az:path={model}')}"


def _model_file(model: Path) -> Path:
    """A model file, or a run folder's latest network."""
    return model / "model.pt" if model.is_dir() else model


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="A model file of train az (model.pt, models/iter-N.pt) "
                                          "or a run folder (its model.pt).", show_default=False)],
    games: Annotated[int, typer.Option("--games", "-n", min=2, help="Games per duel or table (seats rotate).")] = 40,
    simulations: Annotated[Optional[int], typer.Option("--simulations", min=1, help="PUCT simulations per move of the network. "
                                                       "Default: the number its model file names (a committed model's), else 200.",
                                                       show_default=False)] = None,
    mcts: Annotated[int, typer.Option("--mcts", min=1, help="Iterations of the MCTS opponent.")] = 1000,
    opponent: Annotated[Optional[list[str]], typer.Option("--opponent", "-o", help="Another opponent (an agent spec; repeat "
                                                          "the option for more), after random and MCTS; in games of more players a "
                                                          "mixed table as specs joined by + (dw-ste+dw-sdc+dw-wpm).", show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the duels and the grading.")] = 0,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Processes playing the games at once (one core each; "
                                         "the same games as with 1, their times per move measured side by side).")] = 1,
    backend: Annotated[str, typer.Option("--backend", help="'process' (a local pool of --workers) "
                                         "or 'ray' (a local Ray instance, or the cluster at --address).")] = "process",
    address: Annotated[Optional[str], typer.Option("--address", help="With --backend ray: the cluster's address.", show_default=False)] = None,
    baselines: Annotated[bool, typer.Option("--baselines/--no-baselines", help="Play the random and MCTS duels or tables "
                                            "before the --opponent ones; --no-baselines plays only those.")] = True,
    store_path: Annotated[Optional[Path], typer.Option("--store", help="Play each duel and table as a gauntlet tournament in "
                                                       "this results store (SQLite, as boardlab tournament's): every game is "
                                                       "stored as it ends, and the same command run again plays only the missing "
                                                       "ones. A duel plays the same games as without it; a table plays the "
                                                       "gauntlet's seats and seeds and needs one different opponent per other seat "
                                                       "(a+b+c), so use it with --no-baselines in games of more players.",
                                                       show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object: model, game, simulations, games, store (the "
                                           "--store path or null), duels "
                                           "{random, mcts (not with --no-baselines), SPEC...: {opponent, wins, draws, losses, score, score_low, score_high, "
                                           "seconds_per_move, "
                                           "opponent_seconds_per_move, and with --store tournament (its id)}} "
                                           "(score: draws count half, with its 95 % interval; seconds: "
                                           "each side's mean wall time per decision; two-player games), tables {random, mcts, SPEC...: "
                                           "{opponent, games, players, fair, share, share_low, share_high, wins, and where the game keeps "
                                           "scores score, score_low, score_high, "
                                           "opponent_score, opponent_score_low, opponent_score_high, and with --store tournament}} "
                                           "(games of more players: the network "
                                           "at a table of the opponent's copies, its seat rotated; share: its mean win share, 95 % "
                                           "intervals), optimal (share of optimal moves on the shipped Connect Four set, standard Connect "
                                           "Four only, else null), kept (share of moves that keep the position's result, the same way). "
                                           "Progress goes to stderr: a bar on a terminal, else one line per finished game.")] = False,
) -> None:
    """The network against random, MCTS and any --opponent: duels in two-player games, seat-rotated tables in
    games of more players (win shares and mean scores with 95 % intervals); its share of optimal moves on standard Connect Four.

    Each game's result is shown as it ends (the running tally on the bar, or a line on stderr when it is not a
    terminal); with --store the games are kept as they end, so a stopped evaluation resumes where it was."""
    from boardlab.agents.registry import make_agent
    from boardlab.arena.gauntlet import duel_summary, gauntlet_config, gauntlet_table_summary, play_gauntlet, seat_of_first_agent
    from boardlab.arena.store import ResultStore
    from boardlab.arena.table import table_score
    from boardlab.core.files import check_output_file
    from boardlab.core.registry import make
    from boardlab.experiments.az_training import duel_score, graded_shares, is_graded_game
    from boardlab.nn.az_net import load_model

    path = _model_file(model)
    _, payload = load_model(path)
    if any(ch in str(path) for ch in ",:="):
        raise BoardlabError(f"{path}: an agent spec cannot hold ',', ':' or '=' in a path; copy the model to a plain path")
    game = make(payload["game"])
    if simulations is None:  # as az plays the file when told nothing (the spec names it: a stored evaluation's id keeps it)
        simulations = int(make_agent(f"az:path={path}", game).play_budget()["simulations"])
    spec = f"az:path={path},simulations={simulations}"
    opponents = {"random": "random", "mcts": f"mcts:iterations={mcts}"} if baselines else {}
    if not baselines and not opponent:
        raise BoardlabError("--no-baselines leaves nothing to play: name an --opponent")
    for other in opponent or []:
        for one in other.split("+") if game.num_players() > 2 else [other]:
            make_agent(one, game)  # a wrong spec fails before any game is played
        opponents[other] = other
    configs = {}
    if store_path is not None:
        check_output_file(store_path, "--store")
        configs = {key: gauntlet_config(game, spec, against, games, seed) for key, against in opponents.items()}
    result: dict[str, Any] = {"model": str(path), "game": game.spec(), "simulations": simulations, "games": games,
              "store": None if store_path is None else str(store_path), "duels": {}, "tables": {}, "optimal": None, "kept": None}
    pool: dict[str, Any] = {"workers": workers, "backend": backend, "address": address}
    duels = game.num_players() == 2
    with progress_bar("az evaluate") as progress, ResultStore(store_path) if store_path is not None else nullcontext() as store:
        for key, against in opponents.items():
            task = progress.add_task(f"against {against}", total=games, note="")
            tally = GameTally(f"against {against}" if duels else f"at a table of {against}", games, duels, game.game_type.min_utility)

            def shown(returns: list[float], seat: int, record: dict, task=task, tally=tally) -> None:
                tally.add(returns, seat, record)
                progress.update(task, completed=tally.games, note=tally.summary())
                if not err_console.is_terminal:
                    err_console.print(tally.line(), markup=False, soft_wrap=True)

            if store is not None:
                config = configs[key]
                begun = store.find_tournament(config.id) is not None
                for earlier in store.games(config.id) if begun else []:  # a resumed evaluation counts on from its stored games
                    tally.add(earlier.returns, seat_of_first_agent(earlier), earlier.record)
                progress.update(task, completed=tally.games, note=tally.summary())
                try:
                    stored = play_gauntlet(config, store, _evaluate_command(path, simulations, config.id), **pool,
                                           on_game=lambda update, shown=shown: shown(update.result.returns,
                                                                                     seat_of_first_agent(update.result),
                                                                                     update.result.record))
                except KeyboardInterrupt:
                    kept = len(store.finished_indices(config.id))
                    err_console.print(f"interrupted: {kept} of {games} games {tally.label} are stored in {store_path}; "
                                      f"run the same command again to play the rest", markup=False)
                    raise typer.Exit(130) from None
                summary = duel_summary(against, stored) if duels else gauntlet_table_summary(game, against, stored)
                (result["duels"] if duels else result["tables"])[key] = {**summary, "tournament": config.id}
                continue
            # a duel seats the network first in its even-numbered games, a table at seat index % players
            tick = lambda index, record, shown=shown: shown(record.returns, index % game.num_players(), record.to_dict())  # noqa: E731
            if duels:
                result["duels"][key] = duel_score(game, spec, against, games, seed, on_game=tick, **pool)
            else:
                result["tables"][key] = table_score(game, spec, against, games, seed, on_game=tick, **pool)
        if is_graded_game(game):
            task = progress.add_task("optimal moves", total=None, note="")
            result["optimal"], result["kept"] = graded_shares(game, spec, seed,
                                                              on_position=lambda i, *_rest: progress.update(task, completed=i + 1))
    if json_out:
        print_json(result)
        return
    console.print(f"{path}: {game.spec()}, {simulations} simulations per move")
    for duel_result in result["duels"].values():
        console.print(f"  against {duel_result['opponent']}: {duel_result['wins']} won, {duel_result['draws']} drawn, "
                      f"{duel_result['losses']} lost ({100 * duel_result['score']:.1f} %, "
                      f"{100 * duel_result['score_low']:.1f}-{100 * duel_result['score_high']:.1f}); "
                      f"{_milliseconds(duel_result['seconds_per_move'])} a move against "
                      f"{_milliseconds(duel_result['opponent_seconds_per_move'])}", markup=False, soft_wrap=True)
    for table in result["tables"].values():
        line = (f"  at a table of {table['opponent']}: win share {100 * table['share']:.1f} % "
                f"({100 * table['share_low']:.1f}-{100 * table['share_high']:.1f}, fair {100 * table['fair']:.0f} %) in {table['games']} games")
        if "score" in table:
            line += (f"; mean score {table['score']:.1f} ({table['score_low']:.1f}..{table['score_high']:.1f}), "
                     f"opponents {table['opponent_score']:.1f} ({table['opponent_score_low']:.1f}..{table['opponent_score_high']:.1f})")
        console.print(line, markup=False)
    if result["optimal"] is not None:
        console.print(f"  optimal moves: {100 * result['optimal']:.1f} % of the shipped Connect Four set; "
                      f"{100 * result['kept']:.1f} % keep the position's result")


def _evaluate_command(model: Path, simulations: int, tournament: str) -> str:
    """What the store records as the command that began a tournament of ``evaluate --store``."""
    return f"boardlab evaluate {shlex.quote(str(model))} --simulations {simulations} --store (tournament {tournament})"


class GameTally:
    """The running count of an evaluation's games as they end (in any order): the bar's note, and one line
    per game where stderr is not a terminal (so a background run's log shows where it stands)."""

    def __init__(self, label: str, total: int, duel: bool, worst: float) -> None:
        self.label, self.total, self.duel, self.worst = label, total, duel, worst
        self.games = self.wins = self.draws = self.losses = 0
        self.share = 0.0
        self.last = ""

    def add(self, returns: list[float], seat: int, record: dict) -> None:
        from boardlab.arena.duel import duel_outcome
        from boardlab.arena.table import win_share

        self.games += 1
        if self.duel:
            result = duel_outcome(returns, seat)
            outcome = {1: "won", 0: "drawn", -1: "lost"}[result]
            self.wins, self.draws, self.losses = (self.wins + (result > 0), self.draws + (result == 0),
                                                  self.losses + (result < 0))
        else:
            share = win_share(returns, seat, self.worst)
            self.share += share
            outcome = f"win share {share:g}"
        end = f"; the game's end: {record['end']}" if record.get("end") else ""
        self.last = f"seat {seat + 1}: {outcome} after {len(record.get('actions', []))} actions{end}"

    def summary(self) -> str:
        if self.duel:
            return f"{self.wins} won, {self.draws} drawn, {self.losses} lost"
        return f"win share {100 * self.share / max(1, self.games):.1f} %"

    def line(self) -> str:
        return f"evaluate: {self.label}: game {self.games} of {self.total} ({self.last}); so far {self.summary()}"


def _milliseconds(seconds: float | None) -> str:
    return "-" if seconds is None else f"{1000 * seconds:.1f} ms"


def _recognises(path: Path) -> bool:
    from boardlab.nn.az_net import MODEL_FORMAT
    from boardlab.nn.checkpoint import is_checkpoint

    return is_checkpoint(_model_file(path), MODEL_FORMAT)


recipe = Recipe(
    train=train,
    evaluate=evaluate,
    recognises=_recognises,
    summary="AlphaZero: PUCT search with a policy-value network, trained by self-play (any game with a tensor; hidden information searched over drawn worlds)",
    game="",
    makes="run folder (config.json, checkpoint.pt, model.pt for az:path=FILE, models/iter-N.pt, history.json, curve.png)",
)
