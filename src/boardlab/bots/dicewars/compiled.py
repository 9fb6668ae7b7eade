"""The compiled twins of the Dice Wars reference bots (numba), and whole games between them.

Each twin is the compiled copy of its plain-Python module of :mod:`boardlab.bots.dicewars` (the
tests check that both choose the same action on the same positions): ``dw-rand``, ``dw-sdc``,
``dw-ste``, ``dw-stei``, ``dw-wpm`` (with and without the course's quirks) and the template bot;
:data:`UNIFORM` is the playout policy of the game's engine (a uniformly random legal action, end
turn included); and :data:`VALUE` is the greedy bot of a tuned board value (:func:`board_value`;
its weights are a trained model, :mod:`boardlab.bots.dicewars.value`, and ride in the ``weights``
table's last columns).

Whole games (:func:`play`, :func:`play_games`, :func:`continuations`) take the rules from the game's
compiled engine (:mod:`boardlab.games.dicewars.kernel`: :func:`~boardlab.games.dicewars.kernel.advance`
settles what chance decides, :func:`~boardlab.games.dicewars.kernel.decide` takes a decision) and only
choose the decisions here: the bots' games and the engine's random playouts follow one copy of the rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.core.rng import kernel_rng
from boardlab.games.dicewars.kernel import (
    END_CODES,
    MAX_DICE,
    WIN_TABLE,
    adjacency_table,
    advance,
    deal,
    decide,
    keep_turn,
    largest_region,
    list_attacks,
    player_dice,
    random_below,
    regions,
    turn_of,
    uniform_action,
)

UNIFORM, RAND, SDC, STE, STEI, WPM, WPM_FIXED, TEMPLATE, VALUE = range(9)
#: policy numbers by agent name (the compiled tournaments of the Dice Wars study and the benchmarks use them)
POLICIES = {"uniform": UNIFORM, "dw-rand": RAND, "dw-sdc": SDC, "dw-ste": STE, "dw-stei": STEI,
            "dw-wpm": WPM, "dw-wpm-fixed": WPM_FIXED, "dw-template": TEMPLATE}
#: the course's logistic weights of dt.wpm_c by number of players (2..8): per player in turn order
#: from the bot itself, (log(score + 1), log(dice + 1))
WPM_WEIGHTS = {
    2: [1.30214778, 2.25563871, -1.30214778, -2.25563871],
    3: [1.03427841, 0.50262886, -0.78619448, -0.31264667, -0.74070513, -0.3344083],
    4: [1.04279419, 0.25416893, -0.64830571, -0.15321224, -0.64217824, -0.11354054, -0.59113493, -0.19902261],
    5: [0.88792394, 0.23898045, -0.50630318, -0.10684734, -0.48406202, -0.12877724, -0.48004353, -0.17429738,
        -0.51195613, -0.12572176],
    6: [0.84452717, 0.20915755, -0.4275969, -0.12319906, -0.438397, -0.11476484, -0.44610219, -0.10640943,
        -0.42926595, -0.15994294, -0.40215393, -0.12508173],
    7: [0.77043331, 0.22744643, -0.34448306, -0.16104125, -0.34304867, -0.16545059, -0.36316993, -0.14238659,
        -0.37359036, -0.13535348, -0.34917492, -0.13725688, -0.36908313, -0.11803061],
    8: [0.71518557, 0.2580538, -0.3303392, -0.13374949, -0.3288953, -0.16076534, -0.31261043, -0.14316612,
        -0.31785557, -0.16003507, -0.31410674, -0.16487769, -0.33290964, -0.12624279, -0.33843017, -0.14888412],
}
#: the tuned board value's weights (:func:`board_value`, :func:`value_choice`), in this order
VALUE_TERMS = ("largest_region", "areas", "expected_losses", "dice_share", "rival_region", "rival_dice",
               "attack_cost", "eight_dice_bonus", "region_losses", "regions", "rivals_regions")
#: the bots' weights as one table, row = number of players (rows 0 and 1 unused): dt.wpm_c's logistic
#: weights in columns 0-15, the VALUE bot's (:data:`VALUE_TERMS`) from column :data:`VALUE_COLUMN` on
#: (zero here: :func:`boardlab.bots.dicewars.value.bot_weights` fills them in from the trained model)
VALUE_COLUMN = 16
#: the VALUE bot's worth of a won game: beyond any board's value (a few units at most)
VALUE_WON = 100.0
WPM_TABLE = np.zeros((9, VALUE_COLUMN + len(VALUE_TERMS)))
for _n, _w in WPM_WEIGHTS.items():
    WPM_TABLE[_n, : len(_w)] = _w


# --- the bots -------------------------------------------------------------------------------
@njit(cache=True)
def hold_probability(owner, dice, adj, deg, player, area, area_dice, win):
    """The course's estimate of holding ``area`` with ``area_dice`` dice until the next turn: the product
    over adjacent enemy areas with more than one die of (1 - P(they win against it))."""
    p = 1.0
    for k in range(deg[area]):
        b = adj[area, k]
        if owner[b] != player and dice[b] > 1:
            p *= 1.0 - win[dice[b], area_dice]
    return p


@njit(cache=True)
def choose(policy, owner, dice, adj, deg, player, attacks_this_turn, players_at_start, order, win, wpm, rng):
    """The action of ``policy`` for ``player`` to move: -1 ends the turn, else ``src * n + dst``."""
    if policy == UNIFORM:
        return uniform_action(owner, dice, adj, deg, player, rng)
    n = owner.shape[0]
    src = np.empty(n * 8, dtype=np.int64)
    dst = np.empty(n * 8, dtype=np.int64)
    m = list_attacks(owner, dice, adj, deg, player, src, dst)
    if m == 0:
        return -1
    if policy == RAND:
        k = random_below(rng, m)
        return src[k] * n + dst[k]
    if policy == TEMPLATE:
        if attacks_this_turn >= 2:
            return -1
        k = random_below(rng, m)
        return src[k] * n + dst[k]
    if policy == VALUE:
        pick = value_choice(owner, dice, adj, deg, player, players_at_start, win, wpm[players_at_start, VALUE_COLUMN:],
                            src, dst, m)
        return src[pick] * n + dst[pick] if pick >= 0 else -1
    if policy == SDC:
        best, pick = -100, -1
        for i in range(m):
            d = dice[src[i]] - dice[dst[i]]
            if d > best:
                best, pick = d, i
        return src[pick] * n + dst[pick] if best >= 0 else -1
    if policy == STE or policy == STEI:
        threshold, weight = 0.2, 1.0
        label = np.empty(n, dtype=np.int64)
        region = -2
        if policy == STEI:
            if players_at_start == 2:
                threshold, weight = 0.2, 3.0
            else:
                threshold, weight = 0.4, 2.0
            region = regions(owner, adj, deg, player, label)[2]
        best, pick = -1.0, -1
        for i in range(m):
            a = dice[src[i]]
            hold = win[a, dice[dst[i]]] * hold_probability(owner, dice, adj, deg, player, dst[i], a - 1, win)
            if hold >= threshold or a == 8:
                pref = hold
                if policy == STEI and label[src[i]] == region:
                    pref *= weight
                if pref > best:
                    best, pick = pref, i
        return src[pick] * n + dst[pick] if pick >= 0 else -1
    # WPM / WPM_FIXED: the logistic win-probability maximiser
    return _wpm(policy == WPM_FIXED, owner, dice, adj, deg, player, players_at_start, order, win, wpm, src, dst, m)


@njit(cache=True)
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@njit(cache=True)
def _wpm(fixed, owner, dice, adj, deg, player, players_at_start, order, win, wpm, src, dst, m):
    n = owner.shape[0]
    k = order.shape[0]
    w = wpm[players_at_start]
    label = np.empty(n, dtype=np.int64)
    own_regions, own_score, _ = regions(owner, adj, deg, player, label)
    # features: for each player in turn order from the bot: log(score + 1), log(dice + 1)
    f = np.zeros(2 * k)
    pdice = np.zeros(k, dtype=np.int64)
    for i in range(k):
        p = order[i]
        score = own_score if not fixed else largest_region(owner, adj, deg, p)  # quirk: the bot's own score for all
        pdice[i] = player_dice(owner, dice, p)
        f[2 * i] = np.log(score + 1.0)
        f[2 * i + 1] = np.log(pdice[i] + 1.0)
    start = 0.0
    for j in range(2 * k):
        start += f[j] * w[j]
    wp_start = np.log(_sigmoid(start))
    end = start - f[1] * w[1] + np.log(pdice[0] + own_score + 1.0) * w[1]
    best = np.log(_sigmoid(end)) - wp_start
    pick = -1  # -1: ending the turn ranks first
    # the areas of the largest region(s): never filled in by the course's bot (quirk), so never used
    in_largest = np.zeros(n, dtype=np.bool_)
    if fixed:
        sizes = np.zeros(own_regions + 1, dtype=np.int64)
        for a in range(n):
            if label[a] >= 0:
                sizes[label[a]] += 1
        for a in range(n):
            if label[a] >= 0 and sizes[label[a]] == own_score:
                in_largest[a] = True
    improvements = np.empty(m)
    for i in range(m):
        s, t = src[i], dst[i]
        increase = in_largest[s]
        if not increase:
            for q in range(deg[t]):
                if in_largest[adj[t, q]]:
                    increase = True
                    break
        a_score = own_score + (1 if increase else 0)
        a_dice = pdice[0]
        opp = owner[t]
        oi = 0
        for q in range(k):
            if order[q] == opp:
                oi = q
        d_dice = pdice[oi]
        base = start - f[1] * w[1] - f[2 * oi + 1] * w[2 * oi + 1]
        x_win = base + np.log(a_dice + a_score + 1.0) * w[1] + np.log(d_dice - dice[t] + 1.0) * w[2 * oi + 1]
        x_loss = base + np.log(a_dice + a_score - dice[s] + 1 + 1.0) * w[1] + np.log(d_dice + 1.0) * w[2 * oi + 1]
        p = win[dice[s], dice[t]]
        total = _sigmoid(x_win) * p + _sigmoid(x_loss) * (1.0 - p)
        improvements[i] = np.log(total) - wp_start
        if improvements[i] > best:
            best, pick = improvements[i], i
    if pick >= 0:
        if improvements[pick] >= -0.05 or dice[src[pick]] == 8:
            return src[pick] * n + dst[pick]
        return -1
    # ending ranks first: still attack from an 8-dice area, the best ranked such attack
    best8, pick8 = -np.inf, -1
    for i in range(m):
        if dice[src[i]] == 8 and (pick8 < 0 or improvements[i] > best8):
            best8, pick8 = improvements[i], i
    if pick8 >= 0:
        return src[pick8] * n + dst[pick8]
    return -1


@njit(cache=True)
def board_value(owner, dice, adj, deg, player, players, win, w, label, big, have):
    """``player``'s tuned board value: a weighted sum (weights ``w``, :data:`VALUE_TERMS`) of its
    largest region, its areas, its expected losses before its next turn (dt.ste's hold estimate,
    summed over all its areas and over its largest region), its share of the dice, its number of
    regions, and the strongest other player's largest region and dice share and the sum of the other
    players' largest regions; areas counted as a share of the map. ``label``, ``big``, ``have``:
    scratch arrays (n, players, players)."""
    n = owner.shape[0]
    for p in range(players):
        have[p] = 0
        if p != player:
            big[p] = regions(owner, adj, deg, p, label)[1]
    count, big[player], region = regions(owner, adj, deg, player, label)
    total = 0
    areas = 0
    losses = 0.0
    region_losses = 0.0
    for a in range(n):
        o = owner[a]
        have[o] += dice[a]
        total += dice[a]
        if o != player:
            continue
        areas += 1
        lost = 1.0 - hold_probability(owner, dice, adj, deg, player, a, dice[a], win)
        losses += lost
        if label[a] == region:
            region_losses += lost
    rival_region, rival_dice, rivals = 0, 0, 0
    for p in range(players):
        if p != player:
            rivals += big[p]
            rival_region = max(rival_region, big[p])
            rival_dice = max(rival_dice, have[p])
    return (w[0] * big[player] / n + w[1] * areas / n + w[2] * losses / n + w[3] * have[player] / total
            + w[4] * rival_region / n + w[5] * rival_dice / total + w[8] * region_losses / n
            + w[9] * count / n + w[10] * rivals / n)


@njit(cache=True)
def value_choice(owner, dice, adj, deg, player, players, win, w, src, dst, m):
    """The VALUE bot: the attack whose expected board value after its battle, less ``w[6]`` (the
    cost of an attack; plus ``w[7]`` from 8 dice, which the reinforcement could not add to), gains
    most over the board as it is; -1 (end the turn) when none gains. Returns the attack's index."""
    n = owner.shape[0]
    label = np.empty(n, dtype=np.int64)
    big = np.zeros(players, dtype=np.int64)
    have = np.zeros(players, dtype=np.int64)
    now = board_value(owner, dice, adj, deg, player, players, win, w, label, big, have)
    best, pick = 0.0, -1
    for i in range(m):
        s, t = src[i], dst[i]
        a, d, o = dice[s], dice[t], owner[t]
        p = win[a, d]
        dice[s] = 1
        lost = board_value(owner, dice, adj, deg, player, players, win, w, label, big, have)
        owner[t] = player
        dice[t] = a - 1
        won = board_value(owner, dice, adj, deg, player, players, win, w, label, big, have)
        last = True  # the last area of the last other player: the game is won, whatever the value says
        for x in range(n):
            if owner[x] != player:
                last = False
                break
        owner[t] = o
        dice[t] = d
        dice[s] = a
        if last:
            won = VALUE_WON
        gain = p * won + (1.0 - p) * lost - now - w[6] + (w[7] if a == MAX_DICE else 0.0)
        if gain > best:
            best, pick = gain, i
    return pick


