"""p2pdice: Liar's Dice on a LAN with provably fair hands and no trusted server."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
