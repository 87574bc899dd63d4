"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from p2pdice.core.rules import ChallengePenalty, ExactReward, Ones, Palifico, PalificoKind, Rules

#: Table rules with every game option drawn: 2-6 seats, 1-5 dice each, ones, exact calls,
#: palifico and how the first starter is chosen.
rules_strategy = st.builds(
    Rules,
    seats=st.integers(2, 6),
    starting_dice=st.integers(1, 5),
    ones=st.sampled_from(list(Ones)),
    exact_call=st.booleans(),
    palifico=st.sampled_from(list(Palifico)),
    first_starter=st.sampled_from(["random", "seat0"]),
)

#: As `rules_strategy`, with the house options of issue 27 drawn too (palifico kind, exact
#: reward, challenge penalty).
house_rules_strategy = st.builds(
    Rules,
    seats=st.integers(2, 6),
    starting_dice=st.integers(1, 5),
    ones=st.sampled_from(list(Ones)),
    exact_call=st.booleans(),
    palifico=st.sampled_from(list(Palifico)),
    palifico_kind=st.sampled_from(list(PalificoKind)),
    exact_reward=st.sampled_from(list(ExactReward)),
    challenge_penalty=st.sampled_from(list(ChallengePenalty)),
    first_starter=st.sampled_from(["random", "seat0"]),
)
