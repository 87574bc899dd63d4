"""How far an opponent's calls of our raises bear out the chances our reply model gave them.

`hard`'s heads-up look-ahead prices a raise by the chance that the follower calls it. The
model of that chance (belief.reply_model) is a threshold player's, bent by the follower's
read; a player who decides another way (one that samples our hand from our bids, say) calls
more or less often than the model says at every hand, and the threshold read, held near the
anchor by its prior, learns that slowly. At each reveal we know the follower's hand, so we
know the chance the model gave its call of each of our raises that round: a check. A shift on
the logit of every modelled chance, fitted to the checks, says how far off the model is for
this opponent.

The fit is a maximum a posteriori estimate under a normal prior whose mean, STRANGER_SHIFT,
is where a stranger stands: below zero, since the model, whose threshold player answers a
raise it doubts by calling, overpredicts the calls of players measured against `hard`
(docs/bots.md, "This version: the follower's calls checked against the model"). A few
checks that bear the model out bring the shift back towards zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

#: The prior mean of a stranger's shift on the logit of its modelled call chances.
STRANGER_SHIFT = -0.7
#: The prior's standard deviation: how far the checks may move the shift in a few rounds.
SHIFT_WIDTH = 1.0
SHIFT_STEP = 0.05  #: resolution of the fitted shift
SHIFT_LIMIT = 3.0  #: the shift is fitted within +-SHIFT_LIMIT
COARSE_STEPS = 5  #: the first pass tries every fifth step, the second the steps around its best
_EDGE = 1e-9

#: One modelled call: per model of the follower (weight, chance of a call from doubt, chance
#: of a call with no raise it believes, taken after doubt), and whether it called.
Term = tuple[float, float, float]
Check = tuple[tuple[Term, ...], bool]


def shifted(chance: float, shift: float) -> float:
    """`chance` moved by `shift` on its logit."""
    if not shift:
        return chance
    return 1.0 / (1.0 + math.exp(-(_logit(chance) + shift)))


def modelled_call(terms: Sequence[Term], shift: float) -> float:
    """The chance of a call under the mixture `terms`, every doubt moved by `shift`."""
    return _mixed_call([(w, _logit(doubt), cornered) for w, doubt, cornered in terms], shift)


@lru_cache(maxsize=4096)
def fitted_shift(checks: tuple[Check, ...]) -> float:
    """The shift (a multiple of SHIFT_STEP within SHIFT_LIMIT) that best explains `checks`
    under the prior; STRANGER_SHIFT when there are none."""
    if not checks:
        return STRANGER_SHIFT
    # Logits once, not per shift tried: the fit runs inside a decision.
    prepared = [
        ([(w, _logit(doubt), cornered) for w, doubt, cornered in terms], called)
        for terms, called in checks
    ]

    def score(step: int) -> float:
        shift = step * SHIFT_STEP
        total = -0.5 * ((shift - STRANGER_SHIFT) / SHIFT_WIDTH) ** 2
        for terms, called in prepared:
            p = min(1.0 - _EDGE, max(_EDGE, _mixed_call(terms, shift)))
            total += math.log(p if called else 1.0 - p)
        return total

    # The score is near enough to concave in the shift for a coarse pass and a fine one.
    limit = round(SHIFT_LIMIT / SHIFT_STEP)
    coarse = max(range(-limit, limit + 1, COARSE_STEPS), key=score)
    low, high = max(-limit, coarse - COARSE_STEPS + 1), min(limit, coarse + COARSE_STEPS - 1)
    return max(range(low, high + 1), key=score) * SHIFT_STEP


def _mixed_call(terms: Sequence[tuple[float, float, float]], shift: float) -> float:
    """modelled_call over (weight, logit of the call from doubt, cornered call) terms."""
    total = 0.0
    weight = 0.0
    for w, logit, cornered in terms:
        moved = 1.0 / (1.0 + math.exp(-(logit + shift)))
        total += w * (moved + (1.0 - moved) * cornered)
        weight += w
    return total / weight if weight > 0.0 else 0.0


def _logit(chance: float) -> float:
    chance = min(1.0 - _EDGE, max(_EDGE, chance))
    return math.log(chance / (1.0 - chance))
