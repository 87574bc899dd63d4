"""Where a seat that leaves the standing bid's face goes: its likeliest new faces.

hard's lap (bots/hard.py, `_Lap`) follows a raise of ours round the table. A seat that lets
it pass may climb on our face, or name a face of its own; in the second case our bid is out
of danger, and what the round is worth to us is the rest of the lap run on the new bid: who
calls it before it comes back, and how hot it is when we face it. That new face is one the
changer holds, as far as its bids follow its hand: the same model as an opening's face in
bots/belief.py (a softmax on its count of each face, `OPEN_FACE_SHARPNESS` per die scaled
by its read sharpness), taken over our belief about its dice on each face. The belief about
its dice on the face it names is then tilted the same way, so that we face its new bid
believing it as we will when it is made.

Only the marginal belief per face is at hand here (not the joint one over count vectors),
so the face weights are a mean-field softmax: E[exp(s m_g)] per face g, the faces taken as
if independent. It ranks faces as the joint model does, which is all the lap needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .belief import FACE_LIST, OPEN_FACE_SHARPNESS, PICK_SHARPNESS

#: One face the changer may name: its weight (unnormalised) and the belief over the
#: changer's dice of that face once it has named it.
FaceChoice = tuple[float, tuple[float, ...]]


def face_sharpness(sharpness: float, trust: float) -> float:
    """The softmax weight per die on a changer's face choice, for a seat read with bid
    `sharpness` (20: hand-led) whose bids follow its hand with chance `trust`."""
    return OPEN_FACE_SHARPNESS * trust * sharpness / PICK_SHARPNESS


def tilted(belief: Sequence[float], sharpness: float) -> FaceChoice:
    """E[exp(sharpness * m)] over `belief` (a distribution over m = 0, 1, ... dice), and
    the belief reweighted by exp(sharpness * m): how likely a seat is to name this face,
    and what it holds of it if it does."""
    weights = [w * math.exp(sharpness * m) for m, w in enumerate(belief)]
    total = sum(weights)
    if total <= 0.0:
        return 0.0, tuple(belief)
    return total, tuple(w / total for w in weights)


def likeliest_faces(
    marginals: Sequence[Sequence[float]], sharpness: float
) -> dict[int, FaceChoice]:
    """Per face, the changer's (unnormalised) weight for naming it and its belief on that
    face once named, from `marginals` (its belief per face, faces 1-6 in order)."""
    return {face: tilted(marginals[face - 1], sharpness) for face in FACE_LIST}