# --- whole games ------------------------------------------------------------------------------
@njit(cache=True)
def play(owner, dice, reserve, adj, deg, scal, policies, players_at_start, win, wpm, rng, max_actions):
    """Play from the position to the end (or ``max_actions`` decisions), in place, seat s deciding by
    ``policies[s]`` (``scal``: the game engine's ``turn`` as int64[8]); (end code, winner) as
    :func:`~boardlab.games.dicewars.kernel.advance`."""
    players = reserve.shape[0]
    order = np.empty(players, dtype=np.int64)
    turn = turn_of(scal)
    steps = 0
    while True:
        code, winner, turn = advance(owner, dice, reserve, adj, deg, turn, win, rng)
        if code >= 0 or steps >= max_actions:
            break
        steps += 1
        player = turn[0]
        for i in range(players):
            order[i] = (player + i) % players
        act = choose(policies[player], owner, dice, adj, deg, player, turn[7], players_at_start, order, win, wpm, rng)
        turn = decide(owner, adj, deg, reserve, turn, act)
    keep_turn(scal, turn)
    return code, winner


@njit(cache=True)
def play_games(adjs, degs, sizes, games, players, policies, orig_dice, win, wpm, rng, wins, ends):
    """``games`` games from fresh deals on the given maps (game g on map g % maps), seat s playing
    ``policies[s]``. Adds each game's winner to ``wins[seat]`` and its ending to ``ends[code]``;
    returns the decisions taken in all."""
    scal = np.zeros(8, dtype=np.int64)
    reserve = np.zeros(players, dtype=np.int64)
    for g in range(games):
        k = g % sizes.shape[0]
        n = sizes[k]
        adj = adjs[k, :n]
        deg = degs[k, :n]
        owner = np.empty(n, dtype=np.int64)
        dice = np.empty(n, dtype=np.int64)
        deal(owner, dice, players, orig_dice, rng)
        reserve[:] = 0
        scal[:] = 0
        code, winner = play(owner, dice, reserve, adj, deg, scal, policies, players, win, wpm, rng, 10**9)
        ends[code] += 1
        if winner >= 0:
            wins[winner] += 1
    return 0


