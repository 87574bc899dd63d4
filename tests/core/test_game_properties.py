"""Rules invariants under random legal (and illegal) play with random hands."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from p2pdice.core.bids import FACES, Bid, bid_problem, legal_bids, lowest_legal_quantity
from p2pdice.core.errors import RuleError
from p2pdice.core.game import (
    Call,
    Challenge,
    Deal,
    ExactCall,
    Forfeit,
    GameState,
    Outcome,
    Phase,
    PlaceBid,
    Reveal,
    StartNextRound,
    Undo,
    Void,
    apply,
    new_game,
)
from p2pdice.core.rules import (
    ChallengePenalty,
    ExactReward,
    Ones,
    PalificoKind,
    Rules,
)
from tests.support.strategies import house_rules_strategy, rules_strategy


def rank(rules: Rules, bid: Bid, palifico_round: bool) -> int:
    """An order of bids written independently of the engine (aces: q ones sits just above 2q 6s)."""
    if rules.ones == Ones.ACES and not palifico_round and bid.face == 1:
        return 20 * bid.quantity + 7
    return 10 * bid.quantity + bid.face


def dice_after_reveal(state: GameState, hands: tuple[tuple[int, ...], ...]) -> list[int]:
    """Each seat's dice after the call of `state` is settled on `hands`, from RULES.md R4 and
    R5 alone: who pays, how much (one, or max(1, |count - bid|) capped at what the loser
    holds), and who regains a die or makes every other seat pay one."""
    rules, bid = state.rules, state.standing_bid
    assert bid is not None and state.caller is not None and state.standing_bidder is not None
    wild = rules.ones != Ones.NATURAL and (
        not state.palifico_round or rules.palifico_kind == PalificoKind.FACE_FIXED
    )
    count = sum(1 for h in hands for d in h if d == bid.face or (wild and bid.face != 1 and d == 1))
    dice = list(state.dice)
    if state.call == Call.CHALLENGE:
        loser = state.caller if count >= bid.quantity else state.standing_bidder
        owed = 1
        if rules.challenge_penalty == ChallengePenalty.DIFFERENCE:
            owed = max(1, abs(count - bid.quantity))
        dice[loser] -= min(owed, dice[loser])
    elif count != bid.quantity:
        dice[state.caller] -= 1
    elif rules.exact_reward == ExactReward.OTHERS_LOSE:
        dice = [n - 1 if n and seat != state.caller else n for seat, n in enumerate(dice)]
    else:
        dice[state.caller] = min(dice[state.caller] + 1, rules.starting_dice)
    return dice


class RandomGame(RuleBasedStateMachine):
    @initialize(rules=house_rules_strategy)
    def start(self, rules: Rules) -> None:
        self.rules = rules
        self.state = new_game(rules)
        self.cap = rules.seats * rules.starting_dice

    def _try(self, event) -> bool:
        before = self.state
        try:
            after = apply(self.state, event)
        except RuleError:
            assert self.state == before  # nothing changed
            return False
        self.state = after
        return True

    @precondition(lambda self: self.state.phase == Phase.DEALING)
    @rule(data=st.data())
    def deal(self, data) -> None:
        starter = None
        if self.state.starter is None:
            starter = data.draw(st.sampled_from(self.state.survivors))
        assert self._try(Deal(starter))

    @precondition(lambda self: self.state.phase == Phase.BIDDING)
    @rule(data=st.data())
    def legal_bid(self, data) -> None:
        s = self.state
        options = legal_bids(
            s.rules,
            s.standing_bid,
            dice_in_play=s.dice_in_play,
            palifico_round=s.palifico_round,
            bidder_dice=s.dice[s.turn],
        )
        if not options:
            return
        bid = data.draw(st.sampled_from(options[:12]))
        previous = s.standing_bid
        assert self._try(PlaceBid(s.turn, bid))
        if previous is not None:
            assert rank(s.rules, bid, s.palifico_round) > rank(s.rules, previous, s.palifico_round)

    @rule(seat=st.integers(-1, 6), q=st.integers(-1, 32), f=st.integers(0, 7))
    def any_bid(self, seat: int, q: int, f: int) -> None:
        self._try(PlaceBid(seat, Bid(q, f)))

    @rule(
        seat=st.integers(0, 5), kind=st.sampled_from([Challenge, ExactCall, Undo, StartNextRound])
    )
    def any_call(self, seat: int, kind) -> None:
        before = self.state
        if self._try(kind(seat)) and kind is Undo:
            assert before.standing_bidder == seat

    @precondition(lambda self: self.state.phase == Phase.SHOWDOWN)
    @rule(data=st.data())
    def reveal(self, data) -> None:
        s = self.state
        hands = tuple(
            tuple(data.draw(st.lists(st.sampled_from(FACES), min_size=n, max_size=n)))
            for n in s.dice
        )
        expected = dice_after_reveal(s, hands)
        assert self._try(Reveal(hands))
        # The dice fall by what the table's rules say: one or the difference for a
        # challenge's loser, one for an exact miss, one from every other seat after an
        # others-lose hit, and a regained die (to the cap) after a regain hit.
        assert list(self.state.dice) == expected
        result = self.state.last_result
        assert result is not None
        lost = sum(
            b - a for b, a in zip(result.dice_before, result.dice_after, strict=True) if b > a
        )
        if result.outcome == Outcome.EXACT_HIT:
            assert (lost == 0) == (s.rules.exact_reward == ExactReward.REGAIN)
        else:
            assert lost >= 1

    @precondition(lambda self: self.state.phase == Phase.SHOWDOWN)
    @rule(data=st.data())
    def forfeit(self, data) -> None:
        if data.draw(st.integers(0, 9)) != 0:  # rare
            return
        seat = data.draw(st.sampled_from(self.state.survivors))
        assert self._try(Forfeit((seat,)))

    @precondition(lambda self: self.state.phase == Phase.DEALING)
    @rule(data=st.data())
    def void(self, data) -> None:
        if data.draw(st.integers(0, 9)) != 0:  # rare
            return
        before = self.state
        assert self._try(Void())
        assert self.state.dice == before.dice and self.state.out == before.out

    @precondition(lambda self: self.state.phase == Phase.ROUND_OVER)
    @rule()
    def next_round(self) -> None:
        assert self._try(StartNextRound(self.state.next_starter))

    @invariant()
    def dice_bounded(self) -> None:
        if hasattr(self, "state"):
            assert 0 <= self.state.dice_in_play <= self.cap
            assert all(0 <= n <= self.rules.starting_dice for n in self.state.dice)

    @invariant()
    def ranking_is_a_permutation(self) -> None:
        if hasattr(self, "state"):
            assert sorted(self.state.ranking) == list(range(self.rules.seats))
            if self.state.phase == Phase.GAME_OVER:
                assert len(self.state.survivors) == 1


TestRandomGame = RandomGame.TestCase
TestRandomGame.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=house_rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_every_game_ends_with_one_winner_and_a_full_ranking(rules: Rules, seed: int) -> None:
    import random

    from p2pdice.bots import load_bot
    from p2pdice.bots.sim import play_game

    rng = random.Random(seed)
    bots = [load_bot(rng.choice(["easy", "medium"])) for _ in range(rules.seats)]
    record = play_game(rules, bots, rng)
    assert sorted(record.ranking) == list(range(rules.seats))
    assert record.bot_faults == 0
    assert record.rounds <= rules.seats * rules.starting_dice * 3


@settings(max_examples=300, deadline=None)
@given(
    rules=rules_strategy,
    pq=st.integers(1, 30),
    pf=st.integers(1, 6),
    face=st.integers(1, 6),
    n=st.integers(1, 30),
    pal=st.booleans(),
    bidder=st.integers(1, 5),
)
def test_legality_is_monotone_in_quantity(rules, pq, pf, face, n, pal, bidder) -> None:
    """legal_bids relies on this: once a quantity is legal, every larger one up to n is too."""
    previous = Bid(min(pq, n), pf)
    legal = [
        bid_problem(
            rules, previous, Bid(q, face), dice_in_play=n, palifico_round=pal, bidder_dice=bidder
        )
        is None
        for q in range(1, n + 1)
    ]
    if True in legal:
        first = legal.index(True)
        assert all(legal[first:])


@settings(max_examples=300, deadline=None)
@given(
    rules=rules_strategy,
    # Quantities below 1 too: the function is public, whatever the engine lets stand.
    previous=st.none() | st.builds(Bid, st.integers(-3, 30), st.integers(1, 6)),
    face=st.integers(1, 6),
    counts=st.lists(st.integers(0, 40), min_size=1, max_size=4),
    pal=st.booleans(),
    bidder=st.integers(1, 5),
)
def test_the_lowest_legal_quantity_is_the_first_legal_one_at_every_count_of_dice(
    rules, previous, face, counts, pal, bidder
) -> None:
    """Asked at several counts of dice in play in turn (its bound is cached across them), it
    gives the first quantity the engine accepts, found by trying them all."""
    for n in counts:
        first = next(
            (
                q
                for q in range(1, n + 1)
                if bid_problem(
                    rules,
                    previous,
                    Bid(q, face),
                    dice_in_play=n,
                    palifico_round=pal,
                    bidder_dice=bidder,
                )
                is None
            ),
            None,
        )
        found = lowest_legal_quantity(
            rules, previous, face, dice_in_play=n, palifico_round=pal, bidder_dice=bidder
        )
        assert found == first, (n, previous, face)


def test_a_bid_of_float_quantity_leaves_the_int_bids_answer_alone() -> None:
    """The lowest quantities are cached; an equal bid of another type (2.0 for 2) has an
    entry of its own, so a caller passing one cannot change what the engine's bids get."""
    rules = Rules()
    answer = {"dice_in_play": 10, "palifico_round": False, "bidder_dice": 5}
    lowest_legal_quantity(rules, Bid(2.0, 3), 4, **answer)  # type: ignore[arg-type]
    assert lowest_legal_quantity(rules, Bid(2, 3), 4, **answer) == 2
