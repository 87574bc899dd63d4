"""p2pdice: Liar's Dice on a LAN with provably fair hands and no trusted server."""

__version__ = "0.1.0"
from .core.version import PROTOCOL_VERSION as PROTOCOL_VERSION