@njit(cache=True)
def continuations(owner, dice, reserve, scal, adj, deg, policies, players_at_start, win, wpm, starts, wins):
    """Play the position on to the end once per random stream (``starts[i]``: a ``kernel_rng``
    state; two positions given the same starts meet the same dice: common random numbers), seat s
    playing ``policies[s]``; adds each game's winner to ``wins[seat]``. Returns how many ended with a winner."""
    state = np.empty(1, dtype=np.uint64)
    won = 0
    for i in range(starts.shape[0]):
        o, d, r, sc = owner.copy(), dice.copy(), reserve.copy(), scal.copy()
        state[0] = starts[i]
        code, winner = play(o, d, r, adj, deg, sc, policies, players_at_start, win, wpm, state, 10**9)
        if code == 0 and winner >= 0:
            wins[winner] += 1
            won += 1
    return won


class CompiledBots:
    """The twins' entry points taking :class:`~boardlab.games.dicewars.state.DiceWarsState` objects
    (the maps' tables and the states' arrays are the game engine's, ``game.playout_kernel()``)."""

    def __init__(self, game) -> None:
        self.game = game
        self.engine = game.playout_kernel()

    def choose(self, policy: int, state, rng: np.ndarray | None = None, weights: np.ndarray | None = None) -> int:
        """The compiled bot's action for the player to move in ``state`` (an action of the game);
        ``weights``: the bots' weights table (default :data:`WPM_TABLE`, whose VALUE weights are zero)."""
        adj, deg = self.engine.tables(state.map)
        owner, dice, _, _ = self.engine.arrays(state)
        players = self.game.players
        order = np.array([(state.player + i) % players for i in range(players)], dtype=np.int64)
        act = choose(policy, owner, dice, adj, deg, state.player, state.attacks, players, order, WIN_TABLE,
                     WPM_TABLE if weights is None else weights, kernel_rng(0) if rng is None else rng)
        if act < 0:
            return 0
        n = owner.shape[0]
        return self.game.attack_action(int(act // n), int(act % n))

    def play_out(self, state, rng: np.ndarray, policies) -> tuple[int, int]:
        """(end code, winner) of the game played on from ``state``, seat s playing ``policies[s]``."""
        if state.is_terminal():
            return END_CODES.index(state.end), (state.winner() if state.winner() is not None else -1)
        adj, deg = self.engine.tables(state.map)
        owner, dice, reserve, scal = self.engine.arrays(state)
        return play(owner, dice, reserve, adj, deg, scal, np.asarray(policies, dtype=np.int64),
                    self.game.players, WIN_TABLE, WPM_TABLE, rng, 10**9)

    def bot_games(self, maps, games: int, policies, seed: int = 0) -> dict:
        """``games`` games between compiled bots (``policies[seat]``) on fresh deals over ``maps``."""
        n_max = max(m.areas for m in maps)
        width = max(max(len(a) for a in m.adjacent) for m in maps)
        adjs = np.full((len(maps), n_max, width), -1, dtype=np.int64)
        degs = np.zeros((len(maps), n_max), dtype=np.int64)
        sizes = np.zeros(len(maps), dtype=np.int64)
        for k, m in enumerate(maps):
            adj, deg = adjacency_table(m.adjacent)
            adjs[k, : m.areas, : adj.shape[1]] = adj
            degs[k, : m.areas] = deg
            sizes[k] = m.areas
        wins = np.zeros(self.game.players, dtype=np.int64)
        ends = np.zeros(3, dtype=np.int64)
        play_games(adjs, degs, sizes, games, self.game.players, np.asarray(policies, dtype=np.int64),
                   self.game.dice_rule == "orig", WIN_TABLE, WPM_TABLE, kernel_rng(seed), wins, ends)
        return {"games": games, "wins": wins.tolist(), "ends": dict(zip(END_CODES, ends.tolist()))}
