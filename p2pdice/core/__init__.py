"""The sans-I/O core: rules, fairness protocol, transcript and table state machines.

Nothing in this package touches a socket, a clock, a file or a random source: time and
randomness come in as arguments, and results go out as values.
"""
