"""The quantal estimate rule: the one-third rule's estimates, played as a logit (quantal) response.

With e(f) the expected matching dice on the table for face f (``expected_matches``) and T the ``temperature`` (in dice):
facing a bid of q on face f it challenges with probability 1 / (1 + exp(-(q - e(f)) / T)), and otherwise raises to a
legal bid (q', f') with probability proportional to exp((e(f') - q') / T); never the exact call; cold, it challenges
where the one-third rule does (e(f) = q: half the time). With ``reads``, e(f) counts each other seat at its expected
matching dice given its bids this round, read as the non-reading rule's (exact posterior). With ``fit``, after each
round a model of one seat takes the T of ``FAMILY_TEMPERATURES`` and the reading under which that seat's raises and
challenges so far were likeliest, given the hands shown (maximum likelihood; before any, ``temperature``, ``reads``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..caches import BoundedCache
from ..errors import UsageError
from ..estimate import expected_matches, unseen_matches
from ..game import ActionTaken, Event, History, PlayerView, PublicView, RoundEnd, RoundStart
from ..hands import solver_hands
from ..opponent import BaseOpponent, ViewMemo, sample_action
from ..registry import spec_text
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, match_matrix
from ..validation import number

__all__ = ["QuantalEstimate", "QuantalFamily", "LegalMoves", "challenge_probabilities", "raise_probabilities",
           "FAMILY_TEMPERATURES", "FAMILY_SHIFTS", "FAMILY_SLIPS"]

COLDEST = 1e-6  # the lowest temperature, in dice
LEGAL_MEMO = 4096  # the legal moves' arrays kept (by rules, dice on the table and standing bid)
READ_MEMO = 20_000  # reading: the posteriors kept (by bids), cleared at each round's start, least recent dropped
BIDS_MEMO = 256  # reading: the non-reading policies kept (each hands x actions), likewise
FAMILY_TEMPERATURES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)  # QuantalFamily's grid: temperatures, in dice,
FAMILY_SHIFTS = (-1.0, -0.5, 0.0, 0.5, 1.0)  # shifts of the challenge threshold, in dice (> 0: believes bids longer),
FAMILY_SLIPS = (0.0, 0.1, 0.3)  # and chances of a uniform legal action instead (bluffs, blunders)
TIED = 1e-9  # log-likelihoods closer than this tell two models no apart (sums of the same terms, rounded apart)

Reading = tuple[dict[int, np.ndarray], dict[int, np.ndarray]]  # each seat's posterior, its expected matching dice


class LegalMoves(NamedTuple):
    """The policy's actions at a view (the legal raises, then the challenge when a bid stands), each raise's face
    column and quantity, and each action's column.

    Never the exact call, which the policy does not make; read-only (memoised and shared)."""

    actions: tuple[Action, ...]
    faces: np.ndarray
    quantities: np.ndarray
    columns: dict[Action, int]


def challenge_probabilities(estimate: np.ndarray, view: PublicView, can_raise: bool,
                            temperature: float | np.ndarray, shift: float | np.ndarray = 0.0) -> np.ndarray:
    """Each hand's probability of challenging the standing bid q: the logistic of (q - e - shift) / temperature.

    Args:
        estimate: (N, faces), each hand's expected matching dice.
        view: the view whose standing bid it challenges.
        can_raise: whether a raise is left (if not, it challenges: 1).
        temperature: in dice; a (G, 1) array gives (G, N), a row a point.
        shift: dice added to the estimate; broadcast alike.
    """
    assert view.bid is not None  # a challenge needs a bid
    doubt = (view.bid.quantity - estimate[:, view.bid.face - 1] - shift) / temperature
    return 0.5 * (1.0 + np.tanh(0.5 * doubt)) if can_raise else np.ones(np.shape(doubt))  # overflow-free


def raise_probabilities(estimate: np.ndarray, found: LegalMoves, temperature: float) -> np.ndarray:
    """(N, raises): each hand's softmax over the legal raises of (e(f') - q') / ``temperature``, given that it
    raises."""
    if not len(found.faces):
        return np.zeros((estimate.shape[0], 0))
    margin = estimate[:, found.faces] - found.quantities
    probs = np.exp((margin - margin.max(axis=1, keepdims=True)) / temperature)
    return probs / probs.sum(axis=1, keepdims=True)


class QuantalEstimate(BaseOpponent):
    """Challenges with logistic((q - e) / ``temperature``), else raises with softmax((e - q') / ``temperature``);
    with ``reads``, e counts the other seats at their posteriors given their bids this round."""

    def __init__(self, temperature: float = 1.0, reads: bool = False, fit: bool = False, name: str | None = None):
        # colder plays as the cold limit already (any two margins differ by a sixth of a die at least), and cannot
        # overflow the logits
        self.temperature = number("QuantalEstimate", "temperature", temperature, COLDEST)
        if not isinstance(reads, bool):
            raise UsageError(f"QuantalEstimate.reads must be true or false, got {reads!r}")
        if not isinstance(fit, bool):
            raise UsageError(f"QuantalEstimate.fit must be true or false, got {fit!r}")
        self.reads, self.fit, self._start = reads, fit, (reads, self.temperature)
        self.name = name or spec_text("quantal", {"temperature": None if self.temperature == 1.0 else self.temperature,
                                                  "reads": reads or None, "fit": fit or None})
        self._fitted = np.zeros((2, len(FAMILY_TEMPERATURES)))  # fit: log-likelihood of the shown actions by (reads, T)
        self._shown: list[tuple[PublicView, Action]] = []  # fit: this round's raises and challenge by its seat
        self._memo: ViewMemo[tuple[LegalMoves, np.ndarray]] = ViewMemo()
        self._legal: BoundedCache[tuple[GameConfig, int, Bid | None], LegalMoves] = BoundedCache(LEGAL_MEMO)
        self._read: BoundedCache[tuple[GameConfig, tuple[int, ...], History], Reading] = BoundedCache(READ_MEMO)
        self._bidding: BoundedCache[tuple[GameConfig, tuple[int, ...], History, int],
                                    tuple[dict[Action, int], np.ndarray]] = BoundedCache(BIDS_MEMO)

    def posteriors(self, config: GameConfig, dice: tuple[int, ...], history: History) -> dict[int, np.ndarray]:
        """Each seat's posterior over ``solver_hands`` (in the sixes game a hand per matching count) after the round's
        bids ``history`` (read-only).

        Every bid is read as the non-reading policy's (a bid it could not make leaves that seat's posterior as it
        was)."""
        return self._reading(config, dice, history)[0]

    def _reading(self, config: GameConfig, dice: tuple[int, ...], history: History) -> Reading:
        """(``posteriors``, each seat's expected matching dice (faces,) under its posterior), memoised."""
        key = (config, dice, history)
        found = self._read.lookup(key)
        if found is not None:
            return found
        match = match_matrix(config)

        def expected_matching(seat: int, weights: np.ndarray) -> np.ndarray:
            out = weights @ (solver_hands(dice[seat], config)[0] @ match)
            out.flags.writeable = False
            return out

        if not history:
            weights = {s: solver_hands(d, config)[1] for s, d in enumerate(dice) if d > 0}
            expected = {s: expected_matching(s, w) for s, w in weights.items()}
        else:
            before, expected_before = self._reading(config, dice, history[:-1])
            weights, expected = dict(before), dict(expected_before)
            seat, bid = history[-1]
            columns, probs = self._bids(config, dice, history[:-1], seat)
            updated = before[seat] * (probs[:, columns[bid]] if bid in columns else 0.0)
            weights[seat] = updated / updated.sum() if updated.sum() > 0.0 else before[seat]
            weights[seat].flags.writeable = False
            expected[seat] = expected_matching(seat, weights[seat])
        self._read[key] = (weights, expected)
        return weights, expected

    def _bids(self, config: GameConfig, dice: tuple[int, ...], history: History, seat: int
              ) -> tuple[dict[Action, int], np.ndarray]:
        """The non-reading policy of ``seat`` to act after ``history``, over every hand it may hold: (each action's
        column, (hands, actions) probabilities)."""
        key = (config, dice, history, seat)
        found = self._bidding.lookup(key)
        if found is None:
            view = PublicView(config, seat, dice, history)
            raises, probs = self._policy(solver_hands(dice[seat], config)[0], view, reading=False)
            probs.flags.writeable = False
            found = self._bidding[key] = (raises.columns, probs)
        return found

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        if self.fit:  # a new game: the fit starts again
            self._set_model(*self._start)
            self._fitted[:] = 0.0
            self._shown = []

    def observe(self, event: Event) -> None:
        if isinstance(event, RoundStart):  # a new round's bids: no key of the last round's comes again
            self._clear()
            self._shown = []
        elif self.fit and isinstance(event, ActionTaken) and event.seat == self.seat and event.action is not EXACT:
            self._shown.append((event.view, event.action))  # a raise or a challenge (it never makes the exact call)
        elif self.fit and isinstance(event, RoundEnd) and self._shown:
            self._fit(np.asarray(event.hands[self.seat])[None, :])

    def _clear(self) -> None:
        """Forget the round's memoised readings and policies (a new round, or a new temperature)."""
        self._read.clear()
        self._bidding.clear()
        self._memo = ViewMemo()

    def _set_model(self, reads: bool, temperature: float) -> None:
        if (reads, temperature) != (self.reads, self.temperature):
            self.reads, self.temperature = reads, temperature
            self._clear()

    def _fit(self, hand: np.ndarray) -> None:
        """Add the log-likelihood of this round's shown actions (the seat's ``hand`` now known) for the rule reading
        bids or not at each temperature of ``FAMILY_TEMPERATURES``, and play the likeliest."""
        played = (self.reads, self.temperature)
        for reads, k in itertools.product((False, True), range(len(FAMILY_TEMPERATURES))):
            self._set_model(reads, FAMILY_TEMPERATURES[k])
            for view, action in self._shown:
                found, probs = self._policy(hand, view, reads)
                self._fitted[int(reads), k] += np.log(max(float(probs[0, found.columns[action]]), 1e-300))
        self._shown = []
        self._set_model(*played)  # kept where the evidence tells no model apart
        self._play_likeliest()

    def _play_likeliest(self) -> None:
        """Play the model under which the evidence is likeliest; among models it tells no apart, the one played, else
        one that reads bids as the played one does (an opening bid reads the same either way)."""
        if np.ptp(self._fitted) <= TIED:
            return
        tied = self._fitted >= self._fitted.max() - TIED  # row: reads, column: the temperature
        row = int(self.reads)
        if self.temperature in FAMILY_TEMPERATURES and tied[row, FAMILY_TEMPERATURES.index(self.temperature)]:
            return
        row = row if tied[row].any() else 1 - row
        self._set_model(bool(row), FAMILY_TEMPERATURES[int(np.argmax(tied[row]))])

    def evidence(self) -> np.ndarray:
        """With ``fit``: the log-likelihood of the seat's actions seen since the reset, by (reads, temperature of
        ``FAMILY_TEMPERATURES``) (a copy)."""
        return self._fitted.copy()

    def add_evidence(self, evidence: np.ndarray) -> None:
        """With ``fit``: add ``evidence`` seen elsewhere (another's ``evidence()``: an earlier game of a match), and
        play the likeliest model."""
        evidence = np.asarray(evidence, dtype=float)
        problem = ("fit=false" if not self.fit else f"shape {evidence.shape}" if evidence.shape != self._fitted.shape
                   else "values that are not finite" if not np.isfinite(evidence).all() else None)
        if problem is not None:
            raise UsageError(f"{self.name}.add_evidence: needs fit=true and finite log-likelihoods of shape "
                             f"{self._fitted.shape}, got {problem}")
        self._fitted += evidence
        self._play_likeliest()

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[tuple[Action, ...], np.ndarray]:
        """The legal raises, then the challenge when a bid stands, and (N, those actions) their probabilities for
        each of the N ``hands``."""
        found, probs = self._policy(hands, view, self.reads)
        return found.actions, probs

    def legal_moves(self, view: PublicView) -> LegalMoves:
        """The policy's actions at ``view``, memoised (they depend on the rules, the dice on the table and the bid)."""
        key = (view.config, view.table_dice, view.bid)
        found = self._legal.lookup(key)
        if found is None:
            raises = tuple(a for a in view.legal_actions() if isinstance(a, Bid))
            actions = raises + ((CHALLENGE,) if view.bid is not None else ())
            faces = np.array([b.face - 1 for b in raises], dtype=np.intp)
            quantities = np.array([b.quantity for b in raises], dtype=float)
            faces.flags.writeable = quantities.flags.writeable = False
            found = self._legal[key] = LegalMoves(actions, faces, quantities, {a: i for i, a in enumerate(actions)})
        return found

    def estimates(self, hands: np.ndarray, view: PublicView, reading: bool) -> np.ndarray:
        """(N, faces): each hand's expected matching dice on the table, the others read from their bids if
        ``reading``."""
        estimate = expected_matches(np.atleast_2d(np.asarray(hands)), view)
        if reading:
            config, dice = view.config, tuple(int(d) for d in view.dice)
            seen = sum(e for s, e in self._reading(config, dice, view.history)[1].items() if s != view.seat)
            estimate = estimate + (seen - unseen_matches(config, view.table_dice, dice[view.seat],
                                                         range(1, config.faces + 1)))
        return estimate

    def _challenge(self, estimate: np.ndarray, view: PublicView, can_raise: bool) -> np.ndarray:
        """(N,) each hand's probability of challenging the standing bid: the logistic of its doubt (1: no raise)."""
        return challenge_probabilities(estimate, view, can_raise, self.temperature)

    def _policy(self, hands: np.ndarray, view: PublicView, reading: bool) -> tuple[LegalMoves, np.ndarray]:
        estimate = self.estimates(hands, view, reading)
        found = self.legal_moves(view)
        probs = raise_probabilities(estimate, found, self.temperature)
        if view.bid is None:
            return found, probs
        challenge = self._challenge(estimate, view, len(found.faces) > 0)
        return found, np.concatenate([probs * (1.0 - challenge)[:, None], challenge[:, None]], axis=1)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        if not isinstance(action, Bid) and not self._memo.holds(hands, view):
            # a call alone (a lookahead asks the calls at many views, the raises at few): no softmax over the raises
            if action != CHALLENGE or view.bid is None:  # never the exact call; no challenge before a bid
                return np.zeros(len(np.atleast_2d(hands)))
            return self._challenge(self.estimates(hands, view, self.reads), view, len(self.legal_moves(view).faces) > 0)
        found, probs = self._memo.get(hands, view, lambda: self._policy(hands, view, self.reads))
        column = found.columns.get(action)
        if column is None:  # not legal here, or the exact call
            return np.zeros(len(probs))
        return probs[:, column].copy()

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        actions, probs = self.policy(np.asarray(view.hand)[None, :], view)
        return sample_action(actions, probs[0], rng)


class QuantalFamily:
    """A grid of noisy honest bidders, the points a ``TypeMixture`` keeps a posterior over (its ``family``).

    Point g is the (non-reading) quantal rule at temperature T_g whose challenges are shifted by c_g dice (it
    challenges with logistic((q - e - c_g) / T_g)), slipping to a uniform legal action with probability s_g; the grid
    is every combination of ``temperatures``, ``shifts`` and ``slips``. Vectorised over the points and the hands."""

    def __init__(self, temperatures: Sequence[float] = FAMILY_TEMPERATURES, shifts: Sequence[float] = FAMILY_SHIFTS,
                 slips: Sequence[float] = FAMILY_SLIPS):
        grid = np.array(list(itertools.product(temperatures, shifts, slips)), dtype=float)
        if not len(grid) or grid[:, 0].min() < COLDEST or not ((grid[:, 2] >= 0.0) & (grid[:, 2] <= 1.0)).all():
            raise UsageError(f"QuantalFamily: needs temperatures >= {COLDEST} and slips in [0, 1], got "
                             f"{temperatures}, {slips}")
        self.temperature, self.shift, self.slip = (grid[:, i].copy() for i in range(3))
        self.labels = tuple(f"quantal:temperature={t:g},shift={c:g},slip={s:g}" for t, c, s in grid)
        temps, group = np.unique(self.temperature, return_inverse=True)
        self._temps, self._group = temps, group
        self._by_temperature = (np.arange(len(temps))[:, None] == group[None, :]).astype(float)  # (U, G) one-hot
        self._rule = QuantalEstimate()  # its estimates and its actions, memoised

    def __len__(self) -> int:
        return len(self.labels)

    def _parts(self, hands: np.ndarray, view: PublicView
               ) -> tuple[tuple[Action, ...], np.ndarray, np.ndarray | None]:
        """(the actions: raises, challenge, exact call where open; (temperatures, N, raises) raise probabilities given
        a raise; (points, N) challenge probabilities, None before a bid)."""
        estimate = self._rule.estimates(np.atleast_2d(hands), view, reading=False)
        found = self._rule.legal_moves(view)
        raises = np.stack([raise_probabilities(estimate, found, t) for t in self._temps])
        if view.bid is None:
            return found.actions, raises, None
        challenge = challenge_probabilities(estimate, view, len(found.faces) > 0, self.temperature[:, None],
                                            self.shift[:, None])
        return found.actions + ((EXACT,) if view.config.exact_call else ()), raises, challenge

    def point_probabilities(self, hand: np.ndarray, view: PublicView) -> tuple[tuple[Action, ...], np.ndarray]:
        """(the legal actions, (points, actions): each point's probability of each for the one ``hand``)."""
        actions, raises, challenge = self._parts(np.asarray(hand)[None, :], view)
        keep = (1.0 - self.slip)[:, None]
        honest = raises[self._group, 0, :] * keep
        columns = [honest] if challenge is None else [honest * (1.0 - challenge), challenge * keep]
        if len(actions) > sum(c.shape[1] for c in columns):  # the exact call: a slip only
            columns.append(np.zeros((len(self), 1)))
        return actions, np.concatenate(columns, axis=1) + (self.slip / len(actions))[:, None]

    def policy(self, hands: np.ndarray, view: PublicView, weights: np.ndarray
               ) -> tuple[tuple[Action, ...], np.ndarray]:
        """(the legal actions, (N, actions)): each hand's probability of each under the points mixed by ``weights``
        (summing to their total)."""
        actions, raises, challenge = self._parts(hands, view)
        keep = (1.0 - self.slip) * weights
        n = raises.shape[1]
        stay = (np.broadcast_to(keep[:, None], (len(self), n)) if challenge is None
                else keep[:, None] * (1.0 - challenge))
        columns = [np.einsum("un,unr->nr", self._by_temperature @ stay, raises)]
        if challenge is not None:
            columns.append((keep @ challenge)[:, None])
        if len(actions) > sum(c.shape[1] for c in columns):
            columns.append(np.zeros((n, 1)))
        return actions, np.concatenate(columns, axis=1) + float(weights @ self.slip) / len(actions)
